package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Factory{
		Name:     "sqlite",
		KeyField: "id",
		Source: func(t *testing.T, n int) connector.Config {
			return connectortest.Cfg(t, "path", fixture(t, n), "table", "t")
		},
		Incremental: func(t *testing.T, n int) connector.Config {
			return connectortest.Cfg(t, "path", fixture(t, n), "query", "SELECT id, name FROM t", "replication_key", "id")
		},
		MissingSource: func(t *testing.T) connector.Config {
			return connectortest.Cfg(t, "path", fixture(t, 1), "table", "no_such_table")
		},
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			path := filepath.Join(t.TempDir(), "out.db")
			return connectortest.Cfg(t, "path", path, "table_name", "out", "create_table", true),
				func(t *testing.T) int { return count(t, rawDB(t, path), "SELECT count(*) FROM out") }
		},
		BadSourceConfigs: []connector.Value{
			connectortest.Cfg(t, "path", "x.db").Value,                                    // neither query nor table
			connectortest.Cfg(t, "path", "x.db", "query", "SELECT 1", "table", "t").Value, // both
			connectortest.Cfg(t, "table", "t").Value,                                      // no path
			connectortest.Cfg(t, "path", "x.db", "table", "t", "batch_size", 0).Value,
		},
		BadSinkConfigs: []connector.Value{
			connectortest.Cfg(t, "path", "x.db", "table_name", "t", "write_mode", "upsert").Value, // no key
			connectortest.Cfg(t, "path", "x.db", "table_name", "t", "write_mode", "merge").Value,
			connectortest.Cfg(t, "path", "x.db", "table_name", "t", "column_mapping", "by_magic").Value,
			connectortest.Cfg(t, "path", "x.db", "table_name", "t", "delete_marker", map[string]any{"field": "op", "values": []any{"d"}}).Value,
		},
	})
}
