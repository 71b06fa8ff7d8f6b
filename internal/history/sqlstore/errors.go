package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/faucet-hq/faucet/internal/history"
)

// classify wraps a driver error as a *history.Error, deciding its transience
// once from the typed error (never from its text): a database-reported code
// goes through history.TransienceOfCode (SQLSTATE or SQLite extended code);
// a connection that could not be made or was lost is Unreachable (transient);
// request-side misuse is Permanent; anything else stays Unknown.
func classify(ctx string, err error) error {
	if err == nil {
		return nil
	}
	var he *history.Error
	if errors.As(err, &he) {
		return err
	}
	msg := err.Error()
	if ctx != "" {
		msg = ctx + ": " + msg
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		t := history.TransienceOfCode(pg.Code)
		if len(pg.Code) == 5 && (pg.Code[:2] == "08" || pg.Code == "57P01" || pg.Code == "57P02" || pg.Code == "57P03") {
			return &history.Error{Kind: history.KindUnreachable, Message: msg, Transience: history.Transient, Err: err}
		}
		return history.Classified(msg, t, err)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return history.Classified(msg, history.TransienceOfCode(strconv.Itoa(se.Code())), err)
	}
	if isUnreachable(err) {
		return history.Unreachable(msg, err)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows), errors.Is(err, sql.ErrTxDone):
		return history.Classified(msg, history.Permanent, err)
	case errors.Is(err, context.DeadlineExceeded):
		return history.Classified(msg, history.Transient, err)
	}
	return history.Classified(msg, history.TransienceUnknown, err)
}

// isUnreachable reports failures to reach the database at all.
func isUnreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &ce), errors.As(err, &oe), errors.As(err, &ne):
		return true
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET):
		return true
	}
	return pgconn.SafeToRetry(err) && !errors.Is(err, context.Canceled)
}
