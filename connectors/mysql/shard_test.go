package mysql

import (
	"database/sql"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil/shardtest"
)

func TestShard(t *testing.T) {
	url, db := testDB(t)
	shardtest.Run(t, shardtest.Setup{
		Name: "mysql",
		New:  newSource,
		Config: func(table string, kv ...any) connector.Config {
			base := []any{"connection_url", url}
			if table != "" {
				base = append(base, "table", table)
			}
			return cfg(append(base, kv...)...)
		},
		Query: func(table string) (string, []any) {
			return "SELECT id, seq, name FROM " + quote(table) + " WHERE seq > ?", []any{-1}
		},
		Create: func(t *testing.T, table string, rows []shardtest.Row) {
			mustExec(t, db, "DROP TABLE IF EXISTS "+quote(table))
			mustExec(t, db, "CREATE TABLE "+quote(table)+" (id BIGINT NULL, seq INT PRIMARY KEY, name VARCHAR(64))")
			insertRows(t, db, table, rows)
		},
		Insert: func(t *testing.T, table string, rows []shardtest.Row) { insertRows(t, db, table, rows) },
	}, "sh")
}

func insertRows(t *testing.T, db *sql.DB, table string, rows []shardtest.Row) {
	t.Helper()
	for _, r := range rows {
		mustExec(t, db, "INSERT INTO "+quote(table)+" (id, seq, name) VALUES (?, ?, ?)", r.ID, r.Seq, r.Name)
	}
}
