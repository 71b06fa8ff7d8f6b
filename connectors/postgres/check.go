package postgres

import (
	"context"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

const connectHint = "check host, port, database, user and password in connection_url, and that the server accepts connections from here"

// Check connects and plans the source's statement with LIMIT 0, so an
// unknown table or column, a bad query or missing privileges show up
// without reading a row.
func (s *Source) Check(ctx context.Context) []connector.CheckResult {
	conn, err := connect(ctx, s.url)
	if err != nil {
		return []connector.CheckResult{connector.Failed("connect", err, connectHint), connector.SkippedCheck("read", "not connected")}
	}
	defer conn.Close(context.Background())
	q, args := s.statement(nil)
	rows, err := conn.Query(ctx, sqlutil.ProbeQuery(q), args...)
	if err == nil {
		var cols []string
		for _, fd := range rows.FieldDescriptions() {
			cols = append(cols, fd.Name)
		}
		rows.Close()
		if err = rows.Err(); err == nil {
			err = sqlutil.CheckReplicationKey(s.cfg.ReplicationKey, cols)
		}
	}
	if err != nil {
		return []connector.CheckResult{connector.Passed("connect"),
			connector.Failed("read", fmt.Errorf("postgres: %s: %s", s.what(), pgMessage(err)), "check the query or table, its columns and the user's privileges")}
	}
	return []connector.CheckResult{connector.Passed("connect"), connector.Passed("read")}
}

// Check connects and reads the table's columns: the table exists (or
// create_table is set) and has the key and JSON columns the config names.
// Nothing is created.
func (s *Sink) Check(ctx context.Context) []connector.CheckResult {
	conn, err := connect(ctx, s.url)
	if err != nil {
		return []connector.CheckResult{connector.Failed("connect", err, connectHint), connector.SkippedCheck("table", "not connected")}
	}
	defer conn.Close(context.Background())
	probe := &Sink{cfg: s.cfg, url: s.url, conn: conn, table: s.cfg.TableName}
	if err := probe.loadColumns(ctx); err != nil {
		return []connector.CheckResult{connector.Passed("connect"), connector.Failed("table", err, "")}
	}
	cs := probe.set.Load()
	return []connector.CheckResult{connector.Passed("connect"), sqlutil.CheckSinkTable(sqlutil.SinkTable{
		Name: s.target(), Exists: probe.exists.Load(), CreateTable: s.cfg.CreateTable,
		Has:        func(c string) bool { _, ok := cs.at[c]; return ok },
		JSONColumn: s.jsonCol, WriteMode: s.cfg.WriteMode, Key: s.cfg.Key,
	})}
}
