package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// discoverFixture creates: a table of many types keyed by an id with an
// updated_at column, a table with a composite primary key and a name that
// needs quoting, a table without a key, a table keyed by a mixed-case
// integer column, a view and faucet's commit-token table.
func discoverFixture(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []string{
		"CREATE TABLE orders (id BIGINT AUTO_INCREMENT PRIMARY KEY, customer VARCHAR(20) NOT NULL, amount DECIMAL(10,2), " +
			"paid TINYINT(1), meta JSON, raw BLOB, day DATE, ratio DOUBLE, " +
			"created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3))",
		"CREATE TABLE `Order Lines` (order_id BIGINT NOT NULL, line INT NOT NULL, qty INT, PRIMARY KEY (line, order_id))",
		"CREATE TABLE events_log (msg TEXT, at DATETIME NULL)",
		"CREATE TABLE `Users` (`Id` INT PRIMARY KEY, `Name` VARCHAR(40))",
		"CREATE VIEW order_totals AS SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer",
		"CREATE TABLE _faucet_commit_token (scope VARCHAR(64) PRIMARY KEY, token TEXT)",
		"INSERT INTO orders (customer, amount, paid, meta, updated_at) VALUES ('a', 1.5, 1, '{\"k\":1}', '2024-01-01 00:00:00'), ('b', 2, 0, NULL, '2024-01-02 00:00:00.500')",
		"INSERT INTO `Order Lines` VALUES (1, 1, 3), (1, 2, 4)",
		"INSERT INTO events_log VALUES ('x', NULL)",
		"INSERT INTO `Users` VALUES (7, 'Ann'), (9, 'Bob')",
	} {
		mustExec(t, db, q)
	}
}

func TestDiscoverTablesColumnsKeys(t *testing.T) {
	u, db := testDB(t)
	discoverFixture(t, db)
	ds, err := discover(context.Background(), cfg("connection_url", u, "query", "SELECT 1"), connector.DiscoverOptions{})
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
		t.Fatalf("datasets %q (want byte order, no view, no commit-token table)", names)
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
	// MariaDB declares JSON as longtext; read by query it is text.
	wantCols := "id:integer customer:string amount:decimal? paid:integer? meta:string? raw:binary? day:date? ratio:number? created_at:timestamp updated_at:timestamp"
	if got := strings.Join(cols, " "); got != wantCols {
		t.Errorf("orders columns\n got %s\nwant %s", got, wantCols)
	}
	if fmt.Sprint(orders.PrimaryKey) != "[id]" || orders.ReplicationKey != "updated_at" {
		t.Errorf("orders: pk %v, replication key %q", orders.PrimaryKey, orders.ReplicationKey)
	}
	if got := connector.Object(orders.Patch).String(); got != `{"query":"SELECT * FROM `+"`orders`"+`","replication_key":"updated_at"}` {
		t.Errorf("orders patch %s", got)
	}
	lines := byName["Order Lines"]
	if fmt.Sprint(lines.PrimaryKey) != "[line order_id]" || lines.ReplicationKey != "" {
		t.Errorf("Order Lines: pk %v (want key order), replication key %q", lines.PrimaryKey, lines.ReplicationKey)
	}
	if ev := byName["events_log"]; len(ev.PrimaryKey) != 0 || ev.ReplicationKey != "" || !ev.Columns[1].Nullable {
		t.Errorf("events_log: %+v", ev)
	}
	if u := byName["Users"]; u.ReplicationKey != "Id" || u.Columns[1].DBType != "varchar(40)" {
		t.Errorf("Users: %+v", u)
	}
}

// Every patch, merged over the connection config, reads its whole table,
// and a read from a saved bookmark reads exactly the newer rows.
func TestDiscoverPatchesReadAndResume(t *testing.T) {
	u, db := testDB(t)
	discoverFixture(t, db)
	wantRows := map[string]int{"orders": 2, "Order Lines": 2, "events_log": 1, "Users": 2}
	for _, form := range []string{"query", "table"} {
		tmpl := cfg("connection_url", u, "query", "SELECT 1")
		if form == "table" {
			tmpl = cfg("connection_url", u, "table", "placeholder")
		}
		ds, err := discover(context.Background(), tmpl, connector.DiscoverOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != len(wantRows) {
			t.Fatalf("%d datasets", len(ds))
		}
		for _, d := range ds {
			r := connector.Record{}
			r.Set("connection_url", connector.String(u))
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
			if form == "table" && d.Name == "orders" {
				if meta, _ := res.Records[0].Get("meta"); meta.Kind() != connector.KindObject || d.Columns[4].Type != connector.ColumnJSON {
					t.Errorf("orders.meta read by table: %v, reported %s", meta, d.Columns[4].Type)
				}
			}
			if d.ReplicationKey == "" {
				continue
			}
			if res.Bookmark == nil {
				t.Fatalf("%s: no bookmark with replication_key %s", d.Name, d.ReplicationKey)
			}
			if again := collect(t, c, res.Bookmark); len(again.Records) != 0 {
				t.Errorf("%s: resumed read %d rows, want 0", d.Name, len(again.Records))
			}
			// From the first row's key, exactly the second row is new.
			first, _ := res.Records[0].Get(d.ReplicationKey)
			if again := collect(t, c, &first); len(again.Records) != 1 {
				t.Errorf("%s: read from bookmark %v: %d rows, want 1", d.Name, first, len(again.Records))
			}
		}
	}
}

func TestDiscoverEmptyDatabase(t *testing.T) {
	u, _ := testDB(t)
	ds, err := discover(context.Background(), cfg("url", u), connector.DiscoverOptions{})
	if err != nil || len(ds) != 0 {
		t.Fatalf("datasets %+v, err %v", ds, err)
	}
}

func TestDiscoverErrors(t *testing.T) {
	u, _ := testDB(t)
	ctx := context.Background()
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "mysql" {
		t.Skipf("needs a mysql:// test URL, got %s", u)
	}
	cases := []struct {
		name, url, want string
		opts            connector.DiscoverOptions
	}{
		{"wrong password", withPassword(parsed, "sekret-pw"), "Access denied", connector.DiscoverOptions{}},
		{"unreachable", "mysql://root:sekret-pw@127.0.0.1:1/test?timeout=2s", "connect to mysql://root:***@127.0.0.1:1/test", connector.DiscoverOptions{}},
		{"no database", withPath(parsed, ""), "names no database", connector.DiscoverOptions{}},
		{"schemas", u, "schemas cannot be chosen", connector.DiscoverOptions{Schemas: []string{"x"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := discover(ctx, cfg("connection_url", tc.url), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "sekret-pw") {
				t.Errorf("got %v, want an error containing %q without the password", err, tc.want)
			}
		})
	}
	_, err = discover(ctx, cfg("query", "SELECT 1"), connector.DiscoverOptions{})
	var ce *connector.ConfigError
	if !errors.As(err, &ce) || ce.Path != "pipeline.config.connection_url" {
		t.Errorf("missing URL: %v", err)
	}
}

func withPassword(u *url.URL, pw string) string {
	c := *u
	c.User = url.UserPassword(u.User.Username(), pw)
	return c.String()
}

func withPath(u *url.URL, p string) string {
	c := *u
	c.Path = p
	return c.String()
}
