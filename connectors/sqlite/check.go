package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// Check opens the database read-only and runs the source's statement with
// LIMIT 0, so a missing file, an unknown table or column or a bad query
// show up without reading a row.
func (s *Source) Check(ctx context.Context) []connector.CheckResult {
	if _, err := os.Stat(s.path); err != nil {
		return []connector.CheckResult{connector.Failed("open", fmt.Errorf("sqlite: %w", err), "check path (relative paths are resolved from the working directory)"), connector.SkippedCheck("read", "no database")}
	}
	db, err := openDB(s.path)
	if err != nil {
		return []connector.CheckResult{connector.Failed("open", err, ""), connector.SkippedCheck("read", "no database")}
	}
	defer db.Close()
	q, args := s.statement(nil)
	err = sqlutil.ProbeRead(ctx, db, q, args, s.cfg.ReplicationKey)
	if err != nil {
		return []connector.CheckResult{connector.Passed("open"),
			connector.Failed("read", fmt.Errorf("sqlite: %s: %s: %w", s.path, s.what(), err), "check the query or table and its columns")}
	}
	return []connector.CheckResult{connector.Passed("open"), connector.Passed("read")}
}

// Check reads the table's columns from the database, opened read-only:
// the table exists (or create_table is set) and has the key and JSON
// columns the config names. A database file that does not exist yet is
// fine when its directory is writable and create_table is set. Nothing is
// created.
func (s *Sink) Check(ctx context.Context) []connector.CheckResult {
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		dir := fileio.CheckWritable(s.path)
		dir.Name = "open"
		return []connector.CheckResult{dir, sqlutil.CheckSinkTable(sqlutil.SinkTable{Name: s.target(), CreateTable: s.cfg.CreateTable})}
	}
	db, err := openDB(s.path)
	if err != nil {
		return []connector.CheckResult{connector.Failed("open", err, ""), connector.SkippedCheck("table", "no database")}
	}
	defer db.Close()
	probe := &Sink{cfg: s.cfg, path: s.path, db: db, table: s.cfg.TableName}
	if err := probe.loadColumns(ctx); err != nil {
		return []connector.CheckResult{connector.Failed("open", err, "check that path is a SQLite database"), connector.SkippedCheck("table", "no database")}
	}
	return []connector.CheckResult{connector.Passed("open"), sqlutil.CheckSinkTable(sqlutil.SinkTable{
		Name: s.target(), Exists: probe.exists, CreateTable: s.cfg.CreateTable,
		Has:        func(c string) bool { _, ok := probe.colAt[c]; return ok },
		JSONColumn: s.jsonCol, WriteMode: s.cfg.WriteMode, Key: s.cfg.Key,
	})}
}
