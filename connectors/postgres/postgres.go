// Package postgres is the `postgres` source and sink, on pgx's native
// protocol. The source streams a query or a table with typed values
// (numeric as exact text, timestamptz as RFC 3339 UTC, jsonb nested, bytea
// as base64, arrays) and optional incremental replication; the sink loads
// pages with COPY (the default for append) or multi-row INSERT, and
// upserts, deletes or overwrites (through a staging table swapped in one
// transaction), creating the table or adding columns when asked.
package postgres

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5"
)

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "postgres",
		Summary: "Read a Postgres query or table with typed values; optional incremental replication_key.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "postgres",
		Summary: "Write records to a Postgres table with COPY or INSERT: append, upsert, delete or overwrite.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}

// maxParams is the protocol's bind-parameter limit per statement.
const maxParams = 65535

// connect opens one connection; errors never show the password.
func connect(ctx context.Context, raw string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect to %s: %s", sqlutil.RedactURL(raw), redactErr(raw, err))
	}
	return conn, nil
}

// redactErr is err's text with the URL's password removed.
func redactErr(raw string, err error) string {
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "***")
		}
	}
	return msg
}

// checkURL validates a connection URL option at path.
func checkURL(path, raw string) error {
	if strings.TrimSpace(raw) == "" {
		return connector.ConfigErrorf(path, "required key is missing")
	}
	if _, err := pgx.ParseConfig(raw); err != nil {
		return connector.ConfigErrorf(path, "not a valid connection URL (%s): %s", sqlutil.RedactURL(raw), redactErr(raw, err))
	}
	return nil
}

// pickURL returns connection_url or url, whichever is set.
func pickURL(connURL, alias connector.Secret) (string, string, error) {
	switch {
	case connURL != "" && alias != "":
		return "", "", connector.ConfigErrorf("url", "give connection_url or url, not both")
	case alias != "":
		return alias.Reveal(), "url", nil
	}
	return connURL.Reveal(), "connection_url", nil
}
