package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/internal/redact"
)

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "secret.txt", "s3cr3t-from-file\n")
	p := writeFile(t, dir, "orders.YML", string(src(`
pipeline:
	source: {type: csv, config: {path: "${file:secret.txt}"}}
	sink: {type: jsonl}
`)))
	doc, err := Load(p, Options{Getenv: env(), BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != FormatYAML || doc.File != p || doc.PipelineName() != "orders" {
		t.Errorf("doc = %q %q %q", doc.Format, doc.File, doc.PipelineName())
	}
	if got := doc.Pipeline.Source.Config.Value.String(); got != `{"path":"s3cr3t-from-file"}` {
		t.Errorf("config = %s", got)
	}

	// Without BaseDir, ${file:} is relative to the process cwd.
	t.Chdir(dir)
	if _, err := Load(p, noEnv()); err != nil {
		t.Errorf("cwd-relative file: %v", err)
	}

	if _, err := Load(filepath.Join(dir, "nope.yaml"), noEnv()); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Load(dir+"/x.txt", noEnv()); err == nil || !strings.Contains(err.Error(), "unknown extension") {
		t.Errorf("bad extension: %v", err)
	}
	bad := writeFile(t, dir, "bad.yaml", "pipeline: [\n")
	_, err = Load(bad, noEnv())
	var es Errors
	if !errors.As(err, &es) || es[0].File != bad {
		t.Errorf("errors from a file name it: %v", err)
	}
}

func TestEnvFileFeedsInterpolation(t *testing.T) {
	// The CLI loads .env into an overlay (or the process env) before
	// Load; process env beats .env, --param-env beats both.
	dir := t.TempDir()
	writeFile(t, dir, ".env", "FAUCET_T_DIR=/from-dotenv\nFAUCET_T_TOKEN=dotenv-token\n")
	cfg := writeFile(t, dir, "faucet.yaml", string(src(`
pipeline:
	source: {type: csv, config: {path: "${env:FAUCET_T_DIR}", token: "${env:FAUCET_T_TOKEN}"}}
	sink: {type: jsonl}
`)))
	t.Setenv("FAUCET_T_DIR", "/from-process")
	envFile, err := EnvFileFor(cfg, "", false)
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]string{}
	if err := LoadEnvFile(envFile, func(k, v string) { overlay[k] = v }); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) (string, bool) {
		if v, ok := os.LookupEnv(k); ok {
			return v, true
		}
		v, ok := overlay[k]
		return v, ok
	}
	doc, err := Load(cfg, Options{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Pipeline.Source.Config.Value.String(); got != `{"path":"/from-process","token":"dotenv-token"}` {
		t.Errorf("config = %s", got)
	}
	doc, _ = Load(cfg, Options{Getenv: getenv, ParamEnv: map[string]string{"FAUCET_T_DIR": "/from-param-env"}})
	if got := doc.Pipeline.Source.Config.Value.String(); !strings.Contains(got, "/from-param-env") {
		t.Errorf("--param-env overlay not first: %s", got)
	}
}

func TestRedacted(t *testing.T) {
	opts := Options{Getenv: env("PG_PASSWORD", "hunter2-password"), Params: map[string]string{"key": "param-secret-key"}}
	doc := mustLoad(t, `
name: demo
params:
	key: {secret: true, required: true}
pipeline:
	source:
		type: postgres
		config: {url: "postgres://u:${env:PG_PASSWORD}@h/db", api_key: "${param.key}", n: 5, s: "true", f: 1.0, z: null, "on": yes}
	sink: {type: jsonl}
`, opts)
	got := string(doc.Redacted())
	wantYAML := `name: demo
params:
  key:
    secret: true
    required: true
pipeline:
  source:
    type: postgres
    config:
      url: postgres://u:***@h/db
      api_key: '***'
      n: 5
      s: "true"
      f: 1.0
      z: null
      on: yes
  sink:
    type: jsonl
`
	if got != wantYAML {
		t.Errorf("Redacted YAML\n got:\n%s\nwant:\n%s", got, wantYAML)
	}
	if redact.String(got) != got {
		t.Error("rendering still holds a secret")
	}
	// It round-trips.
	if _, err := LoadBytes("again.yaml", []byte(got), Options{Getenv: env(), Params: map[string]string{"key": "x"}}); err != nil {
		t.Errorf("rendered YAML does not load: %v", err)
	}

	jdoc, err := LoadBytes("p.json", []byte(`{"pipeline": {"source": {"type": "x", "config": {"pw": "${env:PG_PASSWORD}", "b": [1, 2.5]}}, "sink": {"type": "y"}}}`), Options{Getenv: opts.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
  "pipeline": {
    "source": {
      "type": "x",
      "config": {
        "pw": "***",
        "b": [
          1,
          2.5
        ]
      }
    },
    "sink": {
      "type": "y"
    }
  }
}
`
	if got := string(jdoc.Redacted()); got != wantJSON {
		t.Errorf("Redacted JSON\n got:\n%s\nwant:\n%s", got, wantJSON)
	}
}
