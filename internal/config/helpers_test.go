package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env returns a Getenv over a fixed map.
func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func noEnv() Options { return Options{Getenv: env()} }

// src turns a test literal indented with tabs into YAML: leading tabs become
// two spaces each.
func src(s string) []byte {
	s = strings.TrimPrefix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		n := 0
		for n < len(l) && l[n] == '\t' {
			n++
		}
		lines[i] = strings.Repeat("  ", n) + l[n:]
	}
	return []byte(strings.Join(lines, "\n"))
}

func mustLoad(t *testing.T, text string, opts Options) *Document {
	t.Helper()
	doc, err := LoadBytes("pipeline.yaml", src(text), opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return doc
}

// loadErrs loads text and returns the error lines.
func loadErrs(t *testing.T, text string, opts Options) []string {
	t.Helper()
	_, err := LoadBytes("pipeline.yaml", src(text), opts)
	return errLines(t, err)
}

func errLines(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error is %T, not Errors: %v", err, err)
	}
	return strings.Split(es.Error(), "\n")
}

func wantErrs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const minimal = `
version: 1
pipeline:
	source:
		type: csv
		config:
			path: in.csv
	sink:
		type: jsonl
		config:
			path: out.jsonl
`
