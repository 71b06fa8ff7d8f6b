package postgres

import (
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestCheck(t *testing.T) {
	url, conn, schema := testDB(t)
	fixture(t, conn, schema, 3)
	badDB := strings.Replace(url, "/test", "/faucet_no_such_db", 1)
	newSrc := func(c connector.Config) any { s, err := newSource(c); must(t, err); return s }
	newSnk := func(c connector.Config) any { s, err := newSink(c); must(t, err); return s }
	for _, tc := range []struct {
		name string
		c    any
		want string // prefix of the summary
	}{
		{"source table", newSrc(cfg("url", url, "schema", schema, "table", "t")), "connect:pass read:pass"},
		{"source query", newSrc(cfg("url", url, "query", "SELECT id FROM "+schema+".t WHERE id > $1", "params", []any{1})), "connect:pass read:pass"},
		{"source unknown table", newSrc(cfg("url", url, "schema", schema, "table", "nope")), `connect:pass read:fail(postgres: table "` + schema + `"."nope": relation`},
		{"source bad key", newSrc(cfg("url", url, "schema", schema, "table", "t", "replication_key", "updated_at")), "connect:pass read:fail(postgres: table"},
		{"source no database", newSrc(cfg("url", badDB, "query", "SELECT 1")), "connect:fail(postgres: connect to"},
		{"sink exists", newSnk(cfg("url", url, "schema", schema, "table_name", "t", "column_mapping", "auto_map", "write_mode", "upsert", "key", []any{"id"})), "connect:pass table:pass"},
		{"sink missing", newSnk(cfg("url", url, "schema", schema, "table_name", "nope")), `connect:pass table:fail(table "` + schema + `"."nope" does not exist)`},
		{"sink created", newSnk(cfg("url", url, "schema", schema, "table_name", "nope", "create_table", true)), "connect:pass table:pass"},
		{"sink key column", newSnk(cfg("url", url, "schema", schema, "table_name", "t", "column_mapping", "auto_map", "write_mode", "upsert", "key", []any{"sku"})), "connect:pass table:fail(table \"" + schema + "\".\"t\" has no column sku)"},
		{"sink json column", newSnk(cfg("url", url, "schema", schema, "table_name", "t")), "connect:pass table:fail(table \"" + schema + "\".\"t\" has no column data)"},
		{"sink no database", newSnk(cfg("url", badDB, "table_name", "t")), "connect:fail("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := connectortest.CheckSummary(t, tc.c)
			if !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got  %s\nwant %s...", got, tc.want)
			}
		})
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_tables WHERE schemaname = '"+schema+"'"); n != 1 {
		t.Fatalf("the probes created tables: %d in the schema", n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
