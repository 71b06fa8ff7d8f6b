// Package sqlstore is the SQL RunHistory: one implementation, two dialects
// (SQLite through modernc.org/sqlite, Postgres through pgx's database/sql
// driver). The schema is the seed's DDL verbatim (ddl.go), executed at
// connect; statements are rendered per dialect in one place (stmts.go,
// queries.go). SQLite runs in WAL mode with a 5 s busy timeout, and every
// transaction is BEGIN IMMEDIATE so a read-then-write transaction waits for
// the write lock instead of failing with SQLITE_BUSY_SNAPSHOT (#666).
package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver

	"github.com/faucet-hq/faucet/connector/sqlitewal"
	"github.com/faucet-hq/faucet/internal/history"
)

// Connect retry budget: up to ConnectAttempts tries, 100 ms doubling to 1 s,
// retried only while the failure is retriable.
const (
	ConnectAttempts  = 8
	connectBaseDelay = 100 * time.Millisecond
	connectMaxDelay  = time.Second
	maxOpenConns     = 5
)

// Store is the SQL-backed history.
type Store struct {
	db   *sql.DB
	d    Dialect
	st   stmts
	opts history.Options
}

var _ history.RunHistory = (*Store)(nil)

// Open connects to a history URL (sqlite:PATH, sqlite://PATH, sqlite::memory:,
// postgres://..., postgresql://...) as instanceID ("" = random) with default
// options.
func Open(ctx context.Context, rawURL string, instanceID string) (history.RunHistory, error) {
	return OpenOptions(ctx, rawURL, history.Options{InstanceID: instanceID})
}

// OpenOptions is Open with full options. It creates the schema and retries
// transient connect failures with backoff before giving up with a classified
// error.
func OpenOptions(ctx context.Context, rawURL string, opts history.Options) (*Store, error) {
	d, driverName, dsn, memory, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	opts = opts.WithDefaults()
	var lastErr error
	delay := connectBaseDelay
	for attempt := 1; attempt <= ConnectAttempts; attempt++ {
		s, err := connect(ctx, d, driverName, dsn, memory, opts)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !history.IsRetriable(err) || attempt == ConnectAttempts {
			break
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, classify(fmt.Sprintf("%s connection failed", d), ctx.Err())
		case <-t.C:
		}
		if delay *= 2; delay > connectMaxDelay {
			delay = connectMaxDelay
		}
	}
	return nil, lastErr
}

func parseURL(raw string) (d Dialect, driverName, dsn string, memory bool, err error) {
	switch {
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		// Bound each connect attempt so the retry budget is finite even when
		// the server is unreachable without refusing (a dropped SYN).
		if !strings.Contains(raw, "connect_timeout=") {
			sep := "?"
			if strings.Contains(raw, "?") {
				sep = "&"
			}
			raw += sep + "connect_timeout=5"
		}
		return Postgres, "pgx", raw, false, nil
	case strings.HasPrefix(raw, "sqlite:"):
		path := strings.TrimPrefix(raw, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		query := ""
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path, query = path[:i], path[i+1:]
		}
		if path == "" {
			return 0, "", "", false, history.Classified(fmt.Sprintf("invalid sqlite url '%s'", raw), history.Permanent, nil)
		}
		q, perr := url.ParseQuery(query)
		if perr != nil {
			return 0, "", "", false, history.Classified(fmt.Sprintf("invalid sqlite url '%s': %v", raw, perr), history.Permanent, perr)
		}
		memory = path == ":memory:"
		q.Add("_pragma", "busy_timeout(5000)")
		q.Set("_txlock", "immediate")
		return SQLite, "sqlite", "file:" + path + "?" + q.Encode(), memory, nil
	}
	return 0, "", "", false, history.Classified(fmt.Sprintf("unsupported history url '%s' (want sqlite:PATH or postgres://...)", raw), history.Permanent, nil)
}

func connect(ctx context.Context, d Dialect, driverName, dsn string, memory bool, opts history.Options) (*Store, error) {
	what := fmt.Sprintf("%s connection failed", map[Dialect]string{Postgres: "Postgres", SQLite: "SQLite"}[d])
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, classify(what, err)
	}
	if memory {
		db.SetMaxOpenConns(1) // every :memory: connection is its own database
	} else {
		db.SetMaxOpenConns(maxOpenConns)
		db.SetMaxIdleConns(maxOpenConns)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, classify(what, err)
	}
	if d == SQLite && !memory {
		if err := sqlitewal.Enable(ctx, db); err != nil {
			db.Close()
			return nil, classify(what, err)
		}
	}
	if err := createSchema(ctx, db, d); err != nil {
		db.Close()
		return nil, classify("creating run-history schema", err)
	}
	return &Store{db: db, d: d, st: newStmts(d), opts: opts}, nil
}

// schemaLockKey is the Postgres advisory lock that serializes schema
// creation (the ASCII of "faucetdl").
const schemaLockKey = 0x6661756365746c64

// createSchema runs the DDL. On Postgres, CREATE TABLE IF NOT EXISTS is not
// safe against a concurrent identical statement (the loser fails with 23505
// on pg_type), which two cluster members starting together hit; the DDL runs
// in one transaction holding an advisory lock, so the second waits and then
// finds everything in place. SQLite serializes writers itself.
func createSchema(ctx context.Context, db *sql.DB, d Dialect) error {
	if d != Postgres {
		for _, stmt := range DDL {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(schemaLockKey)); err != nil {
		return err
	}
	for _, stmt := range DDL {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// DB exposes the pool (tests close it to exercise failures).
func (s *Store) DB() *sql.DB { return s.db }

// Dialect reports the store's dialect.
func (s *Store) Dialect() Dialect { return s.d }

// InstanceID is this store's owner id.
func (s *Store) InstanceID() string { return s.opts.InstanceID }

// Degraded is false: a live SQL store never degrades itself; the fallback
// wrapper owns degradation.
func (s *Store) Degraded() bool { return false }

// Close closes the pool.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) now() time.Time { return s.opts.NowUTC() }

func (s *Store) lease(now time.Time) string { return history.FormatTS(now.Add(s.opts.LeaseTTL)) }

func (s *Store) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, classify("", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, classify("", err)
	}
	return n, nil
}

// queryStrings runs a statement whose columns are all (nullable) text.
func (s *Store) queryStrings(ctx context.Context, q string, args ...any) ([][]sql.NullString, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify("", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, classify("", err)
	}
	var out [][]sql.NullString
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, classify("", err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, classify("", err)
	}
	return out, nil
}

// bodies returns the first column of every row.
func (s *Store) bodies(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := s.queryStrings(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0].String
	}
	return out, nil
}

// oneBody returns the first column of the first row, or ok=false.
func (s *Store) oneBody(ctx context.Context, q string, args ...any) (string, bool, error) {
	var b sql.NullString
	err := s.db.QueryRowContext(ctx, q, args...).Scan(&b)
	if err == sql.ErrNoRows {
		return "", false, nil
	}
	if err != nil {
		return "", false, classify("", err)
	}
	return b.String, true, nil
}

// getJSON decodes one body row into T (nil when absent).
func getJSON[T any](ctx context.Context, s *Store, what, q string, args ...any) (*T, error) {
	body, ok, err := s.oneBody(ctx, q, args...)
	if err != nil || !ok {
		return nil, err
	}
	v, err := history.DecodeJSON[T](body, what)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// listJSON decodes every body row into T. A corrupt body fails the read with
// an error naming the table's value kind; listings of runs skip corrupt rows
// instead (see List).
func listJSON[T any](ctx context.Context, s *Store, what, q string, args ...any) ([]T, error) {
	bs, err := s.bodies(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(bs))
	for _, b := range bs {
		v, err := history.DecodeJSON[T](b, what)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// nullable maps a nil *string to SQL NULL.
func nullable(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func nullTS(t *time.Time) any {
	if t == nil {
		return nil
	}
	return history.FormatTS(*t)
}

func nsPtr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	s := n.String
	return &s
}

// withTx runs fn in a write transaction (BEGIN IMMEDIATE on SQLite).
func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify("begin", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return classify("", err)
	}
	if err := tx.Commit(); err != nil {
		return classify("commit", err)
	}
	return nil
}

// UpsertBatch writes many records in one transaction with the same statement
// and stamping as Upsert (bulk loads: benchmarks, imports).
func (s *Store) UpsertBatch(ctx context.Context, recs []history.RunRecord) error {
	lease := s.lease(s.now())
	return s.withTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, s.st.upsert)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := range recs {
			r := &recs[i]
			body, err := history.EncodeRun(r)
			if err != nil {
				return err
			}
			if _, err := stmt.ExecContext(ctx, r.RunID, nullable(r.Name), string(r.Status), history.FormatTS(r.SubmittedAt),
				nullTS(r.FinishedAt), nullable(r.IdempotencyKey), s.opts.InstanceID, lease, body); err != nil {
				return err
			}
		}
		return nil
	})
}

// ExplainList returns the database's plan for the run listing (first page
// when cursor is nil, else a keyset page), for benchmarks and diagnostics.
func (s *Store) ExplainList(ctx context.Context, f history.ListFilter) ([]string, error) {
	var curTS, curID any
	q := s.st.list
	if f.Cursor != nil {
		ts, ok, err := s.oneBody(ctx, s.st.selectSubmitted, *f.Cursor)
		if err != nil {
			return nil, err
		}
		if ok {
			curTS, curID, q = ts, *f.Cursor, s.st.listAfter
		}
	}
	prefix := "EXPLAIN "
	if s.d == SQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	rows, err := s.queryStrings(ctx, prefix+q, nil, nil, nil, nil, nil, nil, nil, nil,
		curTS, curTS, curTS, curID, nil, nil, int64(history.EffectiveLimit(f.Limit)+1))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		out = append(out, r[len(r)-1].String)
	}
	return out, nil
}
