package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// discoverFixture creates a database with: a table of many types keyed by
// an id with an updated_at column, a table with a composite primary key
// and a name that needs quoting, a table without a key, a table keyed by
// a mixed-case integer column, a view, faucet's commit-token table and an
// overwrite staging table.
func discoverFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "disc.db")
	db := rawDB(t, path)
	for _, q := range []string{
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount NUMERIC, paid BOOLEAN,
			meta JSON, raw BLOB, day DATE, ratio REAL, note, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
			updated_at TIMESTAMP NOT NULL)`,
		`CREATE TABLE "Order Lines" (order_id BIGINT NOT NULL, line INT NOT NULL, qty INT, PRIMARY KEY (line, order_id))`,
		`CREATE TABLE events_log (msg TEXT, at DATETIME)`,
		`CREATE TABLE "Users" ("Id" INTEGER PRIMARY KEY, "Name" VARCHAR(40))`,
		`CREATE VIEW order_totals AS SELECT customer, sum(amount) AS total FROM orders GROUP BY customer`,
		`CREATE TABLE _faucet_commit_token (scope TEXT PRIMARY KEY, token TEXT)`,
		`CREATE TABLE orders__faucet_ovw (id INTEGER)`,
		`INSERT INTO orders (customer, amount, paid, meta, updated_at) VALUES ('a', 1.5, 1, '{"k":1}', '2024-01-01 10:00:00'),
			('b', 2, 0, NULL, '2024-01-01 11:30:00')`,
		`INSERT INTO "Order Lines" VALUES (1, 1, 3), (1, 2, 4)`,
		`INSERT INTO events_log VALUES ('x', NULL)`,
		`INSERT INTO "Users" VALUES (7, 'Ann'), (9, 'Bob')`,
	} {
		mustExec(t, db, q)
	}
	return path
}

func TestDiscoverTablesColumnsKeys(t *testing.T) {
	path := discoverFixture(t)
	ds, err := discover(context.Background(), connectortest.Cfg(t, "path", path, "query", "SELECT 1"), connector.DiscoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]connector.Dataset{}
	for _, d := range ds {
		names = append(names, d.Name)
		byName[d.Name] = d
	}
	if got := fmt.Sprint(names); got != "[Order Lines Users events_log orders]" {
		t.Fatalf("datasets %q (want byte order, no view, no bookkeeping tables)", names)
	}
	orders := byName["orders"]
	var cols []string
	for _, c := range orders.Columns {
		null := ""
		if c.Nullable {
			null = "?"
		}
		cols = append(cols, c.Name+":"+string(c.Type)+null)
	}
	wantCols := "id:integer customer:string amount:number? paid:boolean? meta:json? raw:binary? day:date? ratio:number? note:string? created_at:timestamp updated_at:timestamp"
	if got := strings.Join(cols, " "); got != wantCols {
		t.Errorf("orders columns\n got %s\nwant %s", got, wantCols)
	}
	// Not updated_at: see keyCandidates.
	if fmt.Sprint(orders.PrimaryKey) != "[id]" || orders.ReplicationKey != "id" || orders.EstimatedRows != nil {
		t.Errorf("orders: pk %v, replication key %q, estimate %v", orders.PrimaryKey, orders.ReplicationKey, orders.EstimatedRows)
	}
	if got := connector.Object(orders.Patch).String(); got != `{"query":"SELECT * FROM \"orders\"","replication_key":"id"}` {
		t.Errorf("orders patch %s", got)
	}
	lines := byName["Order Lines"]
	if fmt.Sprint(lines.PrimaryKey) != "[line order_id]" || lines.ReplicationKey != "" {
		t.Errorf("Order Lines: pk %v (want key order), replication key %q", lines.PrimaryKey, lines.ReplicationKey)
	}
	if ev := byName["events_log"]; len(ev.PrimaryKey) != 0 || ev.ReplicationKey != "" || !ev.Columns[1].Nullable {
		t.Errorf("events_log: %+v", ev)
	}
	if u := byName["Users"]; u.ReplicationKey != "Id" || u.Columns[0].Nullable || u.Columns[1].DBType != "VARCHAR(40)" {
		t.Errorf("Users (INTEGER PRIMARY KEY is the rowid, never NULL): %+v", u)
	}
}

// Every patch, merged over the connection config, reads its whole table,
// and a read from a saved bookmark reads exactly the newer rows.
func TestDiscoverPatchesReadAndResume(t *testing.T) {
	path := discoverFixture(t)
	wantRows := map[string]int{"orders": 2, "Order Lines": 2, "events_log": 1, "Users": 2}
	for _, form := range []string{"query", "table"} {
		tmpl := connectortest.Cfg(t, "path", path, "query", "SELECT 1")
		if form == "table" {
			tmpl = connectortest.Cfg(t, "database_url", "sqlite://"+path, "table", "placeholder")
		}
		ds, err := discover(context.Background(), tmpl, connector.DiscoverOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			r := connector.Record{}
			r.Set("path", connector.String(path))
			for _, f := range d.Patch.Fields {
				r.Set(f.Key, f.Value)
			}
			if _, ok := r.Get(form); !ok {
				t.Fatalf("%s: patch %s does not use %s", d.Name, connector.Object(d.Patch), form)
			}
			c := connector.Config{Path: "pipeline.source.config", Value: connector.Object(r)}
			res := collect(t, c, nil)
			if len(res.Records) != wantRows[d.Name] {
				t.Errorf("%s (%s): read %d rows, want %d", d.Name, form, len(res.Records), wantRows[d.Name])
			}
			if d.ReplicationKey == "" {
				continue
			}
			if again := collect(t, c, res.Bookmark); len(again.Records) != 0 {
				t.Errorf("%s: resumed read %d rows, want 0", d.Name, len(again.Records))
			}
			// From the first row's bookmark, exactly the second row is new.
			first := res.Records[0].Fields[0].Value
			if k, ok := res.Records[0].Get(d.ReplicationKey); ok {
				first = k
			}
			if again := collect(t, c, &first); len(again.Records) != 1 {
				t.Errorf("%s: read from bookmark %v: %d rows, want 1", d.Name, first, len(again.Records))
			}
		}
	}
}

func TestDiscoverEmptyAndErrors(t *testing.T) {
	ctx := context.Background()
	empty := filepath.Join(t.TempDir(), "empty.db")
	mustExec(t, rawDB(t, empty), "CREATE VIEW v AS SELECT 1 AS x")
	if ds, err := discover(ctx, connectortest.Cfg(t, "path", empty), connector.DiscoverOptions{}); err != nil || len(ds) != 0 {
		t.Fatalf("empty: %+v, %v", ds, err)
	}
	missing := filepath.Join(t.TempDir(), "nope.db")
	_, err := discover(ctx, connectortest.Cfg(t, "path", missing), connector.DiscoverOptions{})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("discovery created the missing file")
	}
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := discover(ctx, connectortest.Cfg(t, "path", junk), connector.DiscoverOptions{}); err == nil || !strings.Contains(err.Error(), "junk.db") {
		t.Errorf("not a database: %v", err)
	}
	_, err = discover(ctx, connectortest.Cfg(t, "query", "SELECT 1"), connector.DiscoverOptions{})
	var ce *connector.ConfigError
	if !errors.As(err, &ce) || ce.Path != "pipeline.config.path" {
		t.Errorf("no path: %v", err)
	}
	if _, err := discover(ctx, connectortest.Cfg(t, "path", empty), connector.DiscoverOptions{Schemas: []string{"main"}}); err == nil {
		t.Error("schemas accepted")
	}
}
