package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5"
)

// errSlowPath tells WriteEncoded to write the page itself (the table must
// be created or a column added first, or the page is not for COPY).
var errSlowPath = errors.New("postgres: page needs the writer")

// EncodePage renders the page as COPY text on an engine worker. The output
// starts with a header naming the columns used (by index in the table);
// a lone 0 byte means "let WriteEncoded write the page".
func (s *Sink) EncodePage(p *connector.Page, dst []byte) ([]byte, error) {
	start := len(dst)
	if !s.useCopy || !s.exists.Load() {
		return append(dst, 0), nil
	}
	out, err := s.encode(p, dst)
	if errors.Is(err, errSlowPath) {
		return append(dst[:start], 0), nil
	}
	return out, err
}

// WriteEncoded loads an encoded page with COPY, inside the transaction
// that the next Flush commits: the transaction's first page with a COPY
// of its own, the next ones through the COPY kept open (copystream.go).
func (s *Sink) WriteEncoded(ctx context.Context, p *connector.Page, data []byte) error {
	if len(data) == 0 || data[0] == 0 {
		return s.Write(ctx, p)
	}
	if s.tx != nil && len(s.pend) == 0 {
		// The transaction holds earlier pages: a lost connection takes
		// them all (and the stream owns the connection: no ensureConn).
		if err := s.streamPage(ctx, p, data); err != nil {
			return s.writeFailed(ctx, err, false)
		}
		return nil
	}
	alone, err := s.ensureConn(ctx)
	if err != nil {
		return err
	}
	if err := s.copyPage(ctx, data); err != nil {
		return s.writeFailed(ctx, s.badLine(err, p), alone)
	}
	return nil
}

// copyPage runs the COPY of one encoded page in the open transaction
// (beginning it, and after the rows Write left pending, so pages keep
// their order), and returns once the server took the page. A COPY that
// committed on its own cost a WAL flush per 1000-row page: CSV ->
// Postgres ran at about 0.6x the rows/s of psql \copy that way
// (bench/sql/RESULTS.md).
func (s *Sink) copyPage(ctx context.Context, data []byte) error {
	if s.tx == nil {
		tx, err := s.conn.Begin(ctx)
		if err != nil {
			return fmt.Errorf("postgres: begin: %s", redactErr(s.url, err))
		}
		s.tx = tx
	}
	if err := s.sendPending(ctx); err != nil {
		return err
	}
	if err := s.copyEncoded(ctx, data); err != nil {
		s.rollback()
		return err
	}
	return nil
}

// encode appends the header and the COPY rows of p.
func (s *Sink) encode(p *connector.Page, dst []byte) ([]byte, error) {
	cs := s.set.Load()
	var cols []int
	if s.jsonCol != "" {
		i, ok := cs.at[s.jsonCol]
		if !ok {
			return dst, fmt.Errorf("postgres: table %s has no column %q for column_mapping", s.target(), s.jsonCol)
		}
		cols = []int{i}
	} else {
		var err error
		if cols, err = s.usedColumns(cs, p.Records); err != nil {
			return dst, err
		}
	}
	dst = append(dst, 1)
	dst = binary.AppendUvarint(dst, uint64(len(cols)))
	for _, c := range cols {
		dst = binary.AppendUvarint(dst, uint64(c))
	}
	var scratch []byte
	for _, r := range p.Records {
		if s.jsonCol != "" {
			scratch = connector.AppendRecordJSON(scratch[:0], r)
			dst = appendCopy(dst, scratch)
			dst = append(dst, '\n')
			continue
		}
		for i, c := range cols {
			if i > 0 {
				dst = append(dst, '\t')
			}
			col := &cs.cols[c]
			dst, scratch = appendCopyValue(dst, scratch, fieldAt(r, i, col.name), col.kind)
		}
		dst = append(dst, '\n')
	}
	return dst, nil
}

// fieldAt finds a field, trying position i first (records usually have
// the table's column order).
func fieldAt(r connector.Record, i int, name string) connector.Value {
	if i < len(r.Fields) && r.Fields[i].Key == name {
		return r.Fields[i].Value
	}
	v, _ := r.Get(name)
	return v
}

// usedColumns returns the indexes of the table columns the records use;
// a field that is not a column is an error (or errSlowPath under
// evolve_schema, so that the writer adds it).
func (s *Sink) usedColumns(cs *colSet, recs []connector.Record) ([]int, error) {
	used := make([]bool, len(cs.cols))
	var prev []connector.Field
	for ri, r := range recs {
		if sameKeys(r.Fields, prev) {
			continue // the usual case: every record has the same fields
		}
		prev = r.Fields
		for _, f := range r.Fields {
			i, ok := cs.at[f.Key]
			if !ok {
				if s.cfg.EvolveSchema {
					return nil, errSlowPath
				}
				return nil, unknownField(ri, f.Key, s.target())
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

// splitHeader cuts an encoded page into its header and its COPY rows.
func splitHeader(data []byte) (hdr, rows []byte, err error) {
	rd := bytes.NewReader(data[1:])
	n, err := binary.ReadUvarint(rd)
	for i := uint64(0); err == nil && i < n; i++ {
		_, err = binary.ReadUvarint(rd)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: bad encoded page header: %w", err)
	}
	cut := len(data) - rd.Len()
	return data[:cut], data[cut:], nil
}

// queueCopy adds an encoded page to the pending COPY, sending the pending
// rows first when the columns differ and after when the buffer is full.
func (s *Sink) queueCopy(ctx context.Context, data []byte) error {
	hdr, rows, err := splitHeader(data)
	if err != nil {
		return err
	}
	if len(s.pend) > 0 && !bytes.Equal(hdr, s.pendHdr) {
		if err := s.sendPending(ctx); err != nil {
			return err
		}
	}
	if len(s.pend) == 0 {
		s.pendHdr = append(s.pendHdr[:0], hdr...)
	}
	s.pend = append(s.pend, rows...) // a copy: the engine reuses data
	if len(s.pend) >= copyBuffer {
		return s.sendPending(ctx)
	}
	return nil
}

// sendPending runs one COPY of the pending rows inside the open
// transaction.
func (s *Sink) sendPending(ctx context.Context) error {
	if err := s.settle(); err != nil {
		return err
	}
	if len(s.pend) == 0 {
		return nil
	}
	if s.tx == nil {
		tx, err := s.conn.Begin(ctx)
		if err != nil {
			return fmt.Errorf("postgres: begin: %s", redactErr(s.url, err))
		}
		s.tx = tx
	}
	data := append(s.pendHdr, s.pend...)
	s.pendHdr, s.pend = data[:0], s.pend[:0]
	if err := s.copyEncoded(ctx, data); err != nil {
		s.rollback()
		return err
	}
	return nil
}

func (s *Sink) copyEncoded(ctx context.Context, data []byte) error {
	cs := s.set.Load()
	rd := bytes.NewReader(data[1:])
	n, err := binary.ReadUvarint(rd)
	if err != nil {
		return fmt.Errorf("postgres: bad encoded page: %w", err)
	}
	names := make([]string, n)
	for i := range names {
		c, err := binary.ReadUvarint(rd)
		if err != nil || int(c) >= len(cs.cols) {
			return fmt.Errorf("postgres: bad encoded page header")
		}
		names[i] = sqlutil.QuoteIdent(cs.cols[c].name, '"')
	}
	q := "COPY " + s.dest() + " (" + strings.Join(names, ", ") + ") FROM STDIN"
	if _, err := s.conn.PgConn().CopyFrom(ctx, rd, q); err != nil {
		return fmt.Errorf("postgres: copy into %s: %w", s.dest(), &serverError{err})
	}
	return nil
}

// insertRows inserts recs with multi-row INSERT statements, every value
// bound as text with a cast to its column's type; upsert adds ON
// CONFLICT (key) DO UPDATE.
func (s *Sink) insertRows(ctx context.Context, tx pgx.Tx, recs []connector.Record, upsert bool) error {
	if len(recs) == 0 {
		return nil
	}
	cs := s.set.Load()
	per := s.cfg.BatchSize
	if per == 0 {
		per = len(recs)
	}
	for _, b := range sqlutil.Chunk(len(recs), 1, per, 0) {
		batch := recs[b[0]:b[1]]
		var cols []int
		if s.jsonCol != "" {
			i, ok := cs.at[s.jsonCol]
			if !ok {
				return fmt.Errorf("postgres: table %s has no column %q for column_mapping", s.dest(), s.jsonCol)
			}
			cols = []int{i}
		} else {
			var err error
			if cols, err = s.usedColumns(cs, batch); err != nil {
				return err
			}
		}
		for _, c := range sqlutil.Chunk(len(batch), len(cols), maxParams, 0) {
			q, args := s.insertSQL(cs, cols, batch[c[0]:c[1]], upsert)
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				return fmt.Errorf("postgres: insert into %s (records %d-%d of the page)%s: %s", s.dest(), b[0]+c[0]+1, b[0]+c[1],
					s.badParam(err, cs, cols, batch[c[0]:c[1]], b[0]+c[0]), pgMessage(err))
			}
		}
	}
	return nil
}

func (s *Sink) insertSQL(cs *colSet, cols []int, rows []connector.Record, upsert bool) (string, []any) {
	var b strings.Builder
	b.WriteString("INSERT INTO " + s.dest() + " (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlutil.QuoteIdent(cs.cols[c].name, '"'))
	}
	b.WriteString(") VALUES ")
	args := make([]any, 0, len(rows)*len(cols))
	var scratch []byte
	for ri, r := range rows {
		if ri > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, c := range cols {
			col := &cs.cols[c]
			if i > 0 {
				b.WriteString(", ")
			}
			var v connector.Value
			if s.jsonCol != "" {
				v = connector.Object(r)
			} else {
				v = fieldAt(r, i, col.name)
			}
			var null bool
			scratch, null = appendText(scratch[:0], v, col.kind)
			if null {
				args = append(args, nil)
			} else {
				args = append(args, string(scratch))
			}
			b.WriteString("$" + strconv.Itoa(len(args)) + "::" + col.typ)
		}
		b.WriteByte(')')
	}
	if upsert {
		b.WriteString(s.conflictClause(cs, cols))
	}
	return b.String(), args
}

// conflictClause is ON CONFLICT (key) DO UPDATE SET the non-key columns
// (DO NOTHING when every column is a key).
func (s *Sink) conflictClause(cs *colSet, cols []int) string {
	isKey := map[string]bool{}
	for _, k := range s.cfg.Key {
		isKey[k] = true
	}
	var sets []string
	for _, c := range cols {
		if name := cs.cols[c].name; !isKey[name] {
			q := sqlutil.QuoteIdent(name, '"')
			sets = append(sets, q+" = EXCLUDED."+q)
		}
	}
	clause := " ON CONFLICT (" + quoteAll(s.cfg.Key) + ") DO "
	if len(sets) == 0 {
		return clause + "NOTHING"
	}
	return clause + "UPDATE SET " + strings.Join(sets, ", ")
}

// deleteKeys deletes the rows whose key tuple is in keys.
func (s *Sink) deleteKeys(ctx context.Context, tx pgx.Tx, keys [][]connector.Value) error {
	if len(keys) == 0 {
		return nil
	}
	cs := s.set.Load()
	kcols := make([]*pgCol, len(s.cfg.Key))
	for i, k := range s.cfg.Key {
		j, ok := cs.at[k]
		if !ok {
			return fmt.Errorf("postgres: key column %q is not a column of table %s", k, s.dest())
		}
		kcols[i] = &cs.cols[j]
	}
	per := s.cfg.BatchSize
	if per == 0 {
		per = len(keys)
	}
	var scratch []byte
	for _, c := range sqlutil.Chunk(len(keys), len(kcols), maxParams, per) {
		part := keys[c[0]:c[1]]
		var b strings.Builder
		b.WriteString("DELETE FROM " + s.dest() + " WHERE (" + quoteAll(s.cfg.Key) + ") IN (")
		args := make([]any, 0, len(part)*len(kcols))
		for ti, t := range part {
			if ti > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for i, v := range t {
				if i > 0 {
					b.WriteString(", ")
				}
				scratch, _ = appendText(scratch[:0], v, kcols[i].kind)
				args = append(args, string(scratch))
				b.WriteString("$" + strconv.Itoa(len(args)) + "::" + kcols[i].typ)
			}
			b.WriteByte(')')
		}
		b.WriteByte(')')
		if _, err := tx.Exec(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("postgres: delete from %s (%d keys): %s", s.dest(), len(part), pgMessage(err))
		}
	}
	return nil
}
