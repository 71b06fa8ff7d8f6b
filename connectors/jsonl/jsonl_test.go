package jsonl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	data := []byte(content)
	if strings.HasSuffix(path, ".gz") {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type result struct {
	lines     []string // records re-encoded
	errs      []string
	raws      []string
	bookmarks []string
	pages     int
}

func readAll(t testing.TB, cfg connector.Config, start *connector.Value) result {
	t.Helper()
	src, err := newSource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := src.(*Source)
	if err := s.Open(context.Background(), connector.SourceOptions{StartBookmark: start}); err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	var res result
	for {
		p, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return res
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if err := p.Materialize(); err != nil {
			t.Fatal(err)
		}
		res.pages++
		for _, r := range p.Records {
			res.lines = append(res.lines, string(connector.AppendRecordJSON(nil, r)))
		}
		for i := range p.Failed {
			res.errs = append(res.errs, p.Failed[i].Error())
			res.raws = append(res.raws, p.Failed[i].Raw)
		}
		if p.Bookmark != nil {
			res.bookmarks = append(res.bookmarks, p.Bookmark.String())
		} else {
			res.bookmarks = append(res.bookmarks, "nil")
		}
	}
}

func same(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestSource(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		lines, errs   []string
		raws          []string
	}{
		{"basic keeps key order and types", `{"b":1,"a":"x","c":[1.5,null,true],"d":{"z":1,"y":2}}` + "\n",
			[]string{`{"b":1,"a":"x","c":[1.5,null,true],"d":{"z":1,"y":2}}`}, nil, nil},
		{"blank lines and CRLF", "\n{\"a\":1}\r\n  \r\n{\"a\":2}", []string{`{"a":1}`, `{"a":2}`}, nil, nil},
		{"BOM", "\xEF\xBB\xBF{\"a\":1}\n", []string{`{"a":1}`}, nil, nil},
		{"escapes", `{"s":"a\"b\\c\n\u00e9"}` + "\n", []string{`{"s":"a\"b\\c\né"}`}, nil, nil},
		{"bad lines", "{\"a\":1}\n{\"a\":\n[1,2]\n\"str\"\n{\"a\":2} x\n{\"a\":3}\n",
			[]string{`{"a":1}`, `{"a":3}`},
			[]string{"P:2: jsonl: invalid JSON at column 6: unexpected end of input", "P:3: jsonl: line is a JSON array, not an object", "P:4: jsonl: line is a JSON string, not an object", "P:5: jsonl: invalid JSON at column 9: unexpected 'x' after top-level value"},
			[]string{`{"a":`, `[1,2]`, `"str"`, `{"a":2} x`}},
		{"escaped string in a bad line keeps its raw text", "{\"a\":\"x\\ny\",\n", nil,
			[]string{`P:1: jsonl: invalid JSON at column 13: unexpected end of input in object`}, []string{`{"a":"x\ny",`}},
		{"empty file", "", nil, nil, nil},
	}
	for _, tt := range tests {
		for _, small := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				if small {
					old := readSize
					readSize = 4
					defer func() { readSize = old }()
				}
				path := writeFile(t, filepath.Join(dir, "in.jsonl"), tt.content)
				res := readAll(t, config(t, "path", path, "batch_size", 2), nil)
				same(t, "records", res.lines, tt.lines)
				var want []string
				for _, e := range tt.errs {
					want = append(want, strings.ReplaceAll(e, "P", path))
				}
				same(t, "errors", res.errs, want)
				same(t, "raw", res.raws, tt.raws)
			})
		}
	}
}

func TestSourceGlobGzipAndErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "2.jsonl.gz"), "{\"n\":2}\n")
	writeFile(t, filepath.Join(dir, "1.jsonl"), "{\"n\":1}\n")
	res := readAll(t, config(t, "path", filepath.Join(dir, "*.jsonl*")), nil)
	same(t, "records", res.lines, []string{`{"n":1}`, `{"n":2}`})

	src, _ := newSource(config(t, "path", filepath.Join(dir, "missing.jsonl")))
	err := src.Open(context.Background(), connector.SourceOptions{})
	if err == nil || err.Error() != "jsonl: stat "+filepath.Join(dir, "missing.jsonl")+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	src, _ = newSource(config(t, "path", filepath.Join(dir, "*.none")))
	if err := src.Open(context.Background(), connector.SourceOptions{}); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("empty glob: %v", err)
	}
}

func TestSourceReplicationKey(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "in.jsonl"),
		`{"id":8,"u":{"t":"2024-01-01"}}`+"\n"+`{"id":9}`+"\n"+`{"id":10}`+"\n"+`{"id":"11"}`+"\n"+`{"x":1}`+"\n")
	res := readAll(t, config(t, "path", path, "replication_key", "id", "batch_size", 2), nil)
	same(t, "bookmarks", res.bookmarks, []string{"9", `"11"`, "nil"})
	same(t, "errors", res.errs, []string{path + `:5: jsonl: record has no replication_key "id"`})
	start := connector.Int(9)
	res = readAll(t, config(t, "path", path, "replication_key", "id"), &start)
	same(t, "newer", res.lines, []string{`{"id":10}`, `{"id":"11"}`})

	res = readAll(t, config(t, "path", path, "replication_key", "u.t", "batch_size", 1), nil)
	same(t, "nested key", res.lines, []string{`{"id":8,"u":{"t":"2024-01-01"}}`})

	src, _ := newSource(config(t, "path", path))
	if got := src.(*Source).MergeBookmark(connector.Int(10), connector.Int(9)); got.AsInt() != 10 {
		t.Errorf("MergeBookmark kept %v", got)
	}
}

func sinkTo(t testing.TB, kv ...any) *Sink {
	t.Helper()
	snk, err := newSink(config(t, kv...))
	if err != nil {
		t.Fatal(err)
	}
	s := snk.(*Sink)
	if err := s.Open(context.Background(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func page(t testing.TB, lines ...string) *connector.Page {
	t.Helper()
	p := &connector.Page{}
	for _, l := range lines {
		v, err := connector.ParseJSON([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		p.Records = append(p.Records, v.AsObject())
	}
	return p
}

func TestSinkAppendTruncateGzip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"out/nested/o.jsonl", "o.jsonl.gz"} {
		path := filepath.Join(dir, name)
		s := sinkTo(t, "path", path)
		s.Write(ctx, page(t, `{"a":1,"b":"x"}`, `{"b":"y","a":2.5}`))
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		s.Write(ctx, page(t, `{"c":[1,{"d":null}]}`))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		want := []string{`{"a":1,"b":"x"}`, `{"b":"y","a":2.5}`, `{"c":[1,{"d":null}]}`}
		same(t, name, readAll(t, config(t, "path", path), nil).lines, want)

		s = sinkTo(t, "path", path, "append", true)
		s.Write(ctx, page(t, `{"z":0}`))
		s.Close()
		same(t, name+" appended", readAll(t, config(t, "path", path), nil).lines, append(want, `{"z":0}`))

		s = sinkTo(t, "path", path)
		s.Write(ctx, page(t, `{"new":true}`))
		s.Close()
		same(t, name+" truncated", readAll(t, config(t, "path", path), nil).lines, []string{`{"new":true}`})
	}
}

func TestSinkFlushMakesDataVisible(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "o.jsonl")
	s := sinkTo(t, "path", path)
	defer s.Close()
	s.Write(ctx, page(t, `{"a":1}`))
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "{\"a\":1}\n" {
		t.Errorf("after Flush the file holds %q", got)
	}
}

func TestEncodePageConcurrent(t *testing.T) {
	s := sinkTo(t, "path", filepath.Join(t.TempDir(), "o.jsonl"))
	defer s.Close()
	first := page(t, `{"id":"1","name":"a"}`)
	if _, err := s.EncodePage(first, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := page(t, `{"id":"2","name":"b"}`, `{"name":"c","id":"3","extra":[1]}`)
			got, _ := s.EncodePage(p, nil)
			if string(got) != "{\"id\":\"2\",\"name\":\"b\"}\n{\"name\":\"c\",\"id\":\"3\",\"extra\":[1]}\n" {
				t.Errorf("got %q", got)
			}
		}()
	}
	wg.Wait()
}

func TestAppendRecordMatchesSDK(t *testing.T) {
	for _, doc := range []string{`{}`, `{"a":1,"b":-2.5e-9,"c":1e21,"d":[{"x":"y"}],"e":{"f":null},"g":false,"h":"\u2029"}`} {
		v, _ := connector.ParseJSON([]byte(doc))
		r := v.AsObject()
		kc := newKeyCache(r)
		if got, want := appendRecord(nil, r.Fields, kc), connector.AppendRecordJSON(nil, r); !bytes.Equal(got, want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

func TestNumbersRoundTripExactly(t *testing.T) {
	in := `{"a":9223372036854775807,"b":-9223372036854775808,"c":12345678901234567890,"d":18446744073709551615,"e":0.1,"f":2.5e-8,"g":1e300}`
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "in.jsonl"), in+"\n")
	out := filepath.Join(dir, "out.jsonl")
	s := sinkTo(t, "path", out)
	res := readAll(t, config(t, "path", src), nil)
	same(t, "decoded", res.lines, []string{`{"a":9223372036854775807,"b":-9223372036854775808,"c":12345678901234567890,"d":18446744073709551615,"e":0.1,"f":2.5e-8,"g":1e+300}`})
	p := page(t, in)
	s.Write(context.Background(), p)
	s.Close()
	got, _ := os.ReadFile(out)
	if string(got) != `{"a":9223372036854775807,"b":-9223372036854775808,"c":12345678901234567890,"d":18446744073709551615,"e":0.1,"f":2.5e-8,"g":1e+300}`+"\n" {
		t.Errorf("sink wrote %s", got)
	}
}

func TestSourceRowIDs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "1.jsonl"), "{\"a\":1}\n\n  \nbad\n{\"a\":2}\n")
	writeFile(t, filepath.Join(dir, "2.jsonl"), "{\"a\":3}\n[]\n")
	src, _ := newSource(config(t, "path", filepath.Join(dir, "*.jsonl"), "batch_size", 2))
	if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var got []string
	for {
		p, err := src.Next(context.Background())
		if err != nil {
			break
		}
		p.Materialize()
		for _, f := range p.Failed {
			got = append(got, f.Location+" row "+strconv.FormatInt(f.RowID, 10))
		}
	}
	same(t, "failures", got, []string{filepath.Join(dir, "1.jsonl") + ":4 row 2", filepath.Join(dir, "2.jsonl") + ":2 row 5"})
}

func TestSourceLocate(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "in.jsonl"), "{\"a\":1}\nbad\n\n{\"a\":2}\n")
	src, _ := newSource(config(t, "path", path))
	if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.Materialize()
	var got []string
	for i := range p.Records {
		loc, row := p.Locate(i)
		got = append(got, loc+" row "+strconv.FormatInt(row, 10))
	}
	same(t, "locations", got, []string{path + ":1 row 1", path + ":4 row 3"})
}
