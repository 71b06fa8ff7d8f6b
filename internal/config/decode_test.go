package config

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestDecodeFull(t *testing.T) {
	doc := mustLoad(t, `
version: 1
name: orders
vars:
	dir: /data
delivery: exactly_once
execution:
	max_concurrent: 3
	on_error: stop
	batch_size: 250
pipeline:
	sources:
		users: {type: rest, config: {url: "http://x/users"}, transforms: [{type: flatten}], inherit_transforms: false}
	sink:
		type: jsonl
		config:
			path: ${vars.dir}/out.jsonl
	transforms:
		- type: rename_keys
			config: {map: {a: b}}
		- type: drop
	state: {type: file, config: {path: ./state}}
	dlq:
		sink: {type: jsonl, config: {path: dlq.jsonl}}
		max_failures_total: 10
		include_original_payload: false
matrix:
	- id: users
		source: {ref: users, config: {page_size: 10}}
		depends_on: [other]
		delivery: at_least_once
		dlq: null
	- id: other
		source: {ref: users}
		state: {type: memory}
`, noEnv())
	if doc.Name != "orders" || doc.Version != 1 || doc.Delivery != ExactlyOnce {
		t.Errorf("top = %q %d %q", doc.Name, doc.Version, doc.Delivery)
	}
	if doc.Execution != (Execution{MaxConcurrent: 3, OnError: OnErrorAbort, BatchSize: 250}) {
		t.Errorf("execution = %+v", doc.Execution)
	}
	p := doc.Pipeline
	if p.Source != nil || len(p.Sources) != 1 || p.Sources[0].Name != "users" || p.Sources[0].Spec.InheritTransforms ||
		len(p.Sources[0].Spec.Transforms) != 1 {
		t.Errorf("sources = %+v", p.Sources)
	}
	if got := p.Sink.Config.Value.String(); got != `{"path":"/data/out.jsonl"}` || p.Sink.Config.Path != "pipeline.sink.config" {
		t.Errorf("sink config = %s at %s", got, p.Sink.Config.Path)
	}
	if len(p.Transforms) != 2 || p.Transforms[0].Type != "rename_keys" || p.Transforms[1].Config.Value.String() != `{}` ||
		p.Transforms[0].Config.Path != "pipeline.transforms[0].config" {
		t.Errorf("transforms = %+v", p.Transforms)
	}
	if p.State == nil || p.State.Type != "file" {
		t.Errorf("state = %+v", p.State)
	}
	if p.DLQ == nil || p.DLQ.MaxFailuresTotal != 10 || p.DLQ.IncludeOriginalPayload || p.DLQ.OnBatchError != "propagate" {
		t.Errorf("dlq = %+v", p.DLQ)
	}
	if len(doc.Matrix) != 2 || !doc.Matrix[0].DLQSet || doc.Matrix[0].DLQ != nil || doc.Matrix[0].Delivery != AtLeastOnce ||
		doc.Matrix[0].Source.Ref != "users" || doc.Matrix[0].Source.Config.String() != `{"page_size":10}` {
		t.Errorf("matrix = %+v", doc.Matrix)
	}
	if doc.Vars.String() != `{"dir":"/data"}` {
		t.Errorf("vars = %s", doc.Vars)
	}
}

func TestDecodeDefaults(t *testing.T) {
	doc := mustLoad(t, minimal, noEnv())
	if doc.Version != 1 || doc.Delivery != AtLeastOnce || doc.Execution.OnError != OnErrorContinue ||
		doc.Execution.BatchSize != 1000 || doc.Execution.MaxConcurrent != DefaultMaxConcurrent() {
		t.Errorf("defaults = %+v", doc)
	}
	if n := DefaultMaxConcurrent(); n < 1 || n > 8 {
		t.Errorf("DefaultMaxConcurrent = %d", n)
	}
	if doc.PipelineName() != "pipeline" {
		t.Errorf("name = %q", doc.PipelineName())
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"top-level source hint", `
source: {type: csv}
sink: {type: jsonl}
`, []string{
			`pipeline.yaml:1:1: source: unknown key; wrap top-level source/sink in pipeline: (pipeline: {source: ..., sink: ...})`,
			`pipeline.yaml:1:1: pipeline: required key is missing; wrap top-level source/sink in pipeline:`,
			`pipeline.yaml:2:1: sink: unknown key; wrap top-level source/sink in pipeline: (pipeline: {source: ..., sink: ...})`,
		}},
		{"version and types", `
version: 2
name: 5
execution:
	max_concurrent: two
	on_error: explode
	batch_size: 2000000
	adaptive_batch_size: {enabled: true}
delivery: maybe
pipeline:
	source: {type: csv}
	sink: {type: jsonl}
`, []string{
			`pipeline.yaml:1:10: version: unsupported version 2: only version 1 is recognised`,
			`pipeline.yaml:2:7: name: expected a string, got 5`,
			`pipeline.yaml:4:19: execution.max_concurrent: expected an integer, got "two"`,
			`pipeline.yaml:5:13: execution.on_error: must be one of continue, abort, stop, got "explode"`,
			`pipeline.yaml:6:15: execution.batch_size: must be between 1 and 1000000, got 2000000`,
			`pipeline.yaml:7:3: execution.adaptive_batch_size: is not supported by this version of faucet`,
			`pipeline.yaml:8:11: delivery: must be one of at_least_once, exactly_once, got "maybe"`,
		}},
		{"unknown keys everywhere", `
versoin: 1
resilience: {}
extends: base.yaml
pipeline:
	source: {type: csv, confg: {}, status: active}
	sink: {type: jsonl, transforms: []}
	quality: {}
	dlq: {max_failures_total: 0}
	state: {type: file, config: [1]}
matrix:
	- id: a
		parent: b
		source: {reff: x, status: draft}
	- 7
`, []string{
			`pipeline.yaml:1:1: versoin: unknown key (did you mean "version"?); valid keys: version, name, vars, params, pipeline, execution, matrix, delivery, shard`,
			`pipeline.yaml:2:1: resilience: is not supported by this version of faucet`,
			`pipeline.yaml:3:1: extends: unknown key; config composition (extends/profiles/!include) is not supported by this version of faucet`,
			`pipeline.yaml:5:23: pipeline.source.confg: unknown key (did you mean "config"?); valid keys: type, config, transforms, inherit_transforms`,
			`pipeline.yaml:5:34: pipeline.source.status: is not supported by this version of faucet`,
			`pipeline.yaml:6:23: pipeline.sink: a sink cannot have transforms or inherit_transforms: transforms run on the source side`,
			`pipeline.yaml:7:3: pipeline.quality: is not supported by this version of faucet`,
			`pipeline.yaml:8:8: pipeline.dlq.sink: required key is missing`,
			`pipeline.yaml:8:29: pipeline.dlq.max_failures_total: must be at least 1, got 0`,
			`pipeline.yaml:9:31: pipeline.state.config: expected an object, got a list`,
			`pipeline.yaml:12:5: matrix[0].parent: is not supported by this version of faucet`,
			`pipeline.yaml:13:14: matrix[0].source.reff: unknown key (did you mean "ref"?); valid keys: ref, type, config`,
			`pipeline.yaml:13:23: matrix[0].source.status: is not supported by this version of faucet`,
			`pipeline.yaml:14:5: matrix[1]: expected an object, got 7`,
		}},
		{"missing type and wrong shapes", `
pipeline:
	source: {config: {}}
	sink: jsonl
	transforms: {type: x}
	sources: [a]
matrix: {id: x}
`, []string{
			`pipeline.yaml:2:11: pipeline.source.type: required key is missing`,
			`pipeline.yaml:3:9: pipeline.sink: expected an object, got "jsonl"`,
			`pipeline.yaml:4:15: pipeline.transforms: expected a list of transforms, got an object`,
			`pipeline.yaml:5:12: pipeline.sources: expected an object, got a list`,
			`pipeline.yaml:6:9: matrix: expected a list of rows, got an object`,
		}},
		{"duplicate default template", `
pipeline:
	source: {type: csv}
	sources:
		default: {type: csv}
	sink: {type: jsonl}
`, []string{
			`pipeline.yaml:4:14: pipeline.sources.default: template "default" is defined twice: pipeline.source is the "default" source template`,
		}},
		{"yaml level", `
a: 1
a: 2
`, []string{
			`pipeline.yaml:1:1: a: unknown key; valid keys: version, name, vars, params, pipeline, execution, matrix, delivery, shard`,
			`pipeline.yaml:1:1: pipeline: required key is missing`,
			`pipeline.yaml:2:1: duplicate key "a" (first defined at 1:1)`,
		}},
		{"syntax error", "pipeline:\n  source: [\n", []string{
			`pipeline.yaml:2: invalid YAML: did not find expected node content`,
		}},
		{"empty", "", []string{`pipeline.yaml: the config is empty`}},
		{"not a mapping", "- a\n", []string{
			`pipeline.yaml:1:1: the config must be a mapping of keys (version, pipeline, ...), got a list`,
		}},
		{"custom tag", "pipeline: !include x.yaml\n", []string{
			`pipeline.yaml:1:11: unsupported YAML tag !include (composition tags such as !include are not supported)`,
		}},
		{"two documents", "pipeline: {}\n---\nx: 1\n", []string{
			`pipeline.yaml:2: the file holds more than one YAML document; a config is a single document`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErrs(t, loadErrs(t, tc.text, noEnv()), tc.want...)
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	text := "{\n\t\"version\": 1,\n\t\"pipeline\": {\n\t\t\"source\": {\"type\": \"csv\", \"config\": {\"path\": \"a\\/b.csv\", \"z\": 1, \"a\": 2}},\n\t\t\"sink\": {\"type\": \"jsonl\"}\n\t},\n\t\"execution\": {\"max_concurrent\": \"two\"}\n}\n"
	_, err := LoadBytes("p.json", []byte(text), noEnv())
	wantErrs(t, errLines(t, err), `p.json:7:34: execution.max_concurrent: expected an integer, got "two"`)

	doc, err := LoadBytes("p.JSON", []byte(`{"pipeline": {"source": {"type": "csv", "config": {"path": "a\/b.csv", "z": 1, "a": 2}}, "sink": {"type": "jsonl"}}}`), noEnv())
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Pipeline.Source.Config.Value.String(); got != `{"path":"a/b.csv","z":1,"a":2}` {
		t.Errorf("config = %s (order and \\/ escape)", got)
	}
	_, err = LoadBytes("p.json", []byte("{\n  \"pipeline\": {,}\n}"), noEnv())
	wantErrs(t, errLines(t, err), `p.json:2:16: invalid JSON: invalid character ',' looking for beginning of object key string`)
	_, err = LoadBytes("p.json", []byte(`{} {}`), noEnv())
	wantErrs(t, errLines(t, err), `p.json:1:4: invalid JSON: unexpected data after the top-level value`)
	if _, err = LoadBytes("p.toml", nil, noEnv()); err == nil || err.Error() != "config p.toml: unknown extension (expected .yaml, .yml or .json)" {
		t.Errorf("extension error = %v", err)
	}
}

func TestYAMLFeatures(t *testing.T) {
	doc := mustLoad(t, `
vars:
	base: &base
		type: csv
		config: {delimiter: ";", quote: '"'}
pipeline:
	sources:
		a:
			<<: *base
			config: {delimiter: ","}
		b: *base
	sink: {type: jsonl}
`, noEnv())
	a, b := doc.Pipeline.Sources[0].Spec, doc.Pipeline.Sources[1].Spec
	if a.Type != "csv" || a.Config.Value.String() != `{"delimiter":","}` || b.Config.Value.String() != `{"delimiter":";","quote":"\""}` {
		t.Errorf("merge key / alias: a=%s %s b=%s", a.Type, a.Config.Value, b.Config.Value)
	}
	errs := loadErrs(t, `
x: &x [*x]
`, noEnv())
	if len(errs) == 0 {
		t.Error("recursive alias accepted")
	}
}

func TestBillionLaughs(t *testing.T) {
	text := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		text += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	_, err := LoadBytes("p.yaml", []byte(text), noEnv())
	if err == nil {
		t.Fatal("alias bomb accepted")
	}
}

func TestScalarTypes(t *testing.T) {
	doc := mustLoad(t, `
pipeline:
	source:
		type: csv
		config: {i: 0x10, big: 99999999999999999999, f: 1.5, e: 1e3, b: yes, t: true, n: ~, d: 2024-01-01, s: "007", u: 1_000}
	sink: {type: jsonl}
`, noEnv())
	got := doc.Pipeline.Source.Config.Value
	want := `{"i":16,"big":100000000000000000000.0,"f":1.5,"e":1000.0,"b":"yes","t":true,"n":null,"d":"2024-01-01","s":"007","u":1000}`
	if got.String() != want {
		t.Errorf("scalars\n got %s\nwant %s", got, want)
	}
	if v, _ := got.AsObject().Get("i"); v.Kind() != connector.KindInt {
		t.Errorf("0x10 kind = %s", v.Kind())
	}
}
