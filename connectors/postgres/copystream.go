package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5/pgconn"
)

// The first COPY page of a transaction is its own statement, sent and
// finished before WriteEncoded returns: a dropped connection or a bad
// value is then known while that page is written (and, the page being
// alone in its transaction, it can be written again: connlost.go). The
// next pages of the transaction, up to the Flush that commits it, go
// into one COPY statement that stays open: WriteEncoded hands the rows to
// it and returns while the server still parses them, so the server works
// on one page while faucet reads and encodes the next. One statement per
// page instead left the server waiting between pages, and cost it as much
// CPU as parsing the rows: Postgres -> Postgres ran at 0.56-0.71x the
// rows/s of a psql COPY pipe that way, 0.86-0.91x with the stream
// (bench/sql/RESULTS.md).
//
// A stream owns the connection from its first page to its end: every
// other use of the connection ends it first (settle), and an error that
// ends it (a bad value, a lost connection) is reported by the write or
// the Flush that comes next, naming the record from the stream's line
// number (hints below), and rolls the transaction back with all its pages.

// copyStream is the open COPY ... FROM STDIN of a transaction.
type copyStream struct {
	hdr  []byte // the encoded page header (columns) it was started for
	pw   *io.PipeWriter
	done chan error // the COPY's outcome, once the pipe is closed
	pid  uint32     // the server process running it

	lines int64 // rows sent so far (COPY numbers them from 1)
	sent  [hintPages]sentPage
	pages int // pages sent
}

// hintPages is how many of the latest pages keep what an error needs to
// name their records. A server error usually names a line of the page
// being written or of the few before it (the socket buffers hold a few
// pages); older ones are reported by line number only.
const hintPages = 8

// sentPage is what naming a record of a page sent into the stream needs,
// kept after the engine took the page back: where its lines start, and
// per record the fields sqlutil.RecordHint shows (copied).
type sentPage struct {
	first int64 // stream line of its first record
	n     int
	hints []connector.Field
	offs  []int // record i's hints are hints[offs[i]:offs[i+1]]
	arena sqlutil.Arena
}

// errStreamAbandoned ends a stream whose transaction is rolled back.
var errStreamAbandoned = errors.New("postgres: COPY abandoned: the transaction is rolled back")

// streamPage sends the rows of an encoded page into the transaction's
// open COPY, starting one when there is none or the columns changed.
// Errors come with the transaction rolled back and the stream ended.
func (s *Sink) streamPage(ctx context.Context, p *connector.Page, data []byte) error {
	hdr, rows, err := splitHeader(data)
	if err != nil {
		return err
	}
	if s.copy != nil && !bytes.Equal(hdr, s.copy.hdr) {
		if err := s.settle(); err != nil {
			return err
		}
	}
	if s.copy == nil {
		if err := s.startStream(hdr); err != nil {
			s.rollback()
			return err
		}
	}
	c := s.copy
	c.remember(p.Records, s.cfg.Key)
	stop := context.AfterFunc(ctx, func() { c.pw.CloseWithError(ctx.Err()) })
	_, err = c.pw.Write(rows) // returns once the rows are on their way to the server
	stop()
	if err != nil {
		return s.settle() // the COPY's own error, with the record it names
	}
	return nil
}

// startStream starts the COPY for a page header on its own goroutine,
// reading the rows from a pipe.
func (s *Sink) startStream(hdr []byte) error {
	cs := s.set.Load()
	rd := bytes.NewReader(hdr[1:])
	n, err := readUvarint(rd)
	if err != nil {
		return err
	}
	names := make([]string, n)
	for i := range names {
		c, err := readUvarint(rd)
		if err != nil || int(c) >= len(cs.cols) {
			return fmt.Errorf("postgres: bad encoded page header")
		}
		names[i] = sqlutil.QuoteIdent(cs.cols[c].name, '"')
	}
	q := "COPY " + s.dest() + " (" + strings.Join(names, ", ") + ") FROM STDIN"
	dest := s.dest()
	pgc := s.conn.PgConn()
	pr, pw := io.Pipe()
	c := &copyStream{hdr: append([]byte(nil), hdr...), pw: pw, done: make(chan error, 1), pid: pgc.PID()}
	go func() {
		_, err := pgc.CopyFrom(context.Background(), pr, q)
		if err != nil {
			err = fmt.Errorf("postgres: copy into %s: %w", dest, &serverError{err})
			pr.CloseWithError(err) // the writer's next Write fails with it
		} else {
			pr.Close()
		}
		c.done <- err
	}()
	s.copy = c
	return nil
}

// settle ends the open COPY, if any, so that the connection is free for
// another statement. When the COPY failed, the transaction is rolled back
// and the error names the record it blames.
func (s *Sink) settle() error {
	c := s.copy
	if c == nil {
		return nil
	}
	c.pw.Close()
	err := <-c.done
	s.copy = nil
	if err != nil && !errors.Is(err, errStreamAbandoned) {
		err = c.blame(err, s.cfg.Key)
		s.rollback()
	}
	return err
}

// abandon ends the open COPY, if any, without committing its rows (the
// transaction is being rolled back).
func (s *Sink) abandon() {
	if c := s.copy; c != nil {
		c.pw.CloseWithError(errStreamAbandoned)
		<-c.done
		s.copy = nil
	}
}

// remember keeps the hint fields of a page's records before they are sent.
func (c *copyStream) remember(recs []connector.Record, key []string) {
	sp := &c.sent[c.pages%hintPages]
	c.pages++
	sp.first, sp.n = c.lines+1, len(recs)
	c.lines += int64(len(recs))
	sp.hints, sp.offs = sp.hints[:0], append(sp.offs[:0], 0)
	sp.arena.Reset()
	for _, r := range recs {
		start := len(sp.hints)
		for _, k := range key {
			if i := r.Index(k); i >= 0 {
				sp.hints = append(sp.hints, connector.Field{Key: k, Value: keep(&sp.arena, r.Fields[i].Value)})
			}
		}
		if len(sp.hints) == start && len(r.Fields) > 0 {
			f := r.Fields[0]
			sp.hints = append(sp.hints, connector.Field{Key: keepString(&sp.arena, f.Key), Value: keep(&sp.arena, f.Value)})
		}
		sp.offs = append(sp.offs, len(sp.hints))
	}
}

// keep copies v out of the page's memory (which the source may reuse).
func keep(a *sqlutil.Arena, v connector.Value) connector.Value {
	if v.Kind() == connector.KindString {
		return connector.String(keepString(a, v.AsString()))
	}
	return v.Detach()
}

func keepString(a *sqlutil.Arena, s string) string {
	return a.String(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// blame adds the record of the stream line the server named in err
// (not for a connection the server ended: no record is to blame then).
func (c *copyStream) blame(err error, key []string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "57") || strings.HasPrefix(pe.Code, "08")) {
		return err
	}
	line := int64(whereNumber(err, copyLine))
	if line < 1 {
		return err
	}
	for i := range min(c.pages, hintPages) {
		sp := &c.sent[(c.pages-1-i)%hintPages]
		if line >= sp.first && line < sp.first+int64(sp.n) {
			k := int(line - sp.first)
			rec := connector.Record{Fields: sp.hints[sp.offs[k]:sp.offs[k+1]]}
			if i == 0 {
				return fmt.Errorf("%w (record %d of the page: %s)", err, k+1, sqlutil.RecordHint(rec, key))
			}
			return fmt.Errorf("%w (record %d of the page: %s; written %d page(s) before the error came back)",
				err, k+1, sqlutil.RecordHint(rec, key), i)
		}
	}
	return fmt.Errorf("%w (line %d of a COPY spanning the pages written since the last checkpoint)", err, line)
}

func readUvarint(r io.ByteReader) (uint64, error) {
	v, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, fmt.Errorf("postgres: bad encoded page header: %w", err)
	}
	return v, nil
}
