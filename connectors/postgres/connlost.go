package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A dropped connection (the server restarted, an administrator ran
// pg_terminate_backend, a proxy cut the socket) is retryable where trying
// again cannot lose or reorder data:
//
//   - reading a source with replication_key: rows come in key order, so
//     the source reconnects and reads on after the key of the last row it
//     emitted (without the key the order is not repeatable: the read fails);
//   - writing a page whose transaction held nothing but that page (the
//     first page after a checkpoint, an exactly-once page with its commit
//     token): the server rolled it back, the sink reconnects and writes it
//     again. A transaction that also held earlier pages (written since the
//     last checkpoint) is not retried: those pages are gone, the run stops
//     and the bookmark stays at the last checkpoint, so a rerun writes
//     them again.
//
// pgx closes a connection on any error that ends it, so "the operation
// failed and the connection is closed" is the test, whatever the error
// looks like (a FATAL 57P01, an EOF, a reset).

// connLost reports whether err came with the loss of conn.
func connLost(ctx context.Context, conn *pgx.Conn, err error) bool {
	return err != nil && ctx.Err() == nil && conn != nil && conn.IsClosed()
}

// reread is what a source needs to read on after its connection dropped.
type reread struct {
	start *connector.Value // the run's start bookmark
	last  *connector.Value // replication key of the last row emitted
	rows  int64            // rows emitted
	lost  bool             // reconnect before reading on
}

// emitted remembers the key of the last row of a page handed out.
func (s *Source) emitted(key connector.Value) {
	k := key.Detach()
	s.re.last, s.re.rows = &k, s.row
}

// readFailed is the error of a failed read: retryable when the connection
// dropped and the rows are read in replication-key order.
func (s *Source) readFailed(ctx context.Context, err error) error {
	msg := fmt.Errorf("postgres: read %s after row %d: %s", s.what(), s.row, redactErr(s.url, err))
	if s.cfg.ReplicationKey == "" || !connLost(ctx, s.conn, err) {
		return msg
	}
	s.re.lost = true
	return connector.Retryable(fmt.Errorf("%w (connection lost: reconnecting to read on after the last %q emitted)", msg, s.cfg.ReplicationKey))
}

// reopen reconnects and runs the statement again from the last key
// emitted (or the run's start bookmark when no page was emitted yet).
func (s *Source) reopen(ctx context.Context) error {
	if s.rows != nil {
		s.rows.Close()
		s.rows = nil
	}
	if s.conn != nil {
		_ = s.conn.Close(context.Background())
		s.conn = nil
	}
	conn, err := connect(ctx, s.url)
	if err != nil {
		return connectFailed(err)
	}
	s.conn = conn
	s.row = s.re.rows // rows read since were dropped with the page
	from := s.re.last
	if from == nil {
		from = s.re.start
	}
	q, args := s.statement(from)
	rows, err := conn.Query(ctx, q, append([]any{pgx.QueryResultFormatsByOID(resultFormats)}, args...)...)
	if err != nil {
		return s.readFailed(ctx, err)
	}
	s.rows, s.re.lost = rows, false
	return nil
}

// connectFailed classifies a failed reconnect: the server not answering
// (yet) is retryable, an answer such as "password authentication failed"
// is not.
func connectFailed(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code != "57P03" { // cannot_connect_now: starting up
		return err
	}
	return connector.Retryable(err)
}

// ensureConn replaces a closed connection before a write, unless it took
// uncommitted pages with it. alone reports that nothing but the coming
// write is uncommitted (so a retry of it loses nothing).
func (s *Sink) ensureConn(ctx context.Context) (alone bool, err error) {
	alone = s.tx == nil && len(s.pend) == 0
	if s.conn != nil && !s.conn.IsClosed() {
		return alone, nil
	}
	if !alone {
		return false, s.lostPages(fmt.Errorf("postgres: connection to %s lost", s.dest()))
	}
	conn, err := connect(ctx, s.url)
	if err != nil {
		return true, connectFailed(err)
	}
	if s.conn != nil {
		_ = s.conn.Close(context.Background())
	}
	s.conn = conn
	return true, nil
}

// writeFailed classifies a failed write (see the comment at the top).
func (s *Sink) writeFailed(ctx context.Context, err error, alone bool) error {
	var lp *lostPagesError
	if !connLost(ctx, s.conn, err) || connector.IsRetryable(err) || errors.As(err, &lp) {
		return err // not a lost connection, or classified already
	}
	if !alone {
		return s.lostPages(err)
	}
	s.tx, s.pend, s.pendHdr = nil, s.pend[:0], nil // gone with the connection
	s.uncertain = true
	return connector.Retryable(fmt.Errorf("%w (connection lost: the page is written again on a new connection)", err))
}

// lostPages is the error when the connection took a transaction with
// pages written since the last checkpoint.
func (s *Sink) lostPages(err error) error {
	s.tx, s.pend, s.pendHdr = nil, s.pend[:0], nil
	return &lostPagesError{err}
}

// lostPagesError is a lost connection that cannot be retried.
type lostPagesError struct{ err error }

func (e *lostPagesError) Error() string {
	return e.err.Error() + "; the connection was lost with the pages written since the last checkpoint, which the server rolled back: the run stops and a rerun writes them again from the saved bookmark"
}

func (e *lostPagesError) Unwrap() error { return e.err }

// alreadyCommitted reports, after a write whose outcome is unknown (the
// connection dropped around the commit), whether the sink holds token for
// scope, so that an exactly-once page is not written twice.
func (s *Sink) alreadyCommitted(ctx context.Context, scope, token string) (bool, error) {
	if !s.uncertain {
		return false, nil
	}
	tok, ok, err := s.LastCommittedToken(ctx, scope)
	if err != nil {
		return false, s.writeFailed(ctx, err, true)
	}
	s.uncertain = false
	return ok && tok == token, nil
}
