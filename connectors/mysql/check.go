package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

const connectHint = "check host, port, database, user and password in connection_url, and that the server accepts connections from here"

// ping opens the database and checks that it answers.
func ping(ctx context.Context, raw string) (*sql.DB, error) {
	db, err := open(raw)
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("mysql: connect to %s: %s", sqlutil.RedactURL(raw), redactErr(raw, err))
	}
	return db, nil
}

// Check connects and runs the source's statement with LIMIT 0, so an
// unknown table or column, a bad query or missing privileges show up
// without reading a row.
func (s *Source) Check(ctx context.Context) []connector.CheckResult {
	db, err := ping(ctx, s.url)
	if err != nil {
		return []connector.CheckResult{connector.Failed("connect", err, connectHint), connector.SkippedCheck("read", "not connected")}
	}
	defer db.Close()
	q, args := s.statement(nil)
	err = sqlutil.ProbeRead(ctx, db, q, args, s.cfg.ReplicationKey)
	if err != nil {
		return []connector.CheckResult{connector.Passed("connect"),
			connector.Failed("read", fmt.Errorf("mysql: %s: %s", s.what(), redactErr(s.url, err)), "check the query or table, its columns and the user's privileges")}
	}
	return []connector.CheckResult{connector.Passed("connect"), connector.Passed("read")}
}

// Check connects and reads the table's columns: the table exists (or
// create_table is set) and has the key and JSON columns the config names.
// Nothing is created.
func (s *Sink) Check(ctx context.Context) []connector.CheckResult {
	db, err := ping(ctx, s.url)
	if err != nil {
		return []connector.CheckResult{connector.Failed("connect", err, connectHint), connector.SkippedCheck("table", "not connected")}
	}
	defer db.Close()
	probe := &Sink{cfg: s.cfg, url: s.url, db: db, table: s.cfg.TableName}
	if err := probe.loadColumns(ctx); err != nil {
		return []connector.CheckResult{connector.Passed("connect"), connector.Failed("table", err, "")}
	}
	return []connector.CheckResult{connector.Passed("connect"), sqlutil.CheckSinkTable(sqlutil.SinkTable{
		Name: s.target(), Exists: probe.exists, CreateTable: s.cfg.CreateTable,
		Has:        func(c string) bool { _, ok := probe.colAt[c]; return ok },
		JSONColumn: s.jsonCol, WriteMode: s.cfg.WriteMode, Key: s.cfg.Key,
	})}
}
