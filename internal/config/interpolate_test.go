package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/redact"
)

func TestRewriteTokenizer(t *testing.T) {
	upper := func(body string) (string, bool, error) {
		if body == "keep" {
			return "", false, nil
		}
		return strings.ToUpper(body), true, nil
	}
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"${a}", "A"},
		{"x${a}y${b}z", "xAyBz"},
		{"$${a}", "$${a}"},        // escape: kept for later stages
		{"$$${a}", "$$${a}"},      // `$` then the escape
		{"a$${b}${c}", "a$${b}C"}, // escape then a token
		{"${keep}", "${keep}"},    // resolver declines: verbatim
		{"${unterminated", "${unterminated"},
		{"x ${a} ${open", "x A ${open"},
		{"${a${b}}", "A${B}"}, // ends at the first }: no nesting
		{"$", "$"},
		{"${}", ""},
		{"$$", "$$"},
		{"€${a}€", "€A€"},
	} {
		got, err := rewrite(tc.in, upper)
		if err != nil || got != tc.want {
			t.Errorf("rewrite(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"$${a}", "${a}"}, {"$$${a}", "$${a}"}, {"${x}$${y}", "${x}${y}"}, {"$${open", "${open"}, {"${open $${", "${open $${"},
	} {
		if got := unescape(tc.in); got != tc.want {
			t.Errorf("unescape(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestLoadTimeInterpolation(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "token.txt", "file-secret-1\n\n  \t")
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, make([]byte, maxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{
		Getenv:   env("HOME_DIR", "/data", "TOKEN", "env-secret-1", "X:-d", "odd", "OVER", "process"),
		ParamEnv: map[string]string{"OVER": "overlay-wins"},
		BaseDir:  dir,
	}
	for _, tc := range []struct {
		name, value, want string
	}{
		{"env", "${env:HOME_DIR}/in.csv", "/data/in.csv"},
		{"secret alias", "${secret:TOKEN}", "env-secret-1"},
		{"overlay before process env", "${env:OVER}", "overlay-wins"},
		{"no default syntax", "${env:X:-d}", "odd"},
		{"file trimmed", "${file:token.txt}", "file-secret-1"},
		{"escape", "$${env:HOME_DIR}", "$${env:HOME_DIR}"}, // unescaped at the last stage
		{"unterminated", "${env:HOME_DIR", "${env:HOME_DIR"},
		{"other prefix literal", "${vault:secret/x#y}", "${vault:secret/x#y}"},
		{"deferred kept", "${now.date}-${bookmark}", "${now.date}-${bookmark}"},
		{"structure safe", "${env:HOME_DIR}: [x]", "/data: [x]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustLoad(t, `
pipeline:
	source: {type: csv, config: {path: "`+tc.value+`"}}
	sink: {type: jsonl}
`, opts)
			got, _ := doc.Pipeline.Source.Config.Value.AsObject().Get("path")
			if got.AsString() != tc.want {
				t.Errorf("got %q, want %q", got.AsString(), tc.want)
			}
		})
	}
	for _, s := range []string{"env-secret-1", "file-secret-1", "overlay-wins"} {
		if redact.String("x "+s+" y") != "x *** y" {
			t.Errorf("%q was not registered for redaction", s)
		}
	}

	// Errors name file:line:col and the key path, and all are reported.
	errs := loadErrs(t, `
pipeline:
	source:
		type: csv
		config:
			path: ${env:DATA_DIR}/x.csv
			token: ${file:missing.txt}
			blob: ${file:big.txt}
			${env:KEYVAR}: 1
	sink: {type: jsonl}
`, opts)
	wantErrs(t, errs,
		`pipeline.yaml:5:13: pipeline.source.config.path: environment variable "DATA_DIR" is not set`,
		`pipeline.yaml:6:14: pipeline.source.config.token: cannot read file "missing.txt": no such file or directory`,
		`pipeline.yaml:7:13: pipeline.source.config.blob: file "big.txt" is larger than 1 MiB`,
		`pipeline.yaml:8:7: pipeline.source.config.${env:KEYVAR}: environment variable "KEYVAR" is not set`,
	)
}

func TestInterpolatedKeysAndStructureSafety(t *testing.T) {
	opts := Options{Getenv: env("COL", "renamed", "EVIL", "a\nb: c")}
	doc := mustLoad(t, `
pipeline:
	source:
		type: csv
		config:
			${env:COL}: "${env:EVIL}"
	sink: {type: jsonl}
`, opts)
	got := doc.Pipeline.Source.Config.Value.String()
	if got != `{"renamed":"a\nb: c"}` {
		t.Errorf("config = %s", got)
	}
}

func TestNowTokens(t *testing.T) {
	clock := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, tc := range []struct{ tok, want string }{
		{"date", "2024-05-06"}, {"datetime", "2024-05-06T07:08:09+00:00"}, {"iso", "2024-05-06T07:08:09+00:00"},
		{"year", "2024"}, {"month", "05"}, {"day", "06"}, {"hour", "07"}, {"minute", "08"}, {"second", "09"},
		{"unix", "1714979289"},
	} {
		got, err := NowToken(tc.tok, clock)
		if err != nil || got != tc.want {
			t.Errorf("now.%s = %q, %v; want %q", tc.tok, got, err, tc.want)
		}
	}
	if got, _ := NowToken("iso", clock.Add(250*time.Millisecond)); got != "2024-05-06T07:08:09.250+00:00" {
		t.Errorf("fractional iso = %q", got)
	}
	for f, want := range map[string]string{
		"strftime.%Y/%m/%d":           "2024/05/06",
		"strftime.%y%j-%H%M%S":        "24127-070809",
		"strftime.%a %b %e %-d %_m":   "Mon May  6 6  5",
		"strftime.%F %s %% %G-W%V-%u": "2024-05-06 1714979289 % 2024-W19-1",
		"strftime.%I%p %A %B %C %w":   "07AM Monday May 20 1",
	} {
		if got, err := NowToken(f, clock); err != nil || got != want {
			t.Errorf("now.%s = %q, %v; want %q", f, got, err, want)
		}
	}
	for _, bad := range []string{"strftime.%Q", "strftime.%", "strftime.%-"} {
		if _, err := NowToken(bad, clock); err == nil {
			t.Errorf("now.%s accepted", bad)
		}
	}
	if _, err := NowToken("week", clock); err == nil {
		t.Error("unknown now token accepted")
	}

	doc := mustLoad(t, `
pipeline:
	source: {type: csv, config: {path: "in-${now.date}.csv", keep: "$${now.date}"}}
	sink: {type: jsonl, config: {path: "out/${now.year}/${now.unix}.jsonl"}}
`, Options{Getenv: env(), Clock: clock})
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if got := invs[0].Source.Config.Value.String(); got != `{"path":"in-2024-05-06.csv","keep":"${now.date}"}` {
		t.Errorf("source = %s", got)
	}
	if got := invs[0].Sink.Config.Value.String(); got != `{"path":"out/2024/1714979289.jsonl"}` {
		t.Errorf("sink = %s", got)
	}
	// A fresh clock per invocation (scheduler): ExpandAt.
	invs, _ = doc.ExpandAt(clock.AddDate(0, 0, 1))
	if p, _ := invs[0].Source.Config.Value.AsObject().Get("path"); p.AsString() != "in-2024-05-07.csv" {
		t.Errorf("ExpandAt path = %s", p)
	}
	// The document itself keeps the token.
	if p, _ := doc.Pipeline.Source.Config.Value.AsObject().Get("path"); p.AsString() != "in-${now.date}.csv" {
		t.Errorf("document mutated: %s", p)
	}
	v, err := resolveNowValue(connector.String("${now.month}/${now.bogus}"), clock)
	if err == nil {
		t.Errorf("resolveNowValue accepted bogus token: %s", v)
	}
}

func TestEscapeSurvivesEveryStage(t *testing.T) {
	doc := mustLoad(t, `
name: "n$${x}"
params:
	p: {default: "$${param.p}"}
vars:
	v: "$${vars.v}"
pipeline:
	source: {type: csv, config: {a: "$${env:A}", b: "${param.p}", c: "${vars.v}", d: "$${now.date}", "k$${y}": 1}}
	sink: {type: jsonl}
`, noEnv())
	if doc.Name != "n${x}" {
		t.Errorf("name = %q", doc.Name)
	}
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"${env:A}","b":"${param.p}","c":"${vars.v}","d":"${now.date}","k${y}":1}`
	if got := invs[0].Source.Config.Value.String(); got != want {
		t.Errorf("config\n got %s\nwant %s", got, want)
	}
}
