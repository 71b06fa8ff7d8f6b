package csv

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func jpage(t testing.TB, docs ...string) *connector.Page {
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

func newTestSink(t testing.TB, log *slog.Logger, kv ...any) *Sink {
	t.Helper()
	snk, err := newSink(config(t, kv...))
	if err != nil {
		t.Fatal(err)
	}
	s := snk.(*Sink)
	if err := s.Open(context.Background(), connector.SinkOptions{Logger: log}); err != nil {
		t.Fatal(err)
	}
	return s
}

func writePages(t testing.TB, s *Sink, pages ...*connector.Page) error {
	t.Helper()
	ctx := context.Background()
	for _, p := range pages {
		if err := s.Write(ctx, p); err != nil {
			return err
		}
	}
	return s.Close()
}

func TestSinkValues(t *testing.T) {
	tests := []struct {
		name  string
		opts  []any
		pages [][]string
		want  string
	}{
		{"header from first page, first-seen union", nil,
			[][]string{{`{"b":1,"a":"x"}`, `{"a":"y","c":true}`}, {`{"c":false,"b":2.5,"a":null}`}},
			"b,a,c\n1,x,\n,y,true\n2.5,,false\n"},
		{"quoting only when needed", nil,
			[][]string{{`{"s":"plain","t":"a,b","u":"say \"hi\"","v":"two\nlines","w":"cr\r","x":" lead"}`}},
			"s,t,u,v,w,x\nplain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\", lead\n"},
		{"nested values as compact JSON", nil,
			[][]string{{`{"o":{"k":"v","n":[1,2]},"a":[]}`}},
			"o,a\n\"{\"\"k\"\":\"\"v\"\",\"\"n\"\":[1,2]}\",[]\n"},
		{"explicit columns", []any{"columns", []any{"c", "a"}},
			[][]string{{`{"a":1,"b":2,"c":3}`}},
			"c,a\n3,1\n"},
		{"no header", []any{"write_headers", false},
			[][]string{{`{"a":1}`}},
			"1\n"},
		{"tab delimiter", []any{"delimiter", "\t"},
			[][]string{{`{"a":"x,y","b":"t\tz"}`}},
			"a\tb\nx,y\t\"t\tz\"\n"},
		{"escape formulas", []any{"escape_formulas", true},
			[][]string{{`{"a":"=SUM(A1)","b":"+1","c":"-x","d":"@me","e":"\tx","f":"ok","g":"=a,b","h":-5}`}},
			"a,b,c,d,e,f,g,h\n'=SUM(A1),'+1,'-x,'@me,'\tx,ok,\"'=a,b\",-5\n"},
		{"formulas kept by default", nil,
			[][]string{{`{"a":"=1+1"}`}},
			"a\n=1+1\n"},
		{"single empty column is quoted", nil,
			[][]string{{`{"a":""}`, `{"a":null}`, `{"a":"x"}`}},
			"a\n\"\"\n\"\"\nx\n"},
		{"empty stream with explicit columns still has a header", []any{"columns", []any{"x", "y"}},
			nil, "x,y\n"},
		{"empty stream without columns is an empty file", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.csv")
			s := newTestSink(t, nil, append([]any{"path", path}, tt.opts...)...)
			var pages []*connector.Page
			for _, docs := range tt.pages {
				pages = append(pages, jpage(t, docs...))
			}
			if err := writePages(t, s, pages...); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSinkUnknownFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	s := newTestSink(t, log, "path", path)
	if err := writePages(t, s, jpage(t, `{"a":1}`), jpage(t, `{"a":2,"z":9}`, `{"y":1,"a":3}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "a\n1\n2\n3\n" {
		t.Errorf("file %q", got)
	}
	if n := strings.Count(logs.String(), "drops fields"); n != 1 {
		t.Errorf("%d warnings, want exactly 1: %s", n, logs.String())
	}

	s = newTestSink(t, nil, "path", path, "on_unknown_field", "error")
	err := writePages(t, s, jpage(t, `{"a":1}`), jpage(t, `{"a":2,"z":9}`))
	want := `csv: field "z" is not a column of ` + path + ` (columns: a); set on_unknown_field: warn to drop it`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	s.Close()
}

func TestSinkAppendTruncate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "out.csv")
	if err := writePages(t, newTestSink(t, nil, "path", path), jpage(t, `{"a":1,"b":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := writePages(t, newTestSink(t, nil, "path", path, "append", true), jpage(t, `{"a":3,"b":4}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "a,b\n1,2\n3,4\n" {
		t.Errorf("append: %q", got)
	}
	if err := writePages(t, newTestSink(t, nil, "path", path), jpage(t, `{"c":5}`)); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if string(got) != "c\n5\n" {
		t.Errorf("truncate: %q", got)
	}
}

func TestSinkGzipRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv.gz")
	s := newTestSink(t, nil, "path", path)
	ctx := context.Background()
	s.Write(ctx, jpage(t, `{"id":"1","t":"a\nb"}`))
	if err := s.Flush(ctx); err != nil { // ends a gzip member
		t.Fatal(err)
	}
	s.Write(ctx, jpage(t, `{"id":"2","t":"c"}`))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	res := readAll(t, config(t, "path", path), nil)
	equalStrings(t, "rows", res.rows(), []string{"id=1|t=a\nb", "id=2|t=c"})

	// Appending to a gzip file adds members; the whole reads back.
	if err := writePages(t, newTestSink(t, nil, "path", path, "append", true), jpage(t, `{"id":"3","t":"d"}`)); err != nil {
		t.Fatal(err)
	}
	res = readAll(t, config(t, "path", path), nil)
	equalStrings(t, "rows", res.rows(), []string{"id=1|t=a\nb", "id=2|t=c", "id=3|t=d"})
}

func TestSinkFlushWritesThrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	s := newTestSink(t, nil, "path", path)
	defer s.Close()
	ctx := context.Background()
	s.Write(ctx, jpage(t, `{"a":1}`))
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "a\n1\n" {
		t.Errorf("after Flush: %q", got)
	}
}

// TestSinkConcurrentEncode follows the PageEncoder contract: the first page
// alone, then pages encoded concurrently and written in order.
func TestSinkConcurrentEncode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	s := newTestSink(t, nil, "path", path)
	ctx := context.Background()
	first := jpage(t, `{"n":"0"}`)
	b, err := s.EncodePage(first, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, 16)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], _ = s.EncodePage(jpage(t, `{"n":"`+string(rune('a'+i))+`"}`), nil)
		}()
	}
	wg.Wait()
	s.WriteEncoded(ctx, first, b)
	for i := range out {
		s.WriteEncoded(ctx, nil, out[i])
	}
	s.Close()
	got, _ := os.ReadFile(path)
	if string(got) != "n\n0\na\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\n" {
		t.Errorf("got %q", got)
	}
}

func TestSinkConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  connector.Config
		want string
	}{
		{config(t), "pipeline.source.config.path: required key is missing"},
		{config(t, "path", "x", "on_unknown_field", "ignore"), `pipeline.source.config.on_unknown_field: must be one of warn, error, got "ignore"`},
		{config(t, "path", "x", "delimiter", "\n"), "pipeline.source.config.delimiter: must not be a line break"},
		{config(t, "path", "x", "columns", []any{"a", "a"}), `pipeline.source.config.columns[1]: duplicate column "a"`},
	} {
		if _, err := newSink(tt.cfg); err == nil || err.Error() != tt.want {
			t.Errorf("error %v\nwant %s", err, tt.want)
		}
	}
}
