package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func fuzzOpts(dir string) Options {
	return Options{
		Getenv:       env("A", "alpha", "B", "x: [y]", "EMPTY", ""),
		ParamEnv:     map[string]string{"P": "overlay"},
		Params:       map[string]string{},
		Placeholders: true,
		BaseDir:      dir,
		Clock:        time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

func isErrors(err error) bool {
	var es Errors
	return err == nil || errors.As(err, &es)
}

func FuzzLoad(f *testing.F) {
	for _, name := range []string{"matrix.yaml", "simple.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, strings.HasSuffix(name, ".json"))
	}
	f.Add(src(minimal), false)
	f.Add([]byte(paramsDoc), false)
	f.Add([]byte("a: &a [*a]\n"), false)
	f.Add([]byte("pipeline: {source: {type: x, config: {k: '${env:A}${file:f.txt}$${x}${now.date}'}}, sink: {type: y}}\nmatrix: [{id: r, depends_on: [r]}]\n"), false)
	f.Add([]byte(`{"pipeline": {"source": {"type": "x"}, "sink": {"type": "y", "config": {"p": "a\/b"}}}}`), true)
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("file-value\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	reg := testRegistry()
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		name := "f.yaml"
		if isJSON {
			name = "f.json"
		}
		doc, err := LoadBytes(name, data, fuzzOpts(dir))
		if !isErrors(err) {
			t.Fatalf("LoadBytes error is %T: %v", err, err)
		}
		if err != nil {
			// A document that parsed comes back with its errors so
			// validate can keep checking it: that must never panic.
			if doc != nil {
				_ = doc.Check(reg)
				_, _ = doc.Expand()
			}
			return
		}
		_, err = doc.Expand()
		if !isErrors(err) {
			t.Fatalf("Expand error is %T: %v", err, err)
		}
		if err == nil {
			if err := doc.Check(reg); !isErrors(err) {
				t.Fatalf("Check error is %T: %v", err, err)
			}
		}
		_ = doc.Redacted()
	})
}

func FuzzInterpolate(f *testing.F) {
	for _, s := range []string{"", "plain", "${env:A}", "$${x}", "${unterminated", "a${b}c${d.e}f$$${g}", "${", "}$${", "${env:A:-d}"} {
		f.Add(s)
	}
	r := &envResolver{getenv: env("A", "alpha"), paramEnv: map[string]string{}, baseDir: f.TempDir()}
	f.Fuzz(func(t *testing.T, s string) {
		// Declining every token reproduces the input.
		same, err := rewrite(s, func(string) (string, bool, error) { return "", false, nil })
		if err != nil || same != s {
			t.Fatalf("identity rewrite(%q) = %q, %v", s, same, err)
		}
		// Replacing every token by itself too.
		self, _ := rewrite(s, func(body string) (string, bool, error) { return "${" + body + "}", true, nil })
		if self != s {
			t.Fatalf("self rewrite(%q) = %q", s, self)
		}
		// No token, no change.
		out, err := rewrite(s, r.resolve)
		if !strings.Contains(s, "${") && (out != s || err != nil) {
			t.Fatalf("rewrite(%q) changed a string without tokens: %q %v", s, out, err)
		}
		// Tokens are the bodies rewrite sees.
		var seen []string
		_, _ = rewrite(s, func(body string) (string, bool, error) { seen = append(seen, body); return "", false, nil })
		toks := tokens(s)
		if len(toks) != len(seen) {
			t.Fatalf("tokens(%q) = %d, rewrite saw %d", s, len(toks), len(seen))
		}
		for i := range toks {
			if toks[i].body != seen[i] || strings.ContainsRune(toks[i].body, '}') {
				t.Fatalf("token %d of %q: %q vs %q", i, s, toks[i].body, seen[i])
			}
		}
		// Unescaping never grows the string, and is a no-op without "$${".
		u := unescape(s)
		if len(u) > len(s) || (!strings.Contains(s, "$${") && u != s) {
			t.Fatalf("unescape(%q) = %q", s, u)
		}
		_, _ = resolveNowString(s, time.Unix(0, 0).UTC())
	})
}

func TestTestdataConfigs(t *testing.T) {
	for _, name := range []string{"matrix.yaml", "simple.json"} {
		doc, err := Load(filepath.Join("testdata", name), Options{Getenv: env(), Clock: time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		invs, err := doc.Expand()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "matrix.yaml" {
			got := invSummary(invs)
			want := `users key=shop::users src=rest{"url":"https://api.example.com/v1/users","page_size":100,"since":"2024-01-01"}@matrix[0].source.config sink=jsonl{"path":"out/2024-03-04.jsonl"} t=[flatten] state=file dlq=jsonl deps=[] delivery=at_least_once
orders key=shop::orders src=rest{"url":"https://api.example.com/v1/orders","page_size":100,"since":"2024-01-01"}@matrix[1].source.config sink=jsonl{"path":"out/2024-03-04.jsonl"} t=[flatten] state=file dlq=- deps=[users] delivery=at_least_once
`
			if got != want {
				t.Errorf("matrix.yaml\n got:\n%s\nwant:\n%s", got, want)
			}
		} else if doc.Execution.OnError != OnErrorAbort || invs[0].StateKey != "simple::row-0" {
			t.Errorf("simple.json: %+v %s", doc.Execution, invs[0].StateKey)
		}
	}
}
