package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

func init() {
	connector.RegisterDiscover(connector.DiscoverSpec{
		Source:        "postgres",
		ConnectionKey: "connection_url",
		Discover:      discover,
	})
}

// discoverConfig is SourceConfig without its Validate: discovery needs
// only the connection, not a query or table.
type discoverConfig SourceConfig

// catalogQuery lists the columns of every base table (partitioned tables
// included, their partitions not) outside the system schemas that the
// role may read, with the position of each column in the primary key (0
// when it is not part of it). Domains are described by their base type,
// which is what query results carry.
const catalogQuery = `SELECT n.nspname, c.relname, c.reltuples::bigint,
	a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
	bt.typname, bt.typcategory,
	COALESCE((SELECT k.ord FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
		WHERE i.indrelid = c.oid AND i.indisprimary AND k.attnum = a.attnum), 0)
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type t ON t.oid = a.atttypid
JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
	AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
	AND has_table_privilege(c.oid, 'SELECT')
	AND ($1::text[] IS NULL OR n.nspname = ANY($1::text[]))
ORDER BY n.nspname, c.relname, a.attnum`

// discover lists the base tables of every non-system schema (or of
// opts.Schemas) as "schema.table" datasets. Each patch reads the table the
// way the config does: with table (and schema) when the config reads a
// table, else with a quoted SELECT * query, as faucet-cli 1.x did.
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
	conn, err := connect(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))

	var schemas []string
	if len(opts.Schemas) > 0 {
		schemas = opts.Schemas
	}
	rows, err := conn.Query(ctx, catalogQuery, schemas)
	if err != nil {
		return nil, fmt.Errorf("postgres: list tables: %s", pgMessage(err))
	}
	defer rows.Close()
	var out []connector.Dataset
	var names [][2]string // schema and table of out[i]
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
		var schema, table, col, dbType, typname, category string
		var est, pkOrd int64
		var notNull bool
		if err := rows.Scan(&schema, &table, &est, &col, &dbType, &notNull, &typname, &category, &pkOrd); err != nil {
			return nil, fmt.Errorf("postgres: list tables: %w", err)
		}
		if isBookkeeping(table) {
			continue
		}
		if len(out) == 0 || names[len(names)-1] != [2]string{schema, table} {
			flush()
			d := connector.Dataset{Name: schema + "." + table, Kind: "table"}
			if est >= 0 {
				d.EstimatedRows = &est
			}
			out = append(out, d)
			names = append(names, [2]string{schema, table})
			pk = map[int64]string{}
		}
		d := &out[len(out)-1]
		d.Columns = append(d.Columns, connector.Column{Name: col, DBType: dbType, Type: columnType(typname, category), Nullable: !notNull})
		if pkOrd > 0 {
			pk[pkOrd] = col
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list tables: %s", pgMessage(err))
	}
	flush()
	for i := range out {
		d := &out[i]
		schema, table := names[i][0], names[i][1]
		d.ReplicationKey = connector.SuggestReplicationKey(d.Columns, d.PrimaryKey)
		if cfg.Table != "" {
			d.Patch.Set("schema", connector.String(schema))
			d.Patch.Set("table", connector.String(table))
		} else {
			d.Patch.Set("query", connector.String("SELECT * FROM "+sqlutil.QuoteQualified(schema, table, '"')))
		}
		if d.ReplicationKey != "" {
			d.Patch.Set("replication_key", connector.String(d.ReplicationKey))
		}
	}
	return out, nil
}

// columnType is the kind of value the source emits for a column of base
// type typname (pg_type.typcategory category).
func columnType(typname, category string) connector.ColumnType {
	switch typname {
	case "int2", "int4", "int8", "oid":
		return connector.ColumnInteger
	case "float4", "float8":
		return connector.ColumnNumber
	case "numeric":
		return connector.ColumnDecimal
	case "bool":
		return connector.ColumnBoolean
	case "timestamp", "timestamptz":
		return connector.ColumnTimestamp
	case "date":
		return connector.ColumnDate
	case "json", "jsonb":
		return connector.ColumnJSON
	case "bytea":
		return connector.ColumnBinary
	}
	if category == "A" {
		return connector.ColumnArray
	}
	return connector.ColumnString
}

// isBookkeeping reports tables faucet's sinks create for themselves.
func isBookkeeping(table string) bool {
	return table == sqlutil.TokenTable || strings.HasSuffix(table, stagingSuffix)
}

// atPath places a config error of the connection keys under path.
func atPath(path string, err error) error {
	var ce *connector.ConfigError
	if errors.As(err, &ce) && !strings.HasPrefix(ce.Path, path) {
		return connector.ConfigErrorf(path+"."+ce.Path, "%s", ce.Msg)
	}
	return err
}
