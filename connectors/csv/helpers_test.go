package csv

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
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

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	data := []byte(content)
	if strings.HasSuffix(name, ".gz") {
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
	records   []connector.Record
	failed    []connector.RecordError
	bookmarks []*connector.Value
	pages     int
}

// rows renders records as "k=v|k=v" lines for compact assertions.
func (r result) rows() []string {
	var out []string
	for _, rec := range r.records {
		var parts []string
		for _, f := range rec.Fields {
			parts = append(parts, f.Key+"="+f.Value.AsString())
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func (r result) errors() []string {
	var out []string
	for i := range r.failed {
		out = append(out, r.failed[i].Error())
	}
	return out
}

func openSource(t testing.TB, cfg connector.Config, start *connector.Value) (*Source, error) {
	t.Helper()
	src, err := newSource(cfg)
	if err != nil {
		return nil, err
	}
	s := src.(*Source)
	return s, s.Open(context.Background(), connector.SourceOptions{StartBookmark: start})
}

func readAll(t testing.TB, cfg connector.Config, start *connector.Value) result {
	t.Helper()
	s, err := openSource(t, cfg, start)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	var res result
	for {
		p, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if err := p.Materialize(); err != nil {
			t.Fatalf("Decode: %v", err)
		}
		res.pages++
		res.records = append(res.records, p.Records...)
		res.failed = append(res.failed, p.Failed...)
		res.bookmarks = append(res.bookmarks, p.Bookmark)
	}
	return res
}

func equalStrings(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
