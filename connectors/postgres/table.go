package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/pgcreate"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5/pgconn"
)

const stagingSuffix = "__faucet_ovw"

// pgMessage renders a server error with its detail and where it happened.
func pgMessage(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	msg := pe.Message
	if pe.Detail != "" {
		msg += " (" + pe.Detail + ")"
	}
	if pe.ColumnName != "" {
		msg += ", column " + pe.ColumnName
	}
	if pe.Where != "" {
		msg += "; " + pe.Where
	}
	return msg + " [SQLSTATE " + pe.Code + "]"
}

// loadColumns reads the columns of s.table.
func (s *Sink) loadColumns(ctx context.Context) error {
	rows, err := s.conn.Query(ctx, `SELECT a.attname, format_type(a.atttypid, NULL), t.typname, t.typcategory
		FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attnum`, s.dest())
	if err != nil {
		return fmt.Errorf("postgres: columns of %s: %s", s.dest(), pgMessage(err))
	}
	defer rows.Close()
	cs := &colSet{at: map[string]int{}}
	for rows.Next() {
		var c pgCol
		var typname, cat string
		if err := rows.Scan(&c.name, &c.typ, &typname, &cat); err != nil {
			return fmt.Errorf("postgres: columns of %s: %w", s.dest(), err)
		}
		switch {
		case typname == "json" || typname == "jsonb":
			c.kind = kindJSON
		case typname == "bytea":
			c.kind = kindBytea
		case cat == "A":
			c.kind = kindArray
		}
		cs.at[c.name] = len(cs.cols)
		cs.cols = append(cs.cols, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: columns of %s: %s", s.dest(), pgMessage(err))
	}
	s.set.Store(cs)
	s.exists.Store(len(cs.cols) > 0)
	return nil
}

func sqlType(t sqlutil.ColType) string {
	switch t {
	case sqlutil.TypeBool:
		return "boolean"
	case sqlutil.TypeInt:
		return "bigint"
	case sqlutil.TypeFloat:
		return "double precision"
	case sqlutil.TypeJSON:
		return "jsonb"
	}
	return "text"
}

func (s *Sink) exec(ctx context.Context, what, q string) error {
	if _, err := s.conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("postgres: %s: %s", what, pgMessage(err))
	}
	return nil
}

// create runs a CREATE ... IF NOT EXISTS outside a transaction, again
// when it lost a race with another session creating the same name (see
// pgcreate).
func (s *Sink) create(ctx context.Context, what, q string) error {
	if err := pgcreate.IfNotExists(ctx, s.conn, q); err != nil {
		return fmt.Errorf("postgres: %s: %s", what, pgMessage(err))
	}
	return nil
}

// createTable creates the target from the page's inferred columns (with a
// primary key on key), then the overwrite staging table if needed.
func (s *Sink) createTable(ctx context.Context, recs []connector.Record) error {
	var defs []string
	if s.jsonCol != "" {
		defs = []string{sqlutil.QuoteIdent(s.jsonCol, '"') + " jsonb"}
	} else {
		for _, c := range sqlutil.InferColumns(recs) {
			if s.cfg.DeleteMarker != nil && c.Name == s.cfg.DeleteMarker.Field {
				continue
			}
			defs = append(defs, sqlutil.QuoteIdent(c.Name, '"')+" "+sqlType(c.Type))
		}
		if len(s.cfg.Key) > 0 {
			defs = append(defs, "PRIMARY KEY ("+quoteAll(s.cfg.Key)+")")
		}
	}
	ddl := "CREATE TABLE IF NOT EXISTS " + s.target() + " (" + strings.Join(defs, ", ") + ")"
	if err := s.create(ctx, "create table "+s.target(), ddl); err != nil {
		return err
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

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = sqlutil.QuoteIdent(n, '"')
	}
	return strings.Join(q, ", ")
}

func (s *Sink) stagingName() string {
	return sqlutil.QuoteQualified(s.cfg.Schema, s.cfg.TableName+stagingSuffix, '"')
}

// beginOverwrite creates an empty staging table like the target; every
// write goes there until CommitOverwrite.
func (s *Sink) beginOverwrite(ctx context.Context) error {
	stg := s.stagingName()
	if err := s.exec(ctx, "drop stale staging table "+stg, "DROP TABLE IF EXISTS "+stg); err != nil {
		return err
	}
	if err := s.exec(ctx, "create staging table "+stg, "CREATE TABLE "+stg+" (LIKE "+s.target()+" INCLUDING DEFAULTS)"); err != nil {
		return err
	}
	s.table, s.staging = s.cfg.TableName+stagingSuffix, true
	return s.loadColumns(ctx)
}

// CommitOverwrite replaces the target's rows with the staging table's in
// one transaction (DELETE, not TRUNCATE, so that concurrent readers keep
// seeing the old rows until the commit, then the new ones) and drops the
// staging table. The engine is to call it once after a complete,
// uncancelled run; without it Close abandons the overwrite.
func (s *Sink) CommitOverwrite(ctx context.Context) error {
	if !s.staging {
		return nil
	}
	if err := s.Flush(ctx); err != nil {
		return err
	}
	cols := make([]string, 0, len(s.set.Load().cols))
	for _, c := range s.set.Load().cols {
		cols = append(cols, sqlutil.QuoteIdent(c.name, '"'))
	}
	list := strings.Join(cols, ", ")
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: overwrite %s: %s", s.target(), pgMessage(err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, q := range []string{
		"DELETE FROM " + s.target(),
		"INSERT INTO " + s.target() + " (" + list + ") SELECT " + list + " FROM " + s.stagingName(),
		"DROP TABLE " + s.stagingName(),
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres: overwrite %s: %s", s.target(), pgMessage(err))
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: overwrite %s: %s", s.target(), pgMessage(err))
	}
	s.staging, s.table = false, s.cfg.TableName
	return nil
}

// Overwriting reports whether this run writes into a staging table that
// CommitOverwrite swaps in (write_mode: overwrite); see connector.Overwriter.
func (s *Sink) Overwriting() bool { return s.cfg.WriteMode == sqlutil.Overwrite }

// AbortOverwrite drops the staging table, leaving the target untouched.
// Staged pages not yet committed are rolled back first: a DROP inside
// their transaction would be rolled back with them, leaving the table.
func (s *Sink) AbortOverwrite(ctx context.Context) error {
	if !s.staging {
		return nil
	}
	s.staging = false
	s.rollback()
	return s.exec(ctx, "drop staging table", "DROP TABLE IF EXISTS "+s.stagingName())
}

// ensureColumns checks that every field is a column; unknown fields are
// added as nullable columns under evolve_schema (to the target and the
// staging table), else they are an error naming the record and field.
func (s *Sink) ensureColumns(ctx context.Context, recs []connector.Record) error {
	cs := s.set.Load()
	var missing []connector.Record
	for ri, r := range recs {
		for _, f := range r.Fields {
			if _, ok := cs.at[f.Key]; ok {
				continue
			}
			if dm := s.cfg.DeleteMarker; dm != nil && f.Key == dm.Field {
				continue // stripped before the write
			}
			if !s.cfg.EvolveSchema {
				return unknownField(ri, f.Key, s.dest())
			}
			missing = append(missing, r)
			break
		}
	}
	if len(missing) == 0 {
		return nil
	}
	tables := []string{s.dest()}
	if s.staging {
		tables = append(tables, s.target())
	}
	for _, c := range sqlutil.InferColumns(missing) {
		if _, ok := cs.at[c.Name]; ok {
			continue
		}
		if dm := s.cfg.DeleteMarker; dm != nil && c.Name == dm.Field {
			continue
		}
		for _, t := range tables {
			q := "ALTER TABLE " + t + " ADD COLUMN IF NOT EXISTS " + sqlutil.QuoteIdent(c.Name, '"') + " " + sqlType(c.Type)
			if err := s.exec(ctx, fmt.Sprintf("add column %q to %s", c.Name, t), q); err != nil {
				return err
			}
		}
	}
	return s.loadColumns(ctx)
}

func unknownField(recIdx int, field, table string) error {
	return fmt.Errorf("postgres: record %d of the page: field %q is not a column of table %s (set evolve_schema: true to add it)", recIdx+1, field, table)
}
