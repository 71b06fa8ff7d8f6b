package config

import "testing"

func TestVars(t *testing.T) {
	doc := mustLoad(t, `
vars:
	root: /data
	dir: ${vars.root}/in
	n: 5
	db: {host: h1, port: 5432}
	esc: $${vars.root}
pipeline:
	source:
		type: csv
		config:
			path: ${vars.dir}/a.csv
			limit: ${vars.n}
			dsn: "postgres://${vars.db.host}:${vars.db.port}"
			whole: ${vars.db}
			lit: ${vars.esc}
			list: ["${vars.root}"]
	sink: {type: jsonl}
	transforms: [{type: set, config: {v: "${vars.n}"}}]
name: ${vars.root}
`, noEnv())
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"path":"/data/in/a.csv","limit":"5","dsn":"postgres://h1:5432","whole":"{\"host\":\"h1\",\"port\":5432}","lit":"${vars.root}","list":["/data"]}`
	if got := invs[0].Source.Config.Value.String(); got != want {
		t.Errorf("source\n got %s\nwant %s", got, want)
	}
	if got := invs[0].Transforms[0].Config.Value.String(); got != `{"v":"5"}` {
		t.Errorf("transform = %s", got)
	}
	// vars are substituted into connector configs only, as in the original.
	if doc.Name != "${vars.root}" {
		t.Errorf("name = %q", doc.Name)
	}

	errs := loadErrs(t, `
vars:
	a: ${vars.b}
	b: x${vars.c}
	c: ${vars.a}
	d: ${vars.nope}
pipeline:
	source: {type: csv, config: {p: "${vars.zz}", q: "${vars.d.x}", r: "${vars.}"}}
	sink: {type: jsonl}
`, noEnv())
	wantErrs(t, errs,
		`pipeline.yaml:2:3: vars.a: interpolation cycle: vars.a -> vars.b -> vars.c -> vars.a`,
		`pipeline.yaml:5:6: vars.d: ${vars.nope} refers to an unknown var (declared: a, b, c, d)`,
		`pipeline.yaml:7:35: pipeline.source.config.p: ${vars.zz} refers to an unknown var (declared: a, b, c, d)`,
		`pipeline.yaml:7:52: pipeline.source.config.q: ${vars.d.x}: var "d" is not an object`,
		`pipeline.yaml:7:70: pipeline.source.config.r: ${vars.} is missing a var name: write ${vars.NAME}`,
	)
}

func TestTemplateRefs(t *testing.T) {
	doc := mustLoad(t, `
vars:
	host: db1
pipeline:
	source:
		type: postgres
		config: {host: "${vars.host}", port: 5432, tables: [a, b], alias: "${sources.default.config.host}"}
	sources:
		replica: {type: postgres, config: {host: "${sources.default.config.alias}-ro", port: "${sources.default.config.port}", first: "${sources.default.config.tables.1}"}}
	sink: {type: jsonl, config: {path: "${sources.replica.config.host}.jsonl", kind: "${sinks.default.type}"}}
`, noEnv())
	if got := doc.Pipeline.Sources[0].Spec.Config.Value.String(); got != `{"host":"db1-ro","port":"5432","first":"b"}` {
		t.Errorf("replica = %s", got)
	}
	if got := doc.Pipeline.Sink.Config.Value.String(); got != `{"path":"db1-ro.jsonl","kind":"jsonl"}` {
		t.Errorf("sink = %s", got)
	}
	errs := loadErrs(t, `
pipeline:
	source: {type: x, config: {a: "${sources.default.config.b}", b: "${sources.default.config.a}"}}
	sink: {type: y, config: {c: "${sinks.nope.config}", d: "${sources.default.config.zz}", e: "${sources}"}}
`, noEnv())
	wantErrs(t, errs,
		`pipeline.yaml:2:33: pipeline.source.config.a: interpolation cycle: ${sources.default.config.b} -> ${sources.default.config.a} -> ${sources.default.config.b}`,
		`pipeline.yaml:2:67: pipeline.source.config.b: interpolation cycle: ${sources.default.config.a} -> ${sources.default.config.b} -> ${sources.default.config.a}`,
		`pipeline.yaml:3:31: pipeline.sink.config.c: ${sinks.nope.config} refers to an unknown sink template "nope"`,
		`pipeline.yaml:3:58: pipeline.sink.config.d: ${sources.default.config.zz}: template "default" has no config.zz`,
		`pipeline.yaml:3:93: pipeline.sink.config.e: ${sources} needs a template name and a path: write ${sources.NAME.config.KEY}`,
	)
}
