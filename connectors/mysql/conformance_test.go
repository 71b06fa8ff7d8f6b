package mysql

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestConformance(t *testing.T) {
	u, db := testDB(t)
	connectortest.Run(t, connectortest.Factory{
		Name:     "mysql",
		KeyField: "id",
		Source: func(t *testing.T, n int) connector.Config {
			fixture(t, db, n)
			return cfg("connection_url", u, "table", "t")
		},
		Incremental: func(t *testing.T, n int) connector.Config {
			fixture(t, db, n)
			return cfg("url", u, "query", "SELECT id, name FROM t", "replication_key", "id")
		},
		MissingSource: func(t *testing.T) connector.Config {
			return cfg("connection_url", u, "table", "no_such_table")
		},
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			mustExec(t, db, "DROP TABLE IF EXISTS `out`")
			return cfg("connection_url", u, "table_name", "out", "create_table", true, "column_mapping", "auto_map"),
				func(t *testing.T) int { return count(t, db, "SELECT count(*) FROM `out`") }
		},
		BadSourceConfigs: []connector.Value{
			cfg("connection_url", u).Value,
			cfg("connection_url", "mysql://", "table", "t").Value,
		},
		BadSinkConfigs: []connector.Value{
			cfg("connection_url", u, "table_name", "t", "write_mode", "upsert", "key", []any{"id"}).Value, // json default mapping
		},
	})
}
