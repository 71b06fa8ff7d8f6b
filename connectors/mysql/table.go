package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// myCol is a column of the destination table.
type myCol struct {
	name string
	kind colKind // kindJSON, kindBinary, kindDateTime/kindTimestamp or kindText
}

const (
	stagingSuffix = "__faucet_ovw"
	oldSuffix     = "__faucet_ovw_old"
)

func (s *Sink) loadColumns(ctx context.Context) error {
	isJSON := mariaJSONColumns(ctx, s.db, s.table) // first: the sink has one connection
	rows, err := s.db.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, s.table)
	if err != nil {
		return fmt.Errorf("mysql: columns of %s: %s", quote(s.table), redactErr(s.url, err))
	}
	defer rows.Close()
	s.cols, s.colAt = nil, map[string]int{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return fmt.Errorf("mysql: columns of %s: %w", quote(s.table), err)
		}
		k := kindOf(typ)
		if isJSON[name] {
			k = kindJSON
		}
		switch k {
		case kindJSON, kindBinary, kindDateTime, kindTimestamp:
		default:
			k = kindText
		}
		s.colAt[name] = len(s.cols)
		s.cols = append(s.cols, myCol{name: name, kind: k})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mysql: columns of %s: %w", quote(s.table), err)
	}
	s.exists = len(s.cols) > 0
	return nil
}

func sqlType(t sqlutil.ColType, key bool) string {
	switch t {
	case sqlutil.TypeBool:
		return "BOOLEAN"
	case sqlutil.TypeInt:
		return "BIGINT"
	case sqlutil.TypeFloat:
		return "DOUBLE"
	case sqlutil.TypeJSON:
		return "JSON"
	}
	if key {
		return "VARCHAR(255)" // TEXT cannot be a key without a prefix length
	}
	return "LONGTEXT"
}

func (s *Sink) exec(ctx context.Context, what, q string) error {
	if _, err := s.db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("mysql: %s: %w", what, redacted(s.url, err))
	}
	return nil
}

// createTable creates the target from the page's inferred columns (with a
// primary key on key), then the overwrite staging table if needed.
func (s *Sink) createTable(ctx context.Context, recs []connector.Record) error {
	isKey := map[string]bool{}
	for _, k := range s.cfg.Key {
		isKey[k] = true
	}
	var defs []string
	if s.jsonCol != "" {
		defs = []string{quote(s.jsonCol) + " JSON"}
	} else {
		for _, c := range sqlutil.InferColumns(recs) {
			if s.cfg.DeleteMarker != nil && c.Name == s.cfg.DeleteMarker.Field {
				continue
			}
			defs = append(defs, quote(c.Name)+" "+sqlType(c.Type, isKey[c.Name]))
		}
		if len(s.cfg.Key) > 0 {
			ks := make([]string, len(s.cfg.Key))
			for i, k := range s.cfg.Key {
				ks[i] = quote(k)
			}
			defs = append(defs, "PRIMARY KEY ("+strings.Join(ks, ", ")+")")
		}
	}
	ddl := "CREATE TABLE IF NOT EXISTS " + s.target() + " (" + strings.Join(defs, ", ") + ")"
	if err := s.exec(ctx, "create table "+s.target(), ddl); err != nil {
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

// beginOverwrite creates an empty staging table LIKE the target (columns
// and indexes); every write goes there until CommitOverwrite.
func (s *Sink) beginOverwrite(ctx context.Context) error {
	stg := quote(s.cfg.TableName + stagingSuffix)
	if err := s.exec(ctx, "drop stale staging table "+stg, "DROP TABLE IF EXISTS "+stg); err != nil {
		return err
	}
	if err := s.exec(ctx, "create staging table "+stg, "CREATE TABLE "+stg+" LIKE "+s.target()); err != nil {
		return err
	}
	s.table, s.staging = s.cfg.TableName+stagingSuffix, true
	return s.loadColumns(ctx)
}

// CommitOverwrite swaps the staging table in with one atomic RENAME TABLE
// (readers see the old table or the new one, never an empty one) and
// drops the old table. The engine is to call it once after a complete,
// uncancelled run; without it Close abandons the overwrite.
func (s *Sink) CommitOverwrite(ctx context.Context) error {
	if !s.staging {
		return nil
	}
	old := quote(s.cfg.TableName + oldSuffix)
	stg := quote(s.cfg.TableName + stagingSuffix)
	if err := s.exec(ctx, "overwrite "+s.target(), "DROP TABLE IF EXISTS "+old); err != nil {
		return err
	}
	if err := s.exec(ctx, "overwrite "+s.target(), "RENAME TABLE "+s.target()+" TO "+old+", "+stg+" TO "+s.target()); err != nil {
		return err
	}
	s.staging, s.table = false, s.cfg.TableName
	return s.exec(ctx, "drop replaced table "+old, "DROP TABLE IF EXISTS "+old)
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
	return s.exec(ctx, "drop staging table", "DROP TABLE IF EXISTS "+quote(s.cfg.TableName+stagingSuffix))
}

// ensureColumns adds nullable columns for unknown fields under
// evolve_schema (to the staging table and the target), else fails naming
// the record and field.
func (s *Sink) ensureColumns(ctx context.Context, recs []connector.Record) error {
	var missing []connector.Record
	for ri, r := range recs {
		for _, f := range r.Fields {
			if _, ok := s.colAt[f.Key]; ok {
				continue
			}
			if dm := s.cfg.DeleteMarker; dm != nil && f.Key == dm.Field {
				continue
			}
			if !s.cfg.EvolveSchema {
				return fmt.Errorf("mysql: record %d of the page: field %q is not a column of table %s (set evolve_schema: true to add it)", ri+1, f.Key, s.target())
			}
			missing = append(missing, r)
			break
		}
	}
	if len(missing) == 0 {
		return nil
	}
	tables := []string{quote(s.table)}
	if s.staging {
		tables = append(tables, s.target())
	}
	for _, c := range sqlutil.InferColumns(missing) {
		if _, ok := s.colAt[c.Name]; ok {
			continue
		}
		if dm := s.cfg.DeleteMarker; dm != nil && c.Name == dm.Field {
			continue
		}
		for _, t := range tables {
			q := "ALTER TABLE " + t + " ADD COLUMN " + quote(c.Name) + " " + sqlType(c.Type, false) + " NULL"
			if err := s.exec(ctx, fmt.Sprintf("add column %q to %s", c.Name, t), q); err != nil {
				return err
			}
		}
	}
	return s.loadColumns(ctx)
}

// mariaJSONColumns lists the columns of table that MariaDB declares JSON:
// there JSON is LONGTEXT with a json_valid() check, so neither the result
// metadata nor DATA_TYPE says so. MySQL has no such table entries (its
// JSON type is reported as JSON), and errors mean "none".
func mariaJSONColumns(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, table string) map[string]bool {
	out := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS
		WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = ? AND CHECK_CLAUSE LIKE 'json_valid(%'`, table)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var clause string
		if rows.Scan(&clause) != nil {
			continue
		}
		// json_valid(`col`)
		c := strings.TrimSuffix(strings.TrimPrefix(clause, "json_valid("), ")")
		c = strings.ReplaceAll(strings.Trim(c, "`"), "``", "`")
		out[c] = true
	}
	return out
}
