package json

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func config(t testing.TB, kv ...any) connector.Config {
	t.Helper()
	var fields []connector.KeyValue
	for i := 0; i < len(kv); i += 2 {
		fields = append(fields, connector.KeyValue{Key: kv[i].(string), Value: kv[i+1]})
	}
	v, err := connector.FromAny(fields)
	if err != nil {
		t.Fatal(err)
	}
	return connector.Config{Path: "pipeline.source.config", Value: v}
}

type result struct {
	records []string
	errs    []string
	pages   []int
}

func run(t *testing.T, cfg connector.Config) (result, error) {
	t.Helper()
	src, err := newSource(cfg)
	if err != nil {
		return result{}, err
	}
	if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
		return result{}, err
	}
	defer src.Close()
	var res result
	for {
		p, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		res.pages = append(res.pages, len(p.Records)+len(p.Failed))
		for _, r := range p.Records {
			res.records = append(res.records, string(connector.AppendRecordJSON(nil, r)))
		}
		for i := range p.Failed {
			res.errs = append(res.errs, p.Failed[i].Error())
		}
	}
}

func TestSource(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content, recordsPath string
		want, errs                 []string
		wantErr                    string
		errHas                     string // the error contains it (offsets of top-level errors vary)
	}{
		{name: "top-level array", content: `[{"b":1,"a":2},{"c":"x"}]`, want: []string{`{"b":1,"a":2}`, `{"c":"x"}`}},
		{name: "single object", content: ` {"z":1,"a":[1,2],"z":3} `, want: []string{`{"z":3,"a":[1,2]}`}},
		{name: "empty array", content: `[]`},
		{name: "empty file", content: ``},
		{name: "dotted path", content: `{"meta":{"n":2},"data":{"items":[{"id":1},{"id":2}]}}`, recordsPath: "data.items", want: []string{`{"id":1}`, `{"id":2}`}},
		{name: "jsonpath form", content: `{"data":{"items":[{"id":1}]}}`, recordsPath: "$.data.items[*]", want: []string{`{"id":1}`}},
		{name: "path to an object", content: `{"data":{"one":{"id":7}}}`, recordsPath: "data.one", want: []string{`{"id":7}`}},
		{name: "non-object elements", content: `[{"a":1},2,"x",{"a":2}]`, want: []string{`{"a":1}`, `{"a":2}`},
			errs: []string{"P:$[1]: json: element is a JSON int, not an object", "P:$[2]: json: element is a JSON string, not an object"}},
		{name: "second top-level value", content: `[{"a":1}] [{"a":2}]`, wantErr: `json: P: unexpected data after the top-level value`},
		{name: "object after the records", content: `{"data":{"items":[{"id":1}],"n":1},"more":[1]} x`, recordsPath: "data.items", errHas: `invalid character 'x' looking for beginning of value`},
		{name: "members after the records are fine", content: `{"data":{"items":[{"id":1}],"n":{"k":[]}},"more":[1]}`, recordsPath: "data.items", want: []string{`{"id":1}`}},
		{name: "single object then garbage", content: `{"a":1} {`, wantErr: `json: P: unexpected data after the top-level value`},
		{name: "bad element location with records_path", content: `{"d":[{"a":1},[]]}`, recordsPath: "d",
			want: []string{`{"a":1}`}, errs: []string{"P:$.d[1]: json: element is a JSON array, not an object"}},
		{name: "missing key", content: `{"data":{}}`, recordsPath: "data.items", wantErr: `json: P: records_path "data.items": key "data.items" not found`},
		{name: "path through a scalar", content: `{"data":5}`, recordsPath: "data.items", wantErr: `json: P: records_path "data.items": $.data is not an object`},
		{name: "top-level scalar", content: `42`, wantErr: `json: P: the top-level value holds a number, want an array of objects or an object`},
		{name: "syntax error", content: `[{"a":1},{"a":}]`, wantErr: `json: P: invalid JSON near byte 13: invalid character '}' looking for beginning of value`},
		{name: "truncated", content: `[{"a":1},`, wantErr: `json: P: unexpected end of input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
			os.WriteFile(path, []byte(tt.content), 0o644)
			res, err := run(t, config(t, "path", path, "records_path", tt.recordsPath))
			if tt.errHas != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "json: "+path+": invalid JSON") || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("error %v, want one containing %q", err, tt.errHas)
				}
				return
			}
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "P", path); err == nil || err.Error() != want {
					t.Fatalf("error %v\nwant %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(res.records) != fmt.Sprint(tt.want) {
				t.Errorf("records %q, want %q", res.records, tt.want)
			}
			var errs []string
			for _, e := range tt.errs {
				errs = append(errs, strings.ReplaceAll(e, "P", path))
			}
			if fmt.Sprint(res.errs) != fmt.Sprint(errs) {
				t.Errorf("errors %q, want %q", res.errs, errs)
			}
		})
	}
}

func TestSourceBatchesAndGlob(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 25; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"i":%d}`, i)
	}
	b.WriteString("]")
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"i":"last"}`), 0o644)
	res, err := run(t, config(t, "path", filepath.Join(dir, "*.json"), "batch_size", 10))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.pages) != "[10 10 5 1]" || res.records[24] != `{"i":24}` || res.records[25] != `{"i":"last"}` {
		t.Errorf("pages %v, records %v", res.pages, res.records)
	}
	if _, err := run(t, config(t, "path", filepath.Join(dir, "none.json"))); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := newSource(config(t, "path", "x", "records_path", "a[0].b")); err == nil || !strings.Contains(err.Error(), "records_path: unsupported path") {
		t.Errorf("bad records_path: %v", err)
	}
}

func TestSourceLocate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.json")
	os.WriteFile(path, []byte(`{"d":[{"a":1},5,{"a":2}]}`), 0o644)
	src, _ := newSource(config(t, "path", path, "records_path", "d"))
	if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range p.Records {
		loc, row := p.Locate(i)
		got = append(got, fmt.Sprintf("%s#%d", loc, row))
	}
	if want := []string{path + ":$.d[0]#1", path + ":$.d[2]#3"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(p.Failed) != 1 || p.Failed[0].RowID != 2 {
		t.Errorf("failed %+v", p.Failed)
	}
}
