package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/faucet-hq/faucet/connector"
	mysqldriver "github.com/go-sql-driver/mysql"
)

// A dropped connection (the server restarted, KILL CONNECTION, a proxy cut
// the socket) is retryable where trying again cannot lose or reorder data:
//
//   - reading a source with replication_key: rows come in key order, so
//     the source runs its query again after the key of the last row it
//     emitted (without the key the order is not repeatable: the read fails);
//   - writing a page: the sink commits every page in its own transaction,
//     which the server rolls back with the connection, and database/sql
//     takes a new connection for the retry. When the connection dropped
//     during COMMIT the page may be in already: an exactly-once retry first
//     looks for its commit token; an append retry may then write the page
//     twice, which at-least-once delivery allows (an upsert rewrites it).
//
// KILL QUERY (error 1317) is an administrator's decision, not a fault, and
// is not retried.

// connLost reports whether err says the connection to the server is gone.
func connLost(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	if errors.Is(err, mysqldriver.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var me *mysqldriver.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1053, // ER_SERVER_SHUTDOWN
			1152, // ER_ABORTING_CONNECTION
			1927: // ER_CONNECTION_KILLED (MariaDB)
			return true
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// redactedError keeps a driver error for errors.Is/As while its text has
// the connection password removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redacted is err with the password of raw removed from its text.
func redacted(raw string, err error) error {
	return &redactedError{msg: redactErr(raw, err), err: err}
}

// reread is what a source needs to read on after its connection dropped.
type reread struct {
	start *connector.Value // the run's start bookmark
	last  *connector.Value // replication key of the last row emitted
	rows  int64            // rows emitted
	lost  bool             // run the query again before reading on
}

// emitted remembers the key of the last row of a page handed out.
func (s *Source) emitted(key connector.Value) {
	k := key.Detach()
	s.re.last, s.re.rows = &k, s.row
}

// readFailed is the error of a failed read: retryable when the connection
// dropped and the rows are read in replication-key order.
func (s *Source) readFailed(ctx context.Context, err error) error {
	msg := fmt.Errorf("mysql: read %s after row %d: %s", s.what(), s.row, redactErr(s.url, err))
	if s.cfg.ReplicationKey == "" || !connLost(ctx, err) {
		return msg
	}
	s.re.lost = true
	return connector.Retryable(fmt.Errorf("%w (connection lost: reading on after the last %q emitted)", msg, s.cfg.ReplicationKey))
}

// reopen runs the statement again (database/sql replaces the dropped
// connection) from the last key emitted, or from the run's start
// bookmark when no page was emitted yet.
func (s *Source) reopen(ctx context.Context) error {
	if s.rows != nil {
		_ = s.rows.Close()
		s.rows = nil
	}
	s.row = s.re.rows // rows read since were dropped with the page
	from := s.re.last
	if from == nil {
		from = s.re.start
	}
	q, args := s.statement(from)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return s.readFailed(ctx, err)
	}
	s.rows, s.re.lost = rows, false
	return nil
}

// writeFailed classifies a failed page write (see the comment at the top).
func (s *Sink) writeFailed(ctx context.Context, err error) error {
	if !connLost(ctx, err) || connector.IsRetryable(err) {
		return err
	}
	s.uncertain = true
	return connector.Retryable(fmt.Errorf("%w (connection lost: the page is written again on a new connection)", err))
}

// alreadyCommitted reports, after a write whose outcome is unknown, whether
// the sink holds token for scope, so that an exactly-once page is not
// written twice.
func (s *Sink) alreadyCommitted(ctx context.Context, scope, token string) (bool, error) {
	if !s.uncertain {
		return false, nil
	}
	tok, ok, err := s.LastCommittedToken(ctx, scope)
	if err != nil {
		return false, s.writeFailed(ctx, err)
	}
	s.uncertain = false
	return ok && tok == token, nil
}

func init() {
	// The driver prints dropped connections to stderr by itself, past
	// faucet's log level and secret scrubbing; the errors it returns say
	// the same, and the engine logs each retry.
	_ = mysqldriver.SetLogger(driverLog{})
}

// driverLog hands the driver's messages to slog at debug level.
type driverLog struct{}

func (driverLog) Print(v ...any) { slog.Debug("mysql driver: " + fmt.Sprint(v...)) }
