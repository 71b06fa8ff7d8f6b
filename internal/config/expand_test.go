package config

import (
	"strings"
	"testing"
)

func invSummary(invs []Invocation) string {
	var b strings.Builder
	for _, inv := range invs {
		var ts []string
		for _, t := range inv.Transforms {
			ts = append(ts, t.Type)
		}
		state, dlq := "-", "-"
		if inv.State != nil {
			state = inv.State.Type
		}
		if inv.DLQ != nil {
			dlq = inv.DLQ.Sink.Type
		}
		b.WriteString(inv.ID + " key=" + inv.StateKey + " src=" + inv.Source.Type + inv.Source.Config.Value.String() +
			"@" + inv.Source.Config.Path + " sink=" + inv.Sink.Type + inv.Sink.Config.Value.String() +
			" t=[" + strings.Join(ts, ",") + "] state=" + state + " dlq=" + dlq +
			" deps=[" + strings.Join(inv.DependsOn, ",") + "] delivery=" + string(inv.Delivery) + "\n")
	}
	return b.String()
}

func TestExpandMatrix(t *testing.T) {
	doc := mustLoad(t, `
name: shop
pipeline:
	source:
		type: rest
		config: {url: http://api, paging: {size: 100, mode: cursor}, fields: [a, b]}
		transforms: [{type: t_src}]
	sources:
		files: {type: csv, config: {path: a.csv}, inherit_transforms: false, transforms: [{type: t_files}]}
	sink: {type: jsonl, config: {path: out.jsonl}}
	sinks:
		pg: {type: postgres, config: {table: t}}
	transforms: [{type: t_pipe}]
	state: {type: file, config: {path: st}}
	dlq: {sink: {type: jsonl, config: {path: dlq.jsonl}}}
matrix:
	- id: users
		source:
			config: {url: http://api/users, paging: {size: 5}, fields: [c]}
		transforms: [{type: t_row}]
	- id: orders
		source: {type: rest2}
		sink: {ref: pg, config: {table: orders}}
		inherit_transforms: false
		transforms: [{type: t_row}]
		depends_on: [users, files]
		dlq: null
		state: {type: memory}
		delivery: exactly_once
	- id: files
		source: {ref: files}
		dlq: {sink: {type: stdout}}
	- source: {ref: files}
`, noEnv())
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := `users key=shop::users src=rest{"url":"http://api/users","paging":{"size":5,"mode":"cursor"},"fields":["c"]}@matrix[0].source.config sink=jsonl{"path":"out.jsonl"} t=[t_pipe,t_src,t_row] state=file dlq=jsonl deps=[] delivery=at_least_once
files key=shop::files src=csv{"path":"a.csv"}@pipeline.sources.files.config sink=jsonl{"path":"out.jsonl"} t=[t_files] state=file dlq=stdout deps=[] delivery=at_least_once
row-3 key=shop::row-3 src=csv{"path":"a.csv"}@pipeline.sources.files.config sink=jsonl{"path":"out.jsonl"} t=[t_files] state=file dlq=jsonl deps=[] delivery=at_least_once
orders key=shop::orders src=rest2{"url":"http://api","paging":{"size":100,"mode":"cursor"},"fields":["a","b"]}@pipeline.source.config sink=postgres{"table":"orders"} t=[t_row] state=memory dlq=- deps=[users,files] delivery=exactly_once
`
	if got := invSummary(invs); got != want {
		t.Errorf("invocations\n got:\n%s\nwant:\n%s", got, want)
	}
	// Merging never mutates the templates.
	if got := doc.Pipeline.Source.Config.Value.String(); got != `{"url":"http://api","paging":{"size":100,"mode":"cursor"},"fields":["a","b"]}` {
		t.Errorf("template mutated: %s", got)
	}
	// The merged config remembers where each key was written.
	u := invs[0].Source
	for rel, want := range map[string]string{
		"":             "matrix[0].source.config",
		".url":         "matrix[0].source.config.url",
		".paging.mode": "pipeline.source.config.paging.mode",
		".paging.size": "matrix[0].source.config.paging.size",
		".fields[0]":   "matrix[0].source.config.fields[0]",
		".missing":     "matrix[0].source.config.missing",
		".paging.x.y":  "matrix[0].source.config.paging.x.y",
	} {
		if got := u.origin(rel); got != want {
			t.Errorf("origin(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestExpandSingleRow(t *testing.T) {
	doc, err := LoadBytes("/tmp/jobs/nightly.yaml", src(minimal), noEnv())
	if err != nil {
		t.Fatal(err)
	}
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(invs) != 1 || invs[0].ID != "row-0" || invs[0].StateKey != "nightly::row-0" || invs[0].State != nil {
		t.Errorf("invocations = %+v", invs)
	}
}

func TestExpandErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"no source", `
pipeline:
	sink: {type: jsonl}
`, []string{`pipeline.yaml:2:3: pipeline.source: required key is missing (a pipeline needs a source; named pipeline.sources are picked by matrix rows with ref:)`}},
		{"templates", `
pipeline:
	sources: {a: {type: csv}}
	sink: {type: jsonl}
matrix:
	- id: x
		source: {ref: b}
	- id: y
	- id: z
		source: {config: {p: 1}}
`, []string{
			`pipeline.yaml:6:19: matrix[0].source.ref: unknown source template "b" (known: a)`,
			`pipeline.yaml:7:5: matrix[1].source: no source template "default": set pipeline.source or give the row source.ref`,
			`pipeline.yaml:9:13: matrix[2].source: no source template "default": set pipeline.source or give the row source.ref`,
		}},
		{"graph", `
pipeline:
	source: {type: csv}
	sink: {type: jsonl}
matrix:
	- id: a
		depends_on: [b]
	- id: b
		depends_on: [c]
	- id: c
		depends_on: [a, nope, c]
	- id: a
	- id: env
`, []string{
			`pipeline.yaml:6:5: matrix[0].depends_on: dependency cycle: a -> b -> c -> a`,
			`pipeline.yaml:10:21: matrix[2].depends_on[1]: row "c" depends on unknown row "nope"`,
			`pipeline.yaml:10:27: matrix[2].depends_on[2]: row "c" depends on itself`,
			`pipeline.yaml:11:9: matrix[3].id: duplicate row id "a" (also used by matrix[0])`,
			`pipeline.yaml:12:9: matrix[4].id: row id "env" is reserved (reserved: env, file, secret, matrix, pipeline, now, backfill, param, partition, bookmark, job_id, window, vars, sources, sinks)`,
		}},
		{"tokens", `
pipeline:
	source: {type: csv, config: {a: "${now.week}", b: "${ghost.id}", c: "${env.HOME}", d: "${bookmark}", e: "${partition.start}", f: "$${ghost}", g: "${vault:kv/x}"}}
	sink: {type: jsonl, config: {p: "${a.id}"}}
	transforms: [{type: t, config: {x: "${now.date}", y: "${whatever}"}}]
	state: {type: file, config: {path: "${now.date}"}}
matrix:
	- id: a
`, []string{
			`pipeline.yaml:2:35: pipeline.source.config.a: unknown token ${now.week} (valid: date, datetime, iso, year, month, day, hour, minute, second, unix, strftime.<format>)`,
			`pipeline.yaml:2:53: pipeline.source.config.b: ${ghost.id} refers to unknown id "ghost"`,
			`pipeline.yaml:2:71: pipeline.source.config.c: ${env.HOME} is not a valid reference: write ${env:HOME}`,
			`pipeline.yaml:2:107: pipeline.source.config.e: ${partition.start}: ${partition.*} references are not supported by this version of faucet`,
			`pipeline.yaml:3:35: pipeline.sink.config.p: ${a.id} refers to row "a": parent/child rows are not supported by this version of faucet`,
			`pipeline.yaml:4:38: pipeline.transforms[0].config.x: ${now.date} is a runtime token: it is only allowed in source and sink configs`,
			`pipeline.yaml:5:38: pipeline.state.config.path: ${now.date} is a runtime token: it is only allowed in source and sink configs`,
		}},
		{"state key", `
name: my pipeline
pipeline:
	source: {type: csv}
	sink: {type: jsonl}
	state: {type: file}
`, []string{`pipeline.yaml:1:7: name: the state key "my pipeline::row-0" is invalid: only letters, digits and _ - : . are allowed`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustLoad(t, tc.text, noEnv())
			_, err := doc.Expand()
			wantErrs(t, errLines(t, err), tc.want...)
		})
	}
}

func TestValidStateKey(t *testing.T) {
	for key, ok := range map[string]bool{
		"p::row-0": true, "a.b_c-d:e": true, "": false, ".x": false, "a b": false, "é": false,
		strings.Repeat("a", 256): true, strings.Repeat("a", 257): false,
	} {
		if got := ValidStateKey(key) == ""; got != ok {
			t.Errorf("ValidStateKey(%q) ok=%v, want %v", key, got, ok)
		}
	}
}
