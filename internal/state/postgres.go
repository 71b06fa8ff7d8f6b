package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/pgcreate"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresConfig is the `config:` of `state: {type: postgres}`, as in
// faucet-cli 1.x.
type PostgresConfig struct {
	URL            connector.Secret `json:"url" required:"true" doc:"postgres://user:password@host:port/db"`
	Table          string           `json:"table" default:"faucet_state" doc:"Table name (letters, digits, _; at most 63)."`
	EnsureTable    bool             `json:"ensure_table" default:"true" doc:"Create the table when missing (faucet-cli 1.x defaulted to false and failed instead)."`
	MaxConnections int              `json:"max_connections" default:"5" doc:"Connection pool size (at least 1)."`
}

// Validate implements connector.Validator.
func (c *PostgresConfig) Validate() error {
	if strings.TrimSpace(c.URL.Reveal()) == "" {
		return connector.ConfigErrorf("url", "must not be empty")
	}
	if _, err := pgxpool.ParseConfig(c.URL.Reveal()); err != nil {
		return connector.ConfigErrorf("url", "not a valid connection URL")
	}
	if !tableName.MatchString(c.Table) {
		return connector.ConfigErrorf("table", "must be 1-63 letters, digits or _ (not starting with a digit), got %q", c.Table)
	}
	if c.MaxConnections < 1 {
		return connector.ConfigErrorf("max_connections", "must be at least 1, got %d", c.MaxConnections)
	}
	return nil
}

func init() {
	Register(Kind{
		Name:    "postgres",
		Summary: "one row per state key in a Postgres table (faucet-cli 1.x layout); atomic upserts, shared by many processes",
		Config:  &PostgresConfig{},
		Open: func(cfg connector.Config) (Store, error) {
			var c PostgresConfig
			if err := cfg.Decode(&c); err != nil {
				return nil, err
			}
			return OpenPostgres(context.Background(), c)
		},
	})
}

// Postgres keeps bookmarks in faucet-cli 1.x's table `(key TEXT PRIMARY
// KEY, value JSONB NOT NULL, updated_at TIMESTAMPTZ DEFAULT now())`. JSONB
// normalizes what it stores (object keys sorted by length then bytes,
// duplicates dropped); Get returns compact JSON text of the stored value,
// byte-identical for scalar and array bookmarks.
type Postgres struct {
	pool  *pgxpool.Pool
	table string
	where string // redacted URL for messages
}

// OpenPostgres connects and (with EnsureTable) creates the table.
func OpenPostgres(ctx context.Context, c PostgresConfig) (*Postgres, error) {
	where := redactURL(c.URL.Reveal())
	pc, err := pgxpool.ParseConfig(c.URL.Reveal())
	if err != nil {
		return nil, fmt.Errorf("state postgres %s: invalid url", where)
	}
	pc.MaxConns = int32(c.MaxConnections)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("state postgres %s: %s", where, scrub(err, c.URL.Reveal()))
	}
	s := &Postgres{pool: pool, table: pgx.Identifier{c.Table}.Sanitize(), where: where}
	if c.EnsureTable {
		ddl := `CREATE TABLE IF NOT EXISTS ` + s.table + ` (key TEXT PRIMARY KEY, value JSONB NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())`
		err = pgcreate.IfNotExists(ctx, pool, ddl)
	} else {
		err = pool.QueryRow(ctx, `SELECT 1 FROM `+s.table+` LIMIT 0`).Scan()
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("state postgres %s: table %s: %s", where, c.Table, scrub(err, c.URL.Reveal()))
	}
	return s, nil
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return strings.Replace(u.String(), ":xxxxx@", ":***@", 1)
}

func scrub(err error, raw string) string {
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "***")
		}
	}
	return msg
}

// Get implements Store.
func (s *Postgres) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := ValidateKey(key); err != nil {
		return nil, false, err
	}
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value::text FROM `+s.table+` WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state postgres %s: read %q: %w", s.where, key, err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(v)); err != nil {
		return nil, false, &CorruptError{Path: s.where + " (" + s.table + " key " + key + ")", Err: err}
	}
	return b.Bytes(), true, nil
}

// Put implements Store: one atomic upsert.
func (s *Postgres) Put(ctx context.Context, key string, value []byte) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if !json.Valid(value) {
		return fmt.Errorf("state value for %q is not valid JSON", key)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO `+s.table+` (key, value, updated_at) VALUES ($1, $2::text::jsonb, now())
		ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`, key, string(value))
	if err != nil {
		return fmt.Errorf("state postgres %s: write %q: %w", s.where, key, err)
	}
	return nil
}

// Delete implements Store.
func (s *Postgres) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM `+s.table+` WHERE key = $1`, key); err != nil {
		return fmt.Errorf("state postgres %s: delete %q: %w", s.where, key, err)
	}
	return nil
}

// Close implements Store.
func (s *Postgres) Close() error {
	s.pool.Close()
	return nil
}
