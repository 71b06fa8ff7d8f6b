package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

func init() {
	connector.RegisterDiscover(connector.DiscoverSpec{
		Source:        "mysql",
		ConnectionKey: "connection_url",
		Discover:      discover,
	})
}

// discoverConfig is SourceConfig without its Validate: discovery needs
// only the connection, not a query or table.
type discoverConfig SourceConfig

// catalogQuery lists the columns of the current database's base tables in
// byte order of table name, with each column's position in the primary
// key (0 when it is not part of it). CAST(... AS CHAR) because MySQL 8
// reports some information_schema columns with a binary collation.
const catalogQuery = `SELECT CAST(c.TABLE_NAME AS CHAR), CAST(c.COLUMN_NAME AS CHAR), CAST(c.DATA_TYPE AS CHAR),
	CAST(c.COLUMN_TYPE AS CHAR), CAST(c.IS_NULLABLE AS CHAR), t.TABLE_ROWS, COALESCE(s.SEQ_IN_INDEX, 0)
FROM information_schema.COLUMNS c
JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
LEFT JOIN information_schema.STATISTICS s ON s.TABLE_SCHEMA = c.TABLE_SCHEMA AND s.TABLE_NAME = c.TABLE_NAME
	AND s.COLUMN_NAME = c.COLUMN_NAME AND s.INDEX_NAME = 'PRIMARY'
WHERE t.TABLE_TYPE = 'BASE TABLE' AND c.TABLE_SCHEMA = DATABASE()
ORDER BY CAST(c.TABLE_NAME AS BINARY), c.ORDINAL_POSITION`

// discover lists the base tables of the database the connection URL
// names, as faucet-cli 1.x did. Each patch reads the table the way the
// config does: with table when the config reads a table, else with a
// quoted SELECT * query.
func discover(ctx context.Context, c connector.Config, opts connector.DiscoverOptions) ([]connector.Dataset, error) {
	var cfg discoverConfig
	if err := c.Decode(&cfg); err != nil {
		return nil, err
	}
	raw, key, err := pickURL(cfg.ConnectionURL, cfg.URL)
	if err == nil {
		err = checkURL(key, raw)
	}
	if err != nil {
		return nil, atPath(c.Path, err)
	}
	if len(opts.Schemas) > 0 {
		return nil, fmt.Errorf("mysql: schemas cannot be chosen: discovery lists the tables of the database the connection URL names")
	}
	db, err := open(raw)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("mysql: connect to %s: %s", sqlutil.RedactURL(raw), redactErr(raw, err))
	}
	var dbName sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&dbName); err != nil {
		return nil, fmt.Errorf("mysql: %s", redactErr(raw, err))
	}
	if !dbName.Valid {
		return nil, fmt.Errorf("mysql: %s names no database: discovery lists the tables of one database (mysql://user@host/DB)", sqlutil.RedactURL(raw))
	}
	out, err := listTables(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("mysql: list tables of database %q: %s", dbName.String, redactErr(raw, err))
	}
	for i := range out {
		d := &out[i]
		if cfg.Table != "" {
			// Read by table, the source parses MariaDB's JSON columns.
			isJSON := mariaJSONColumns(ctx, db, d.Name)
			for j, col := range d.Columns {
				if isJSON[col.Name] {
					d.Columns[j].Type = connector.ColumnJSON
				}
			}
		}
		d.ReplicationKey = connector.SuggestReplicationKey(d.Columns, d.PrimaryKey)
		if cfg.Table != "" {
			d.Patch.Set("table", connector.String(d.Name))
		} else {
			d.Patch.Set("query", connector.String("SELECT * FROM "+quote(d.Name)))
		}
		if d.ReplicationKey != "" {
			d.Patch.Set("replication_key", connector.String(d.ReplicationKey))
		}
	}
	return out, nil
}

// listTables runs catalogQuery and groups its rows by table.
func listTables(ctx context.Context, db *sql.DB) ([]connector.Dataset, error) {
	rows, err := db.QueryContext(ctx, catalogQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []connector.Dataset
	var pk map[int64]string
	flush := func() {
		if len(out) == 0 {
			return
		}
		d := &out[len(out)-1]
		for ord := int64(1); pk[ord] != ""; ord++ {
			d.PrimaryKey = append(d.PrimaryKey, pk[ord])
		}
	}
	for rows.Next() {
		var table, col, dataType, colType, nullable string
		var est sql.NullInt64
		var pkOrd int64
		if err := rows.Scan(&table, &col, &dataType, &colType, &nullable, &est, &pkOrd); err != nil {
			return nil, err
		}
		if isBookkeeping(table) {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Name != table {
			flush()
			d := connector.Dataset{Name: table, Kind: "table"}
			if est.Valid {
				n := est.Int64
				d.EstimatedRows = &n
			}
			out = append(out, d)
			pk = map[int64]string{}
		}
		d := &out[len(out)-1]
		d.Columns = append(d.Columns, connector.Column{
			Name: col, DBType: colType, Type: columnType(dataType), Nullable: strings.EqualFold(nullable, "YES"),
		})
		if pkOrd > 0 {
			pk[pkOrd] = col
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	flush()
	return out, nil
}

// columnType is the kind of value the source emits for a column of
// information_schema DATA_TYPE dataType.
func columnType(dataType string) connector.ColumnType {
	switch strings.ToLower(dataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year", "bit":
		return connector.ColumnInteger
	case "float", "double", "real":
		return connector.ColumnNumber
	case "decimal", "numeric":
		return connector.ColumnDecimal
	case "datetime", "timestamp":
		return connector.ColumnTimestamp
	case "date":
		return connector.ColumnDate
	case "json":
		return connector.ColumnJSON
	case "blob", "tinyblob", "mediumblob", "longblob", "binary", "varbinary", "geometry":
		return connector.ColumnBinary
	}
	return connector.ColumnString
}

// isBookkeeping reports tables faucet's sinks create for themselves.
func isBookkeeping(table string) bool {
	return table == sqlutil.TokenTable || strings.HasSuffix(table, stagingSuffix) || strings.HasSuffix(table, oldSuffix)
}

// atPath places a config error of the connection keys under path.
func atPath(path string, err error) error {
	var ce *connector.ConfigError
	if errors.As(err, &ce) && !strings.HasPrefix(ce.Path, path) {
		return connector.ConfigErrorf(path+"."+ce.Path, "%s", ce.Msg)
	}
	return err
}
