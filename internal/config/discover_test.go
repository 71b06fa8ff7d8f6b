package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Discover(dir); !errors.Is(err, ErrNoConfig) || err.Error() != "no pipeline config: pass a path or create faucet.yaml" {
		t.Errorf("empty dir: %v", err)
	}
	writeFile(t, dir, "faucet.json", "{}")
	p, w, err := Discover(dir)
	if err != nil || p != filepath.Join(dir, "faucet.json") || w != "" {
		t.Errorf("json only: %q %q %v", p, w, err)
	}
	writeFile(t, dir, "faucet.yml", "")
	writeFile(t, dir, "faucet.yaml", "")
	p, w, err = Discover(dir)
	if err != nil || p != filepath.Join(dir, "faucet.yaml") || w != "several configs found; using faucet.yaml and ignoring faucet.yml, faucet.json" {
		t.Errorf("all three: %q %q %v", p, w, err)
	}
}

func TestEnvFileFor(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "faucet.yaml")
	if p, err := EnvFileFor(cfg, "", false); p != "" || err != nil {
		t.Errorf("no .env: %q %v", p, err)
	}
	dotenv := writeFile(t, dir, ".env", "A=1\n")
	if p, err := EnvFileFor(cfg, "", false); p != dotenv || err != nil {
		t.Errorf("sibling .env: %q %v", p, err)
	}
	if p, err := EnvFileFor(cfg, "", true); p != "" || err != nil {
		t.Errorf("disabled: %q %v", p, err)
	}
	other := writeFile(t, dir, "prod.env", "A=2\n")
	if p, err := EnvFileFor(cfg, other, false); p != other || err != nil {
		t.Errorf("explicit: %q %v", p, err)
	}
	if _, err := EnvFileFor(cfg, filepath.Join(dir, "nope.env"), false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing explicit: %v", err)
	}
	if _, err := EnvFileFor(cfg, other, true); err == nil {
		t.Error("both flags accepted")
	}
}

func TestParseEnvFile(t *testing.T) {
	text := "# comment\n" +
		"A=plain value  # trailing comment\n" +
		"export B = 'single $A # kept'\n" +
		"C=\"double\\n${A} \\\"q\\\" \\$A\"\n" +
		"\n" +
		"D=\"multi\nline\"\n" +
		"E=$HOME_X/x and ${A}\n" +
		"F=\n" +
		"G=a#b\n" +
		"H=escaped\\ space\n" +
		"dotted.key=1\r\n" +
		"A=second\n"
	vars, err := ParseEnvFile(text, env("HOME_X", "/h"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vars {
		got = append(got, v.Key+"="+v.Value)
	}
	want := []string{
		"A=plain value",
		"B=single $A # kept",
		"C=double\nplain value \"q\" $A",
		"D=multi\nline",
		"E=/h/x and plain value",
		"F=",
		"G=a#b",
		"H=escaped space",
		"dotted.key=1",
		"A=second",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("parsed\n got %q\nwant %q", got, want)
	}
	if vars[3].Line != 6 || vars[4].Line != 8 {
		t.Errorf("line numbers: %d %d", vars[3].Line, vars[4].Line)
	}
	for _, bad := range []string{"=x\n", "A x\n", "A='open\n", "A=\"open\n", "A='x' junk\n"} {
		if _, err := ParseEnvFile(bad, nil); err == nil {
			t.Errorf("ParseEnvFile(%q) accepted", bad)
		}
	}
}

func TestLoadEnvFilePrecedence(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, ".env", "FAUCET_T_SET=from-file\nFAUCET_T_NEW=new\nFAUCET_T_NEW=dup\nFAUCET_T_REF=${FAUCET_T_SET}\n")
	t.Setenv("FAUCET_T_SET", "from-process")
	got := map[string]string{}
	if err := LoadEnvFile(p, func(k, v string) { got[k] = v }); err != nil {
		t.Fatal(err)
	}
	// The process env wins; the first assignment in the file wins; a
	// reference sees the process env.
	if len(got) != 2 || got["FAUCET_T_NEW"] != "new" || got["FAUCET_T_REF"] != "from-process" {
		t.Errorf("set = %v", got)
	}
	if err := LoadEnvFile(filepath.Join(dir, "missing"), func(k, v string) {}); err == nil {
		t.Error("missing file accepted")
	}
	bad := writeFile(t, dir, "bad.env", "OK=1\nnot a line\n")
	if err := LoadEnvFile(bad, func(k, v string) {}); err == nil || !strings.HasSuffix(err.Error(), "bad.env:2: expected = after not") {
		t.Errorf("bad file: %v", err)
	}
}
