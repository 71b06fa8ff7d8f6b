package sqlutil

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// SinkTable is what a sink's doctor probe learned about its table.
type SinkTable struct {
	Name        string            // as the user wrote it, quoted for messages
	Exists      bool              // the table has columns
	Has         func(string) bool // column lookup, used when Exists
	CreateTable bool
	JSONColumn  string // the column of column_mapping {json: ...}, or ""
	WriteMode   string
	Key         []string
}

// CheckSinkTable is the "table" probe of the SQL sinks: the table exists
// (or create_table will make it) and has the columns the configuration
// names. It changes nothing.
func CheckSinkTable(t SinkTable) connector.CheckResult {
	if !t.Exists {
		if t.CreateTable {
			return connector.Passed("table")
		}
		return connector.Failed("table", fmt.Errorf("table %s does not exist", t.Name),
			"create it, or set create_table: true to create it from the first page")
	}
	var missing []string
	if t.JSONColumn != "" && !t.Has(t.JSONColumn) {
		missing = append(missing, t.JSONColumn)
	}
	if t.WriteMode == Upsert || t.WriteMode == Delete {
		for _, k := range t.Key {
			if !t.Has(k) {
				missing = append(missing, k)
			}
		}
	}
	if len(missing) > 0 {
		return connector.Failed("table", fmt.Errorf("table %s has no column %s", t.Name, strings.Join(missing, ", ")),
			"check column_mapping and key against the table's columns")
	}
	return connector.Passed("table")
}

// ProbeQuery wraps a source statement so that running it reads no row but
// still makes the server resolve every table and column it names.
func ProbeQuery(q string) string {
	return "SELECT * FROM (" + q + ") AS _faucet_probe LIMIT 0"
}

// CheckReplicationKey reports a replication_key that is not one of the
// columns the source's statement returns (SQLite would otherwise read a
// double-quoted unknown name as a string constant).
func CheckReplicationKey(key string, cols []string) error {
	if key == "" {
		return nil
	}
	for _, c := range cols {
		if c == key {
			return nil
		}
	}
	return fmt.Errorf("replication_key %q is not a column of the result (columns: %s)", key, strings.Join(cols, ", "))
}

// ProbeRead runs a source statement wrapped by ProbeQuery on db and checks
// that its result has the replication key: the "read" probe of the
// database/sql sources (mysql, sqlite).
func ProbeRead(ctx context.Context, db *sql.DB, q string, args []any, replicationKey string) error {
	rows, err := db.QueryContext(ctx, ProbeQuery(q), args...)
	if err != nil {
		return err
	}
	cols, cerr := rows.Columns()
	rows.Close()
	if err := errors.Join(cerr, rows.Err()); err != nil {
		return err
	}
	return CheckReplicationKey(replicationKey, cols)
}
