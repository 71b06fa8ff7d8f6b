package parquet

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestSinkOddKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "odd.parquet")
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path), nil, pageOf(t, `{"":1,"a.b":"x","ü ñ":true}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, []string{`{"":1,"a.b":"x","ü ñ":true}`})

	// Empty records later are rows of nulls; a first page without any
	// field cannot make a schema.
	path = filepath.Join(dir, "nulls.parquet")
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path), nil, pageOf(t, `{"a":1}`), pageOf(t, `{}`)); err != nil {
		t.Fatal(err)
	}
	got, _ = readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, []string{`{"a":1}`, `{"a":null}`})

	_, err := writeSink(t, connectortest.Cfg(t, "path", filepath.Join(dir, "empty.parquet")), nil, pageOf(t, `{}`), pageOf(t, `{"a":1}`))
	if err == nil || !strings.Contains(err.Error(), "the records of the first page have no fields") {
		t.Errorf("empty first page: %v", err)
	}
}
