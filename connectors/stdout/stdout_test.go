package stdout

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func page(t *testing.T, docs ...string) *connector.Page {
	t.Helper()
	p := &connector.Page{}
	for _, d := range docs {
		v, err := connector.ParseJSON([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		p.Records = append(p.Records, v.AsObject())
	}
	return p
}

func run(t *testing.T, kv []any, pages ...*connector.Page) string {
	t.Helper()
	var fields []connector.KeyValue
	for i := 0; i < len(kv); i += 2 {
		fields = append(fields, connector.KeyValue{Key: kv[i].(string), Value: kv[i+1]})
	}
	v, _ := connector.FromAny(fields)
	snk, err := newSink(connector.Config{Path: "pipeline.sink.config", Value: v})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx := context.Background()
	if err := snk.Open(ctx, connector.SinkOptions{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if err := snk.Write(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := snk.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := snk.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestFormats(t *testing.T) {
	long := strings.Repeat("x", 45)
	tests := []struct {
		name  string
		opts  []any
		pages [][]string
		want  string
	}{
		{"jsonl default", nil, [][]string{{`{"b":1,"a":"x"}`}, {`{"c":[1,{"d":null}]}`}},
			"{\"b\":1,\"a\":\"x\"}\n{\"c\":[1,{\"d\":null}]}\n"},
		{"json_lines alias", []any{"format", "json_lines"}, [][]string{{`{"a":1}`}}, "{\"a\":1}\n"},
		{"json array over pages", []any{"format", "json"}, [][]string{{`{"b":1,"a":{"x":[1,2]}}`}, {`{"c":"y"}`}},
			"[\n  {\n    \"b\": 1,\n    \"a\": {\n      \"x\": [\n        1,\n        2\n      ]\n    }\n  },\n  {\n    \"c\": \"y\"\n  }\n]\n"},
		{"pretty_json alias, empty stream", []any{"format", "pretty_json"}, nil, "[]\n"},
		{"table", []any{"format", "table"}, [][]string{{`{"id":1,"name":"ann"}`, `{"id":22,"name":"` + long + `","x":true}`}, {`{"id":333,"name":"bo\nb"}`}},
			"id  name                                      x\n" +
				"--  ----------------------------------------  ----\n" +
				"1   ann\n" +
				"22  " + strings.Repeat("x", 39) + "…  true\n" +
				"333  bo b\n"},
		{"csv sorted keys", []any{"format", "csv"}, [][]string{{`{"b":"x,y","a":1,"c":{"k":"v"}}`}}, "1,\"x,y\",\"{\"\"k\"\":\"\"v\"\"}\"\n"},
		{"tsv", []any{"format", "tsv"}, [][]string{{`{"b":"t\tab","a":null}`}}, "\tt ab\n"},
		{"max_records", []any{"max_records", 2}, [][]string{{`{"a":1}`, `{"a":2}`}, {`{"a":3}`}}, "{\"a\":1}\n{\"a\":2}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pages []*connector.Page
			for _, docs := range tt.pages {
				pages = append(pages, page(t, docs...))
			}
			if got := run(t, tt.opts, pages...); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	v, _ := connector.FromAny([]connector.KeyValue{{Key: "format", Value: "xml"}})
	_, err := newSink(connector.Config{Path: "pipeline.sink.config", Value: v})
	if err == nil || err.Error() != `pipeline.sink.config.format: must be one of jsonl, json, table, csv, tsv, json_lines, pretty_json, got "xml"` {
		t.Errorf("error %v", err)
	}
}
