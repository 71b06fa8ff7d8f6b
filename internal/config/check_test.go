package config

import (
	"errors"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

type csvConfig struct {
	Path      string         `json:"path" required:"true"`
	Delimiter connector.Byte `json:"delimiter" default:","`
	Mode      string         `json:"mode" default:"strict" enum:"strict,lenient"`
	Options   struct {
		Header bool `json:"header"`
	} `json:"options"`
}

type jsonlConfig struct {
	Path string `json:"path"`
}

type renameConfig struct {
	Map map[string]string `json:"map" required:"true"`
}

func testRegistry() *connector.Registry {
	reg := connector.NewRegistry()
	reg.AddSource(connector.SourceSpec{Name: "csv", Config: &csvConfig{}, New: func(cfg connector.Config) (connector.Source, error) {
		var c csvConfig
		return nil, cfg.Decode(&c)
	}})
	reg.AddSource(connector.SourceSpec{Name: "panicky", New: func(cfg connector.Config) (connector.Source, error) {
		panic("boom")
	}})
	reg.AddSource(connector.SourceSpec{Name: "plain", New: func(cfg connector.Config) (connector.Source, error) {
		return nil, errors.New("cannot build")
	}})
	reg.AddSink(connector.SinkSpec{Name: "jsonl", Config: &jsonlConfig{}, New: func(cfg connector.Config) (connector.Sink, error) {
		var c jsonlConfig
		return nil, cfg.Decode(&c)
	}})
	reg.AddTransform(connector.TransformSpec{Name: "rename_keys", Config: &renameConfig{}, New: func(cfg connector.Config) (connector.Transform, error) {
		var c renameConfig
		return nil, cfg.Decode(&c)
	}})
	return reg
}

func TestCheckOK(t *testing.T) {
	doc := mustLoad(t, `
pipeline:
	source: {type: csv, config: {path: "in-${now.date}.csv", delimiter: ";"}}
	sink: {type: jsonl, config: {path: out.jsonl}}
	transforms: [{type: rename_keys, config: {map: {a: b}}}]
	dlq: {sink: {type: jsonl}}
	state: {type: whatever}
`, noEnv())
	if err := doc.Check(testRegistry()); err != nil {
		t.Fatal(err)
	}
}

func TestCheckErrors(t *testing.T) {
	doc := mustLoad(t, `
pipeline:
	source:
		type: csv
		config:
			delimiter: ";;"
			mode: fast
			extra: 1
	sources:
		good: {type: csv, config: {path: a.csv, options: {header: true}}}
		nocfg: {type: csv}
		bad: {type: panicky}
		plain: {type: plain}
	sink: {type: jsonl, config: {path: 5}}
	transforms:
		- type: rename_keys
		- type: upper
	dlq: {sink: {type: kafka}}
matrix:
	- id: a
		transforms: []
	- id: b
		source:
			ref: good
			config: {options: {header: "yes"}}
		inherit_transforms: false
	- id: c
		source: {ref: nocfg}
		inherit_transforms: false
		dlq: null
	- id: d
		source: {ref: bad}
		inherit_transforms: false
		dlq: null
	- id: e
		source: {ref: plain, type: mysql}
		inherit_transforms: false
		dlq: null
	- id: f
		source: {ref: plain}
		inherit_transforms: false
		dlq: null
`, noEnv())
	err := doc.Check(testRegistry())
	// Every problem of each connector config is reported at its key, and
	// each problem once even when several rows share the template.
	wantErrs(t, errLines(t, err),
		`pipeline.yaml:5:7: pipeline.source.config.path: required key is missing`,
		`pipeline.yaml:5:18: pipeline.source.config.delimiter: expected a single character (or its byte value 0-255), got ";;"`,
		`pipeline.yaml:6:13: pipeline.source.config.mode: must be one of strict, lenient, got "fast"`,
		`pipeline.yaml:7:7: pipeline.source.config.extra: unknown key "extra"`,
		`pipeline.yaml:10:12: pipeline.sources.nocfg.config.path: required key is missing`,
		`pipeline.yaml:11:10: pipeline.sources.bad.config: connector panicked while checking its config: boom`,
		`pipeline.yaml:12:12: pipeline.sources.plain.config: source "plain": cannot build`,
		`pipeline.yaml:13:38: pipeline.sink.config.path: expected a string, got number`,
		`pipeline.yaml:15:7: pipeline.transforms[0].config.map: required key is missing`,
		`pipeline.yaml:16:13: pipeline.transforms[1].type: unknown transform type "upper" (valid: rename_keys)`,
		`pipeline.yaml:17:22: pipeline.dlq.sink.type: unknown sink type "kafka" (valid: jsonl)`,
		`pipeline.yaml:24:34: matrix[1].source.config.options.header: expected a boolean, got string`,
		`pipeline.yaml:35:32: matrix[4].source.type: unknown source type "mysql" (valid: csv, panicky, plain)`,
	)
	var es Errors
	if !errors.As(err, &es) || es[4].Line != 10 || es[4].Col != 12 || es[4].Path != "pipeline.sources.nocfg.config.path" {
		t.Errorf("structured error = %+v", es)
	}
}

func TestCheckUnknownConfigKey(t *testing.T) {
	doc := mustLoad(t, `
pipeline:
	source:
		type: csv
		config:
			path: a.csv
			delimter: ";"
	sink: {type: jsonl}
`, noEnv())
	wantErrs(t, errLines(t, doc.Check(testRegistry())),
		`pipeline.yaml:6:7: pipeline.source.config.delimter: unknown key "delimter"`)
}

func TestExpandConcurrent(t *testing.T) {
	doc, err := Load("testdata/matrix.yaml", noEnv())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for i := 0; i < 8; i++ {
		go func() {
			invs, err := doc.Expand()
			if err != nil {
				done <- err.Error()
				return
			}
			_ = doc.Check(testRegistry())
			done <- invSummary(invs)
		}()
	}
	first := <-done
	for i := 1; i < 8; i++ {
		if got := <-done; got != first {
			t.Errorf("concurrent Expand differs:\n%s\n%s", got, first)
		}
	}
}
