package postgres

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestConformance(t *testing.T) {
	url, conn, schema := testDB(t)
	n := 0
	table := func(t *testing.T, rows int) string {
		n++
		name := schema + ".t"
		mustExec(t, conn, "DROP TABLE IF EXISTS "+name)
		fixture(t, conn, schema, rows)
		return name
	}
	connectortest.Run(t, connectortest.Factory{
		Name:     "postgres",
		KeyField: "id",
		// COPY rows decode into recycled page arenas.
		MaxAllocPerRecord: 8,
		Source: func(t *testing.T, rows int) connector.Config {
			table(t, rows)
			return cfg("connection_url", url, "schema", schema, "table", "t")
		},
		Incremental: func(t *testing.T, rows int) connector.Config {
			return cfg("url", url, "query", "SELECT id, name FROM "+table(t, rows), "replication_key", "id")
		},
		MissingSource: func(t *testing.T) connector.Config {
			return cfg("connection_url", url, "schema", schema, "table", "no_such_table")
		},
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			mustExec(t, conn, "DROP TABLE IF EXISTS "+schema+".out")
			return cfg("connection_url", url, "schema", schema, "table_name", "out", "create_table", true, "column_mapping", "auto_map"),
				func(t *testing.T) int { return count(t, conn, "SELECT count(*) FROM "+schema+".out") }
		},
		BadSourceConfigs: []connector.Value{
			cfg("connection_url", url).Value,
			cfg("connection_url", "not a url at all ::::", "table", "t").Value,
			cfg("connection_url", url, "url", url, "table", "t").Value,
		},
		BadSinkConfigs: []connector.Value{
			cfg("connection_url", url, "table_name", "t", "write_mode", "upsert", "key", []any{"id"}, "write_method", "copy", "column_mapping", "auto_map").Value,
			cfg("connection_url", url, "table_name", "t", "write_mode", "upsert", "key", []any{"id"}).Value, // jsonb default mapping
		},
	})
}
