package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil/shardtest"
)

func TestShard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shard.db")
	db := rawDB(t, path)
	q := func(table string) string { return sqlutil.QuoteIdent(table, '"') }
	shardtest.Run(t, shardtest.Setup{
		Name: "sqlite",
		New:  newSource,
		Config: func(table string, kv ...any) connector.Config {
			base := []any{"path", path}
			if table != "" {
				base = append(base, "table", table)
			}
			return connectortest.Cfg(t, append(base, kv...)...)
		},
		Query: func(table string) (string, []any) {
			return "SELECT id, seq, name FROM " + q(table) + " WHERE seq > ?", []any{-1}
		},
		Create: func(t *testing.T, table string, rows []shardtest.Row) {
			mustExec(t, db, "DROP TABLE IF EXISTS "+q(table))
			mustExec(t, db, "CREATE TABLE "+q(table)+" (id INTEGER, seq INTEGER PRIMARY KEY, name TEXT)")
			insertRows(t, db, q(table), rows)
		},
		Insert: func(t *testing.T, table string, rows []shardtest.Row) { insertRows(t, db, q(table), rows) },
	}, "sh")
}

func insertRows(t *testing.T, db *sql.DB, table string, rows []shardtest.Row) {
	t.Helper()
	for _, r := range rows {
		mustExec(t, db, "INSERT INTO "+table+" (id, seq, name) VALUES (?, ?, ?)", r.ID, r.Seq, r.Name)
	}
}
