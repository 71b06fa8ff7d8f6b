package mysql

import (
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestCheck(t *testing.T) {
	u, db := testDB(t)
	fixture(t, db, 3)
	badDB := withDB(t, u, "faucet_no_such_db")
	newSrc := func(c connector.Config) any { s, err := newSource(c); must(t, err); return s }
	newSnk := func(c connector.Config) any { s, err := newSink(c); must(t, err); return s }
	for _, tc := range []struct {
		name string
		c    any
		want string // prefix of the summary
	}{
		{"source table", newSrc(cfg("url", u, "table", "t")), "connect:pass read:pass"},
		{"source query", newSrc(cfg("url", u, "query", "SELECT id FROM t WHERE id > ?", "params", []any{1})), "connect:pass read:pass"},
		{"source unknown table", newSrc(cfg("url", u, "table", "nope")), "connect:pass read:fail(mysql: table `nope`: Error 1146"},
		{"source bad key", newSrc(cfg("url", u, "table", "t", "replication_key", "updated_at")), "connect:pass read:fail(mysql: table `t`: Error 1054"},
		{"source no database", newSrc(cfg("url", badDB, "query", "SELECT 1")), "connect:fail(mysql: connect to"},
		{"sink exists", newSnk(cfg("url", u, "table_name", "t", "column_mapping", "auto_map", "write_mode", "upsert", "key", []any{"id"})), "connect:pass table:pass"},
		{"sink missing", newSnk(cfg("url", u, "table_name", "nope")), "connect:pass table:fail(table `nope` does not exist)"},
		{"sink created", newSnk(cfg("url", u, "table_name", "nope", "create_table", true)), "connect:pass table:pass"},
		{"sink key column", newSnk(cfg("url", u, "table_name", "t", "column_mapping", "auto_map", "write_mode", "upsert", "key", []any{"sku"})), "connect:pass table:fail(table `t` has no column sku)"},
		{"sink no database", newSnk(cfg("url", badDB, "table_name", "t")), "connect:fail("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := connectortest.CheckSummary(t, tc.c)
			if !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got  %s\nwant %s...", got, tc.want)
			}
		})
	}
	if n := count(t, db, "SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"); n != 1 {
		t.Fatalf("the probes created tables: %d in the database", n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
