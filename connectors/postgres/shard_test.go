package postgres

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil/shardtest"
	"github.com/jackc/pgx/v5"
)

func TestShard(t *testing.T) {
	url, conn, schema := testDB(t)
	shardtest.Run(t, shardtest.Setup{
		Name: "postgres",
		New:  newSource,
		Config: func(table string, kv ...any) connector.Config {
			base := []any{"connection_url", url}
			if table != "" {
				base = append(base, "schema", schema, "table", table)
			}
			return cfg(append(base, kv...)...)
		},
		Query: func(table string) (string, []any) {
			return "SELECT id, seq, name FROM " + schema + "." + table + " WHERE seq > $1", []any{-1}
		},
		Create: func(t *testing.T, table string, rows []shardtest.Row) {
			mustExec(t, conn, "DROP TABLE IF EXISTS "+schema+"."+table)
			mustExec(t, conn, "CREATE TABLE "+schema+"."+table+" (id bigint, seq int PRIMARY KEY, name text)")
			insertRows(t, conn, schema+"."+table, rows)
		},
		Insert: func(t *testing.T, table string, rows []shardtest.Row) { insertRows(t, conn, schema+"."+table, rows) },
	}, "sh")
}

func insertRows(t *testing.T, conn *pgx.Conn, table string, rows []shardtest.Row) {
	t.Helper()
	for _, r := range rows {
		mustExec(t, conn, "INSERT INTO "+table+" (id, seq, name) VALUES ($1, $2, $3)", r.ID, r.Seq, r.Name)
	}
}
