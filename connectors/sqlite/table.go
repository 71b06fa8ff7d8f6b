package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// tableCol is a column of the destination table.
type tableCol struct {
	name string
	json bool // declared JSON: nested values are stored as JSON text
	blob bool // declared BLOB: base64 text is stored as its bytes
}

const stagingSuffix = "__faucet_ovw"

// loadColumns reads the columns of s.table; s.exists reports whether it exists.
func (s *Sink) loadColumns(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?)", s.table)
	if err != nil {
		return fmt.Errorf("sqlite: %s: columns of %s: %w", s.path, sqlutil.QuoteIdent(s.table, '"'), err)
	}
	defer rows.Close()
	s.cols, s.colAt = nil, map[string]int{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return fmt.Errorf("sqlite: %s: columns of %s: %w", s.path, s.table, err)
		}
		s.colAt[name] = len(s.cols)
		s.cols = append(s.cols, tableCol{name: name, json: kindOf(typ) == kindJSON, blob: strings.Contains(strings.ToUpper(typ), "BLOB")})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlite: %s: columns of %s: %w", s.path, s.table, err)
	}
	s.exists = len(s.cols) > 0
	return nil
}

func sqlType(t sqlutil.ColType) string {
	switch t {
	case sqlutil.TypeBool:
		return "BOOLEAN"
	case sqlutil.TypeInt:
		return "INTEGER"
	case sqlutil.TypeFloat:
		return "REAL"
	case sqlutil.TypeJSON:
		return "JSON"
	}
	return "TEXT"
}

// createTable creates the target from the page's inferred columns (with a
// primary key on key), then the overwrite staging table if needed.
func (s *Sink) createTable(ctx context.Context, recs []connector.Record) error {
	var defs []string
	if s.jsonCol != "" {
		defs = []string{sqlutil.QuoteIdent(s.jsonCol, '"') + " JSON"}
	} else {
		for _, c := range sqlutil.InferColumns(recs) {
			if s.cfg.DeleteMarker != nil && c.Name == s.cfg.DeleteMarker.Field {
				continue // stripped from upserted rows
			}
			defs = append(defs, sqlutil.QuoteIdent(c.Name, '"')+" "+sqlType(c.Type))
		}
		if len(s.cfg.Key) > 0 {
			ks := make([]string, len(s.cfg.Key))
			for i, k := range s.cfg.Key {
				ks[i] = sqlutil.QuoteIdent(k, '"')
			}
			defs = append(defs, "PRIMARY KEY ("+strings.Join(ks, ", ")+")")
		}
	}
	ddl := "CREATE TABLE IF NOT EXISTS " + s.target() + " (" + strings.Join(defs, ", ") + ")"
	if _, err := s.db.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("sqlite: %s: create table %s: %w", s.path, s.target(), err)
	}
	s.table = s.cfg.TableName
	if err := s.loadColumns(ctx); err != nil {
		return err
	}
	if s.cfg.WriteMode == sqlutil.Overwrite {
		return s.beginOverwrite(ctx)
	}
	return nil
}

// beginOverwrite creates an empty staging table shaped like the target;
// every write goes there until CommitOverwrite.
func (s *Sink) beginOverwrite(ctx context.Context) error {
	stg := sqlutil.QuoteIdent(s.cfg.TableName+stagingSuffix, '"')
	stmts := []string{
		"DROP TABLE IF EXISTS " + stg,
		"CREATE TABLE " + stg + " AS SELECT * FROM " + s.target() + " WHERE 0",
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: %s: prepare overwrite staging %s: %w", s.path, stg, err)
		}
	}
	s.table, s.staging = s.cfg.TableName+stagingSuffix, true
	return s.loadColumns(ctx)
}

// CommitOverwrite replaces the target's rows with the staging table's in
// one transaction (readers see the old or the new contents, never a mix)
// and drops the staging table. The engine is to call it once, after a
// complete, uncancelled run; without it Close abandons the overwrite.
func (s *Sink) CommitOverwrite(ctx context.Context) error {
	if !s.staging {
		return nil
	}
	stg := sqlutil.QuoteIdent(s.table, '"')
	cols := make([]string, len(s.cols))
	for i, c := range s.cols {
		cols[i] = sqlutil.QuoteIdent(c.name, '"')
	}
	list := strings.Join(cols, ", ")
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: %s: overwrite %s: %w", s.path, s.target(), err)
	}
	defer tx.Rollback()
	for _, q := range []string{
		"DELETE FROM " + s.target(),
		"INSERT INTO " + s.target() + " (" + list + ") SELECT " + list + " FROM " + stg,
		"DROP TABLE " + stg,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: %s: overwrite %s: %w", s.path, s.target(), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: %s: overwrite %s: %w", s.path, s.target(), err)
	}
	s.staging, s.table = false, s.cfg.TableName
	return nil
}

// Overwriting reports whether this run writes into a staging table that
// CommitOverwrite swaps in (write_mode: overwrite); see connector.Overwriter.
func (s *Sink) Overwriting() bool { return s.cfg.WriteMode == sqlutil.Overwrite }

// AbortOverwrite drops the staging table, leaving the target untouched.
func (s *Sink) AbortOverwrite(ctx context.Context) error {
	if !s.staging {
		return nil
	}
	s.staging = false
	_, err := s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+sqlutil.QuoteIdent(s.cfg.TableName+stagingSuffix, '"'))
	if err != nil {
		return fmt.Errorf("sqlite: %s: drop overwrite staging table: %w", s.path, err)
	}
	return nil
}

// ensureColumns checks that every field of recs is a column; unknown
// fields are added as nullable columns under evolve_schema (to the target
// and the staging table), else they are an error naming the field.
func (s *Sink) ensureColumns(ctx context.Context, tx *sql.Tx, recs []connector.Record) error {
	var missing []connector.Record
	var names []string
	for ri, r := range recs {
		for _, f := range r.Fields {
			if _, ok := s.colAt[f.Key]; ok {
				continue
			}
			if !s.cfg.EvolveSchema {
				return fmt.Errorf("sqlite: record %d of the page: field %q is not a column of table %s (set evolve_schema: true to add it)", ri+1, f.Key, s.target())
			}
			missing = append(missing, r)
			names = append(names, f.Key)
		}
	}
	if len(names) == 0 {
		return nil
	}
	types := map[string]sqlutil.ColType{}
	for _, c := range sqlutil.InferColumns(missing) {
		types[c.Name] = c.Type
	}
	tables := []string{s.table}
	if s.staging {
		tables = append(tables, s.cfg.TableName)
	}
	for _, n := range names {
		if _, ok := s.colAt[n]; ok {
			continue
		}
		typ := sqlType(types[n])
		for _, t := range tables {
			q := "ALTER TABLE " + sqlutil.QuoteIdent(t, '"') + " ADD COLUMN " + sqlutil.QuoteIdent(n, '"') + " " + typ
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("sqlite: add column %q to table %s: %w", n, sqlutil.QuoteIdent(t, '"'), err)
			}
		}
		s.colAt[n] = len(s.cols)
		s.cols = append(s.cols, tableCol{name: n, json: types[n] == sqlutil.TypeJSON})
	}
	return nil
}
