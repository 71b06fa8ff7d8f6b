package mysql

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// arg converts a value for a column: nested values (and anything bound
// to a JSON column) as JSON text, base64 strings decoded for binary
// columns, RFC 3339 text as MySQL's 'YYYY-MM-DD hh:mm:ss' in UTC for
// DATETIME/TIMESTAMP columns.
func arg(v connector.Value, kind colKind) any {
	if v.IsNull() {
		return nil
	}
	switch kind {
	case kindJSON:
		return string(connector.AppendJSON(nil, v))
	case kindBinary:
		if v.Kind() == connector.KindString {
			if b, err := base64.StdEncoding.DecodeString(v.AsString()); err == nil {
				return b
			}
		}
	case kindDateTime, kindTimestamp:
		if v.Kind() == connector.KindString {
			if t, err := time.Parse(time.RFC3339Nano, v.AsString()); err == nil {
				return t.UTC().Format("2006-01-02 15:04:05.999999")
			}
		}
	}
	return sqlutil.Arg(v, false)
}

func (s *Sink) insertRows(ctx context.Context, tx *sql.Tx, recs []connector.Record, upsert bool) error {
	if len(recs) == 0 {
		return nil
	}
	tbl := quote(s.table)
	for _, b := range sqlutil.Chunk(len(recs), 1, s.cfg.BatchSize, 0) {
		batch := recs[b[0]:b[1]]
		cols, err := s.columnsOf(batch)
		if err != nil {
			return err
		}
		for _, c := range sqlutil.Chunk(len(batch), len(cols), maxParams, 0) {
			q, args := s.insertText(tbl, cols, batch[c[0]:c[1]], upsert)
			if q == "" { // a big statement: bound, so that the driver may prepare it
				q, args = s.insertSQL(tbl, cols, batch[c[0]:c[1]], upsert)
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("mysql: insert into %s (records %d-%d of the page)%s: %w", tbl, b[0]+c[0]+1, b[0]+c[1],
					s.badRow(err, batch[c[0]:c[1]], b[0]+c[0]), redacted(s.url, err))
			}
		}
	}
	return nil
}

// columnsOf returns the indexes of the columns recs use, in table order.
func (s *Sink) columnsOf(recs []connector.Record) ([]int, error) {
	if s.jsonCol != "" {
		i, ok := s.colAt[s.jsonCol]
		if !ok {
			return nil, fmt.Errorf("mysql: table %s has no column %q for column_mapping", s.target(), s.jsonCol)
		}
		return []int{i}, nil
	}
	used := make([]bool, len(s.cols))
	var prev []connector.Field
	for _, r := range recs {
		if sameKeys(r.Fields, prev) {
			continue // the usual case: every record has the same fields
		}
		prev = r.Fields
		for _, f := range r.Fields {
			i, ok := s.colAt[f.Key]
			if !ok {
				return nil, fmt.Errorf("mysql: field %q is not a column of table %s", f.Key, s.target())
			}
			used[i] = true
		}
	}
	var out []int
	for i, u := range used {
		if u {
			out = append(out, i)
		}
	}
	return out, nil
}

// sameKeys reports whether a and b have the same keys in the same order.
func sameKeys(a, b []connector.Field) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key {
			return false
		}
	}
	return true
}

// maxInline is the longest INSERT written with its values inline; a
// longer one is bound as before, where the driver can fall back to a
// prepared statement when its text would not fit in a packet.
const maxInline = 1 << 20

// insertText is the INSERT of rows with the values inline (literal.go);
// args are the few values that stay bound. The text lives in s.stmt until
// the next call. It returns "" when the statement would exceed maxInline.
func (s *Sink) insertText(tbl string, cols []int, rows []connector.Record, upsert bool) (string, []any) {
	b := append(s.stmt[:0], "INSERT INTO "...)
	b = append(b, tbl...)
	b = append(b, " ("...)
	for i, c := range cols {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, quote(s.cols[c].name)...)
	}
	b = append(b, ") VALUES "...)
	var args []any
	for ri, r := range rows {
		if ri > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '(')
		for i, c := range cols {
			if i > 0 {
				b = append(b, ", "...)
			}
			v, kind := s.valueFor(r, i, c)
			var ok bool
			if b, s.scratch, ok = appendValue(b, s.scratch, v, kind); !ok {
				b = append(b, '?')
				args = append(args, arg(v, kind))
			}
		}
		b = append(b, ')')
		if len(b) > maxInline {
			s.stmt = b[:0]
			return "", nil
		}
	}
	if upsert {
		b = append(b, s.duplicateClause(cols)...)
	}
	s.stmt = b
	if len(args) > 0 {
		return string(b), args
	}
	// The driver sends a statement without arguments as it is, copying it
	// into its packet buffer: nothing keeps the text once Exec returns.
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// valueFor is the value of table column c for record r (field i is tried
// first) and the kind it is written as.
func (s *Sink) valueFor(r connector.Record, i, c int) (connector.Value, colKind) {
	col := s.cols[c]
	switch {
	case s.jsonCol != "":
		return connector.Object(r), kindJSON
	case i < len(r.Fields) && r.Fields[i].Key == col.name:
		return r.Fields[i].Value, col.kind
	}
	v, _ := r.Get(col.name)
	return v, col.kind
}

func (s *Sink) insertSQL(tbl string, cols []int, rows []connector.Record, upsert bool) (string, []any) {
	var b strings.Builder
	b.WriteString("INSERT INTO " + tbl + " (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(s.cols[c].name))
	}
	b.WriteString(") VALUES ")
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	args := make([]any, 0, len(rows)*len(cols))
	for ri, r := range rows {
		if ri > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple)
		for i, c := range cols {
			col := s.cols[c]
			var v connector.Value
			switch {
			case s.jsonCol != "":
				v = connector.Object(r)
			case i < len(r.Fields) && r.Fields[i].Key == col.name:
				v = r.Fields[i].Value
			default:
				v, _ = r.Get(col.name)
			}
			kind := col.kind
			if s.jsonCol != "" {
				kind = kindJSON
			}
			args = append(args, arg(v, kind))
		}
	}
	if upsert {
		b.WriteString(s.duplicateClause(cols))
	}
	return b.String(), args
}

// duplicateClause updates the non-key columns on a duplicate key (a no-op
// update of the first key when every column is a key).
func (s *Sink) duplicateClause(cols []int) string {
	isKey := map[string]bool{}
	for _, k := range s.cfg.Key {
		isKey[k] = true
	}
	var sets []string
	for _, c := range cols {
		if name := s.cols[c].name; !isKey[name] {
			sets = append(sets, quote(name)+" = VALUES("+quote(name)+")")
		}
	}
	if len(sets) == 0 {
		k := quote(s.cfg.Key[0])
		sets = []string{k + " = " + k}
	}
	return " ON DUPLICATE KEY UPDATE " + strings.Join(sets, ", ")
}

// deleteKeys deletes the rows whose key tuple is in keys.
func (s *Sink) deleteKeys(ctx context.Context, tx *sql.Tx, keys [][]connector.Value) error {
	if len(keys) == 0 {
		return nil
	}
	tbl := quote(s.table)
	nk := len(s.cfg.Key)
	ks := make([]string, nk)
	kinds := make([]colKind, nk)
	for i, k := range s.cfg.Key {
		j, ok := s.colAt[k]
		if !ok {
			return fmt.Errorf("mysql: key column %q is not a column of table %s", k, s.target())
		}
		ks[i], kinds[i] = quote(k), s.cols[j].kind
	}
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", nk), ", ") + ")"
	for _, c := range sqlutil.Chunk(len(keys), nk, maxParams, s.cfg.BatchSize) {
		part := keys[c[0]:c[1]]
		q := "DELETE FROM " + tbl + " WHERE (" + strings.Join(ks, ", ") + ") IN (" +
			strings.TrimSuffix(strings.Repeat(tuple+", ", len(part)), ", ") + ")"
		args := make([]any, 0, len(part)*nk)
		for _, t := range part {
			for i, v := range t {
				args = append(args, arg(v, kinds[i]))
			}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("mysql: delete from %s (%d keys): %w", tbl, len(part), redacted(s.url, err))
		}
	}
	return nil
}
