// Package mysql is the `mysql` source and sink for MySQL and MariaDB, on
// go-sql-driver/mysql. The source streams a query or a table with typed
// values (DECIMAL as exact text, DATETIME/TIMESTAMP as RFC 3339, JSON
// nested, binary as base64) and optional incremental replication; the sink
// appends, upserts (ON DUPLICATE KEY UPDATE), deletes or overwrites
// (staging table swapped in with one atomic RENAME TABLE), creating the
// table or adding columns when asked.
package mysql

import (
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	driver "github.com/go-sql-driver/mysql"
)

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "mysql",
		Summary: "Read a MySQL/MariaDB query or table with typed values; optional incremental replication_key.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "mysql",
		Summary: "Write records to a MySQL/MariaDB table: append, upsert, delete or overwrite.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}

// maxParams is the server's prepared-statement placeholder limit; statements
// are kept under it even though parameters are interpolated client-side.
const maxParams = 65535

// ParseURL turns a connection URL (mysql://user:pass@host:port/db?params,
// as faucet-cli 1.x took it; mariadb:// too) or a go-sql-driver DSN
// (user:pass@tcp(host)/db) into a driver config, with no session settings.
func ParseURL(raw string) (*driver.Config, error) {
	dsnText := raw
	if strings.HasPrefix(raw, "mysql://") || strings.HasPrefix(raw, "mariadb://") {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("not a valid connection URL %s", sqlutil.RedactURL(raw))
		}
		host := u.Host
		if u.Port() == "" {
			host += ":3306"
		}
		user := ""
		if u.User != nil {
			user = u.User.Username()
			if p, ok := u.User.Password(); ok {
				user += ":" + p
			}
			user += "@"
		}
		dsnText = user + "tcp(" + host + ")/" + strings.TrimPrefix(u.Path, "/")
		if u.RawQuery != "" {
			dsnText += "?" + u.RawQuery
		}
	}
	cfg, err := driver.ParseDSN(dsnText)
	if err != nil {
		return nil, fmt.Errorf("not a valid connection URL or DSN %s", sqlutil.RedactURL(raw))
	}
	return cfg, nil
}

// dsn is ParseURL's config with UTC sessions and client-side interpolation
// (every value then comes back as text, decoded by column type).
func dsn(raw string) (*driver.Config, error) {
	cfg, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	cfg.InterpolateParams = true
	cfg.ParseTime = false
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	return cfg, nil
}

// open connects (one connection) and checks the server answers.
func open(raw string) (*sql.DB, error) {
	cfg, err := dsn(raw)
	if err != nil {
		return nil, err
	}
	conn, err := driver.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %s: %s", sqlutil.RedactURL(raw), redactErr(raw, err))
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db, nil
}

// redactErr is err's text without the password.
func redactErr(raw string, err error) string {
	msg := err.Error()
	if cfg, perr := dsn(raw); perr == nil && cfg.Passwd != "" {
		msg = strings.ReplaceAll(msg, cfg.Passwd, "***")
	}
	return msg
}

// checkURL validates the connection option at path.
func checkURL(path, raw string) error {
	if strings.TrimSpace(raw) == "" {
		return connector.ConfigErrorf(path, "required key is missing")
	}
	if _, err := dsn(raw); err != nil {
		return connector.ConfigErrorf(path, "%v", err)
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

func quote(name string) string { return sqlutil.QuoteIdent(name, '`') }
