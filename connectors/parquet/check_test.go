package parquet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	good := writeStructs(t, filepath.Join(dir, "good.parquet"), flatRows(1, 2))
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, []byte("nope"), 0o644)
	summary := func(c connector.Checker) string {
		var parts []string
		for _, r := range c.Check(context.Background()) {
			s := r.Name + ":ok"
			if r.Err != nil {
				s = r.Name + ":" + r.Err.Error()
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " | ")
	}
	tests := []struct {
		name string
		cfg  connector.Config
		want string
	}{
		{"readable", connectortest.Cfg(t, "path", good, "columns", []any{"id"}), "read:ok | columns:ok"},
		{"unknown column", connectortest.Cfg(t, "path", good, "columns", []any{"zz"}), `read:ok | columns:column "zz" is not in the file (columns: id, name, note)`},
		{"not parquet", connectortest.Cfg(t, "path", bad), "read:parquet: " + bad + " is not a readable Parquet file"},
		{"missing", connectortest.Cfg(t, "path", filepath.Join(dir, "*.none")), "read:no file matches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := newSource(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(src.(*Source)); !strings.HasPrefix(got, tt.want) {
				t.Errorf("check = %q, want prefix %q", got, tt.want)
			}
		})
	}
	snk, err := newSink(connectortest.Cfg(t, "path", filepath.Join(dir, "new", "out.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(snk.(*Sink)); got != "permissions:ok" {
		t.Errorf("sink check = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the sink check created the directory")
	}
	snk, _ = newSink(connectortest.Cfg(t, "path", dir))
	if got := summary(snk.(*Sink)); !strings.Contains(got, "is a directory") {
		t.Errorf("sink check on a directory = %q", got)
	}
}
