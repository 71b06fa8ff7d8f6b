// Package sqlite is the `sqlite` source and sink, on the pure-Go
// modernc.org/sqlite driver. The source streams a query or a table with
// typed values and optional incremental replication; the sink appends,
// upserts, deletes or overwrites (through a staging table swapped in one
// transaction), creating the table or adding columns when asked.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/sqlitewal"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "sqlite",
		Summary: "Read a SQLite query or table with typed values; optional incremental replication_key.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "sqlite",
		Summary: "Write records to a SQLite table: append, upsert, delete or overwrite; optional create_table and evolve_schema.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}

// maxParams is SQLite's bind-variable limit (SQLITE_MAX_VARIABLE_NUMBER).
const maxParams = 32766

// filePath strips the URL spellings faucet-cli 1.x accepted
// (sqlite://PATH, sqlite:PATH, file:PATH) and any query string.
func filePath(p string) string {
	for _, pre := range []string{"sqlite://", "sqlite:", "file:"} {
		if strings.HasPrefix(p, pre) {
			p = strings.TrimPrefix(p, pre)
			break
		}
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}

// pickPath returns path or database_url, whichever is set (exactly one).
func pickPath(path, dbURL string) (string, error) {
	switch {
	case path != "" && dbURL != "":
		return "", connector.ConfigErrorf("database_url", "give path or database_url, not both")
	case path == "" && dbURL == "":
		return "", connector.ConfigErrorf("path", "required key is missing (or give database_url)")
	case path != "":
		return filePath(path), nil
	}
	return filePath(dbURL), nil
}

// openDB opens the file read-only with a busy timeout.
func openDB(path string) (*sql.DB, error) {
	return openFile(path, url.Values{"mode": {"ro"}})
}

// openWriter opens (creating) the file with a busy timeout and switches it
// to WAL (see sqlitewal for why that is not a DSN pragma).
func openWriter(ctx context.Context, path string) (*sql.DB, error) {
	db, err := openFile(path, url.Values{})
	if err != nil {
		return nil, err
	}
	if err := sqlitewal.Enable(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

func openFile(path string, q url.Values) (*sql.DB, error) {
	q.Add("_pragma", "busy_timeout(5000)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}
