package sqlite

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// insertRows inserts recs in multi-row statements of at most batch_size
// rows and maxParams variables; upsert adds ON CONFLICT (key) DO UPDATE.
// Each statement's columns are the table columns some record of it has,
// in table order; a record without one of them gets NULL there.
func (s *Sink) insertRows(ctx context.Context, tx *sql.Tx, recs []connector.Record, upsert bool) error {
	if len(recs) == 0 {
		return nil
	}
	if err := s.ensureColumns(ctx, tx, recs); err != nil {
		return err
	}
	tbl := sqlutil.QuoteIdent(s.table, '"')
	for _, b := range sqlutil.Chunk(len(recs), 1, s.cfg.BatchSize, 0) {
		batch := recs[b[0]:b[1]]
		cols := s.columnsOf(batch)
		for _, c := range sqlutil.Chunk(len(batch), len(cols), maxParams, 0) {
			rows := batch[c[0]:c[1]]
			q, args := s.insertSQL(tbl, cols, rows, upsert)
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("sqlite: insert into %s (records %d-%d of the page): %w", tbl, b[0]+c[0]+1, b[0]+c[1], err)
			}
		}
	}
	return nil
}

// columnsOf returns the indexes (in s.cols) of the columns used by recs.
func (s *Sink) columnsOf(recs []connector.Record) []int {
	used := make([]bool, len(s.cols))
	n := 0
	for _, r := range recs {
		for _, f := range r.Fields {
			if i := s.colAt[f.Key]; !used[i] {
				used[i] = true
				n++
			}
		}
		if n == len(s.cols) {
			break
		}
	}
	out := make([]int, 0, n)
	for i, u := range used {
		if u {
			out = append(out, i)
		}
	}
	return out
}

func (s *Sink) insertSQL(tbl string, cols []int, rows []connector.Record, upsert bool) (string, []any) {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(tbl)
	b.WriteString(" (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlutil.QuoteIdent(s.cols[c].name, '"'))
	}
	b.WriteString(") VALUES ")
	args := make([]any, 0, len(cols)*len(rows))
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	for ri, r := range rows {
		if ri > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple)
		for ci, c := range cols {
			col := s.cols[c]
			var v connector.Value
			if ci < len(r.Fields) && r.Fields[ci].Key == col.name {
				v = r.Fields[ci].Value
			} else {
				v, _ = r.Get(col.name)
			}
			args = append(args, arg(v, col))
		}
	}
	if upsert {
		b.WriteString(s.conflictClause(cols))
	}
	return b.String(), args
}

// arg converts a value for a column: base64 text decoded for a BLOB column
// (the sources read binary values as base64; text that is not base64 is
// stored as it is), the rest as sqlutil.Arg.
func arg(v connector.Value, col tableCol) any {
	if col.blob && v.Kind() == connector.KindString {
		if b, err := base64.StdEncoding.DecodeString(v.AsString()); err == nil {
			return b
		}
	}
	return sqlutil.Arg(v, col.json)
}

// conflictClause is ON CONFLICT (key) DO UPDATE SET every non-key column
// (DO NOTHING when all columns are keys).
func (s *Sink) conflictClause(cols []int) string {
	isKey := map[string]bool{}
	ks := make([]string, len(s.cfg.Key))
	for i, k := range s.cfg.Key {
		isKey[k] = true
		ks[i] = sqlutil.QuoteIdent(k, '"')
	}
	var sets []string
	for _, c := range cols {
		name := s.cols[c].name
		if !isKey[name] {
			q := sqlutil.QuoteIdent(name, '"')
			sets = append(sets, q+" = excluded."+q)
		}
	}
	clause := " ON CONFLICT (" + strings.Join(ks, ", ") + ") DO "
	if len(sets) == 0 {
		return clause + "NOTHING"
	}
	return clause + "UPDATE SET " + strings.Join(sets, ", ")
}

// insertJSON stores each record as JSON text in the mapping column.
func (s *Sink) insertJSON(ctx context.Context, tx *sql.Tx, recs []connector.Record) error {
	tbl := sqlutil.QuoteIdent(s.table, '"')
	for _, c := range sqlutil.Chunk(len(recs), 1, min(s.cfg.BatchSize, maxParams), 0) {
		rows := recs[c[0]:c[1]]
		q := "INSERT INTO " + tbl + " (" + sqlutil.QuoteIdent(s.jsonCol, '"') + ") VALUES " +
			strings.TrimSuffix(strings.Repeat("(?), ", len(rows)), ", ")
		args := make([]any, len(rows))
		var buf []byte
		for i, r := range rows {
			buf = connector.AppendRecordJSON(buf[:0], r)
			args[i] = string(buf)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("sqlite: insert into %s (records %d-%d of the page): %w", tbl, c[0]+1, c[1], err)
		}
	}
	return nil
}

// deleteKeys deletes the rows whose key tuple is in keys.
func (s *Sink) deleteKeys(ctx context.Context, tx *sql.Tx, keys [][]connector.Value) error {
	if len(keys) == 0 {
		return nil
	}
	tbl := sqlutil.QuoteIdent(s.table, '"')
	nk := len(s.cfg.Key)
	ks := make([]string, nk)
	for i, k := range s.cfg.Key {
		ks[i] = sqlutil.QuoteIdent(k, '"')
		if _, ok := s.colAt[k]; !ok {
			return fmt.Errorf("sqlite: key column %q is not a column of table %s", k, tbl)
		}
	}
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", nk), ", ") + ")"
	for _, c := range sqlutil.Chunk(len(keys), nk, maxParams, s.cfg.BatchSize) {
		part := keys[c[0]:c[1]]
		var q string
		if nk == 1 {
			q = "DELETE FROM " + tbl + " WHERE " + ks[0] + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ") + ")"
		} else {
			q = "DELETE FROM " + tbl + " WHERE (" + strings.Join(ks, ", ") + ") IN (VALUES " +
				strings.TrimSuffix(strings.Repeat(tuple+", ", len(part)), ", ") + ")"
		}
		args := make([]any, 0, len(part)*nk)
		for _, t := range part {
			for _, v := range t {
				args = append(args, sqlutil.Arg(v, false))
			}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("sqlite: delete from %s (%d keys): %w", tbl, len(part), err)
		}
	}
	return nil
}
