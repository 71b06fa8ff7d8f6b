package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

func init() {
	connector.RegisterDiscover(connector.DiscoverSpec{
		Source:        "sqlite",
		ConnectionKey: "path",
		Discover:      discover,
	})
}

// discoverConfig is SourceConfig without its Validate: discovery needs
// only the file, not a query or table.
type discoverConfig SourceConfig

// discover lists the tables of the database file (sqlite_master, without
// SQLite's internal sqlite_* tables and without views), opened read-only.
// Each patch reads the table the way the config does: with table when the
// config reads a table, else with a quoted SELECT * query.
func discover(ctx context.Context, c connector.Config, opts connector.DiscoverOptions) ([]connector.Dataset, error) {
	var cfg discoverConfig
	if err := c.Decode(&cfg); err != nil {
		return nil, err
	}
	path, err := pickPath(cfg.Path, cfg.DatabaseURL)
	if err != nil {
		var ce *connector.ConfigError
		if errors.As(err, &ce) {
			return nil, connector.ConfigErrorf(c.Path+"."+ce.Path, "%s", ce.Msg)
		}
		return nil, err
	}
	if len(opts.Schemas) > 0 {
		return nil, fmt.Errorf("sqlite: schemas cannot be chosen: discovery lists the tables of the database file")
	}
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("sqlite: database file %s: %w", path, err)
	} else if st.IsDir() {
		return nil, fmt.Errorf("sqlite: database file %s is a directory", path)
	}
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master
		WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: list tables: %w", path, err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlite: %s: list tables: %w", path, err)
		}
		if !isBookkeeping(name) {
			tables = append(tables, name)
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: list tables: %w", path, err)
	}

	out := make([]connector.Dataset, 0, len(tables))
	for _, table := range tables {
		d, err := describeTable(ctx, db, table)
		if err != nil {
			return nil, fmt.Errorf("sqlite: %s: columns of table %q: %w", path, table, err)
		}
		d.ReplicationKey = connector.SuggestReplicationKey(keyCandidates(d.Columns), d.PrimaryKey)
		if cfg.Table != "" {
			d.Patch.Set("table", connector.String(table))
		} else {
			d.Patch.Set("query", connector.String("SELECT * FROM "+sqlutil.QuoteIdent(table, '"')))
		}
		if d.ReplicationKey != "" {
			d.Patch.Set("replication_key", connector.String(d.ReplicationKey))
		}
		out = append(out, d)
	}
	return out, nil
}

// describeTable reads a table's columns and primary key. SQLite keeps no
// row estimate, so EstimatedRows stays nil.
func describeTable(ctx context.Context, db *sql.DB, table string) (connector.Dataset, error) {
	d := connector.Dataset{Name: table, Kind: "table"}
	rows, err := db.QueryContext(ctx, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid", table)
	if err != nil {
		return d, err
	}
	defer rows.Close()
	pk := map[int]string{}
	for rows.Next() {
		var name, decl string
		var notNull, pkPos int
		if err := rows.Scan(&name, &decl, &notNull, &pkPos); err != nil {
			return d, err
		}
		d.Columns = append(d.Columns, connector.Column{Name: name, DBType: decl, Type: columnType(decl), Nullable: notNull == 0})
		if pkPos > 0 {
			pk[pkPos] = name
		}
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	for pos := 1; pk[pos] != ""; pos++ {
		d.PrimaryKey = append(d.PrimaryKey, pk[pos])
	}
	// An INTEGER PRIMARY KEY is the rowid: never NULL, whatever
	// table_info says.
	if len(d.PrimaryKey) == 1 {
		for i, c := range d.Columns {
			if c.Name == d.PrimaryKey[0] && strings.EqualFold(c.DBType, "INTEGER") {
				d.Columns[i].Nullable = false
			}
		}
	}
	return d, nil
}

// columnType is the kind of value the source emits for a column declared
// as decl, following SQLite's type affinity rules, after the declared
// types the source itself treats specially.
func columnType(decl string) connector.ColumnType {
	u := strings.ToUpper(strings.TrimSpace(decl))
	switch {
	case u == "BOOL" || u == "BOOLEAN":
		return connector.ColumnBoolean
	case u == "JSON" || u == "JSONB":
		return connector.ColumnJSON
	case strings.Contains(u, "INT"):
		return connector.ColumnInteger
	case strings.Contains(u, "DATETIME") || strings.Contains(u, "TIMESTAMP"):
		return connector.ColumnTimestamp
	case u == "DATE":
		return connector.ColumnDate
	case strings.Contains(u, "CHAR") || strings.Contains(u, "CLOB") || strings.Contains(u, "TEXT") || u == "":
		return connector.ColumnString
	case strings.Contains(u, "BLOB"):
		return connector.ColumnBinary
	}
	// REAL, FLOAT, DOUBLE and NUMERIC affinity.
	return connector.ColumnNumber
}

// keyCandidates leaves timestamp columns out of the replication key
// suggestion: the source emits them as RFC 3339 text ("...T10:00:00Z")
// and compares its bookmark as text with the stored value, so a table
// that stores "2024-01-01 11:30:00" (SQLite's CURRENT_TIMESTAMP format)
// would skip rows of the bookmark's day. An integer primary key is safe.
func keyCandidates(cols []connector.Column) []connector.Column {
	out := make([]connector.Column, 0, len(cols))
	for _, c := range cols {
		if c.Type != connector.ColumnTimestamp {
			out = append(out, c)
		}
	}
	return out
}

// isBookkeeping reports tables faucet's sinks create for themselves.
func isBookkeeping(table string) bool {
	return table == sqlutil.TokenTable || strings.HasSuffix(table, stagingSuffix)
}
