package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/sqlitewal"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SQLiteConfig is the `config:` of `state: {type: sqlite}`.
type SQLiteConfig struct {
	Path  string `json:"path" required:"true" doc:"SQLite database file holding the state table (created if missing)."`
	Table string `json:"table" default:"faucet_state" doc:"Table name (letters, digits, _; at most 63)."`
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// Validate implements connector.Validator.
func (c *SQLiteConfig) Validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	if !tableName.MatchString(c.Table) {
		return connector.ConfigErrorf("table", "must be 1-63 letters, digits or _ (not starting with a digit), got %q", c.Table)
	}
	return nil
}

func init() {
	Register(Kind{
		Name:    "sqlite",
		Summary: "one row per state key in a SQLite table; atomic upserts, safe across processes (WAL, busy timeout)",
		Config:  &SQLiteConfig{},
		Open: func(cfg connector.Config) (Store, error) {
			var c SQLiteConfig
			if err := cfg.Decode(&c); err != nil {
				return nil, err
			}
			return OpenSQLite(context.Background(), c.Path, c.Table)
		},
	})
}

// SQLite keeps bookmarks in a table `(key TEXT PRIMARY KEY, value TEXT,
// updated_at TEXT)`; each Put is one atomic upsert.
type SQLite struct {
	db    *sql.DB
	path  string
	table string
}

// OpenSQLite opens (creating if needed) the database and its state table.
func OpenSQLite(ctx context.Context, path, table string) (*SQLite, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(FULL)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("state sqlite %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if err := sqlitewal.Enable(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("state sqlite %s: %w", path, err)
	}
	qt := `"` + table + `"`
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+qt+` (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("state sqlite %s: create table %s: %w", path, table, err)
	}
	return &SQLite{db: db, path: path, table: qt}, nil
}

// Get implements Store.
func (s *SQLite) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := ValidateKey(key); err != nil {
		return nil, false, err
	}
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM `+s.table+` WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state sqlite %s: read %q: %w", s.path, key, err)
	}
	if !json.Valid([]byte(v)) {
		return nil, false, &CorruptError{Path: s.path + " (" + s.table + " key " + key + ")", Err: errors.New("not valid JSON")}
	}
	return []byte(v), true, nil
}

// Put implements Store.
func (s *SQLite) Put(ctx context.Context, key string, value []byte) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if !json.Valid(value) {
		return fmt.Errorf("state value for %q is not valid JSON", key)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO `+s.table+` (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, string(value), time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("state sqlite %s: write %q: %w", s.path, key, err)
	}
	return nil
}

// Delete implements Store.
func (s *SQLite) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM `+s.table+` WHERE key = ?`, key); err != nil {
		return fmt.Errorf("state sqlite %s: delete %q: %w", s.path, key, err)
	}
	return nil
}

// Close implements Store.
func (s *SQLite) Close() error { return s.db.Close() }
