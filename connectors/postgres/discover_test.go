package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/jackc/pgx/v5"
)

// discoverFixture creates, in schema: a table of many types keyed by an
// id with an updated_at column, a table with a composite primary key and
// a name that needs quoting, a table without a key, a table keyed by a
// mixed-case integer column, a view and faucet's commit-token table.
func discoverFixture(t *testing.T, conn *pgx.Conn, schema string) {
	t.Helper()
	for _, q := range []string{
		`CREATE TABLE ` + schema + `.orders (id bigserial PRIMARY KEY, customer text NOT NULL, amount numeric(10,2),
			paid boolean, meta jsonb, tags text[], raw bytea, day date, ratio double precision,
			created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL)`,
		`CREATE TABLE ` + schema + `."Order Lines" (order_id bigint NOT NULL, line int NOT NULL, qty int, PRIMARY KEY (line, order_id))`,
		`CREATE TABLE ` + schema + `.events_log (msg text, at timestamptz)`,
		`CREATE TABLE ` + schema + `."Users" ("Id" integer PRIMARY KEY, "Name" varchar(40))`,
		`CREATE VIEW ` + schema + `.order_totals AS SELECT customer, sum(amount) AS total FROM ` + schema + `.orders GROUP BY customer`,
		`CREATE TABLE ` + schema + `._faucet_commit_token (scope text PRIMARY KEY, token text)`,
		`INSERT INTO ` + schema + `.orders (customer, amount, paid, updated_at) VALUES ('a', 1.5, true, '2024-01-01T00:00:00Z'), ('b', 2, false, '2024-01-02T00:00:00.5Z')`,
		`INSERT INTO ` + schema + `."Order Lines" VALUES (1, 1, 3), (1, 2, 4)`,
		`INSERT INTO ` + schema + `.events_log VALUES ('x', NULL)`,
		`INSERT INTO ` + schema + `."Users" VALUES (7, 'Ann'), (9, 'Bob')`,
	} {
		mustExec(t, conn, q)
	}
}

func TestDiscoverTablesColumnsKeys(t *testing.T) {
	url, conn, schema := testDB(t)
	discoverFixture(t, conn, schema)
	ds, err := discover(context.Background(), cfg("connection_url", url, "query", "SELECT 1"), connector.DiscoverOptions{Schemas: []string{schema}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ds {
		names = append(names, d.Name)
	}
	want := []string{schema + ".Order Lines", schema + ".Users", schema + ".events_log", schema + ".orders"}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("datasets %q, want %q (no view, no commit-token table)", names, want)
	}
	byName := map[string]connector.Dataset{}
	for _, d := range ds {
		byName[strings.TrimPrefix(d.Name, schema+".")] = d
	}

	orders := byName["orders"]
	var cols []string
	for _, c := range orders.Columns {
		null := ""
		if c.Nullable {
			null = "?"
		}
		cols = append(cols, c.Name+":"+string(c.Type)+null+"("+c.DBType+")")
	}
	wantCols := "id:integer(bigint) customer:string(text) amount:decimal?(numeric(10,2)) paid:boolean?(boolean) " +
		"meta:json?(jsonb) tags:array?(text[]) raw:binary?(bytea) day:date?(date) ratio:number?(double precision) " +
		"created_at:timestamp(timestamp with time zone) updated_at:timestamp(timestamp with time zone)"
	if got := strings.Join(cols, " "); got != wantCols {
		t.Errorf("orders columns\n got %s\nwant %s", got, wantCols)
	}
	if fmt.Sprint(orders.PrimaryKey) != "[id]" || orders.ReplicationKey != "updated_at" || orders.Kind != "table" {
		t.Errorf("orders: pk %v, replication key %q, kind %q", orders.PrimaryKey, orders.ReplicationKey, orders.Kind)
	}
	if q, _ := orders.Patch.Get("query"); q.AsString() != `SELECT * FROM "`+schema+`"."orders"` {
		t.Errorf("orders patch %s", connector.Object(orders.Patch))
	}

	lines := byName["Order Lines"]
	if fmt.Sprint(lines.PrimaryKey) != "[line order_id]" || lines.ReplicationKey != "" {
		t.Errorf("Order Lines: pk %v (want key order), replication key %q", lines.PrimaryKey, lines.ReplicationKey)
	}
	if got := connector.Object(lines.Patch).String(); got != `{"query":"SELECT * FROM \"`+schema+`\".\"Order Lines\""}` {
		t.Errorf("Order Lines patch %s", got)
	}
	if ev := byName["events_log"]; len(ev.PrimaryKey) != 0 || ev.ReplicationKey != "" || !ev.Columns[1].Nullable {
		t.Errorf("events_log: %+v", ev)
	}
	if u := byName["Users"]; u.ReplicationKey != "Id" || u.Columns[1].DBType != "character varying(40)" {
		t.Errorf("Users: %+v", u)
	}
}

// Every patch, merged over the connection config, reads its whole table,
// and a read from a saved bookmark reads exactly the newer rows.
func TestDiscoverPatchesReadAndResume(t *testing.T) {
	url, conn, schema := testDB(t)
	discoverFixture(t, conn, schema)
	wantRows := map[string]int{"orders": 2, "Order Lines": 2, "events_log": 1, "Users": 2}
	for _, form := range []string{"query", "table"} {
		tmpl := cfg("connection_url", url, "query", "SELECT 1")
		if form == "table" {
			tmpl = cfg("connection_url", url, "table", "placeholder")
		}
		ds, err := discover(context.Background(), tmpl, connector.DiscoverOptions{Schemas: []string{schema}})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			r := connector.Record{}
			r.Set("connection_url", connector.String(url))
			for _, f := range d.Patch.Fields {
				r.Set(f.Key, f.Value)
			}
			if _, ok := r.Get(form); !ok {
				t.Fatalf("%s: patch %s does not use %s", d.Name, connector.Object(d.Patch), form)
			}
			c := connector.Config{Path: "pipeline.source.config", Value: connector.Object(r)}
			res := collect(t, c, nil)
			name := strings.TrimPrefix(d.Name, schema+".")
			if len(res.Records) != wantRows[name] {
				t.Errorf("%s (%s): read %d rows, want %d", d.Name, form, len(res.Records), wantRows[name])
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

func TestDiscoverSchemaFilterAndEmpty(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".only_one (x int)")
	ds, err := discover(context.Background(), cfg("url", url), connector.DiscoverOptions{Schemas: []string{schema, schema + "_absent"}})
	if err != nil || len(ds) != 1 || ds[0].Name != schema+".only_one" {
		t.Fatalf("datasets %+v, err %v", ds, err)
	}
	ds, err = discover(context.Background(), cfg("url", url), connector.DiscoverOptions{Schemas: []string{schema + "_absent"}})
	if err != nil || len(ds) != 0 {
		t.Fatalf("absent schema: datasets %+v, err %v", ds, err)
	}
}

func TestDiscoverErrors(t *testing.T) {
	url, _, _ := testDB(t)
	ctx := context.Background()
	_, err := discover(ctx, cfg("query", "SELECT 1"), connector.DiscoverOptions{})
	var ce *connector.ConfigError
	if !errors.As(err, &ce) || ce.Path != "pipeline.config.connection_url" {
		t.Errorf("missing URL: %v", err)
	}
	_, err = discover(ctx, cfg("connection_url", "postgres://app:sekret-pw@127.0.0.1:1/test?connect_timeout=2"), connector.DiscoverOptions{})
	if err == nil || !strings.Contains(err.Error(), "connect to postgres://app:***@127.0.0.1:1/test") || strings.Contains(err.Error(), "sekret-pw") {
		t.Errorf("unreachable: %v", err)
	}
	bad := strings.Replace(url, "postgres@", "no_such_role_xyz:sekret-pw@", 1)
	_, err = discover(ctx, cfg("connection_url", bad), connector.DiscoverOptions{})
	if err == nil || !strings.Contains(err.Error(), "no_such_role_xyz") || strings.Contains(err.Error(), "sekret-pw") {
		t.Errorf("unknown role: %v", err)
	}
}

// privatePostgres starts a throwaway server that checks passwords
// (scram-sha-256) for role postgres with password pw, and returns its URL
// without a password. The shared test server trusts every connection, so
// it cannot reject a wrong password.
func privatePostgres(t *testing.T, pw string) string {
	return connectortest.StartPrivatePostgres(t, pw).URL("postgres")
}

func TestDiscoverWrongPassword(t *testing.T) {
	base := privatePostgres(t, "right-pw")
	ctx := context.Background()
	with := func(pw string) string { return strings.Replace(base, "postgres@", "postgres:"+pw+"@", 1) }
	_, err := discover(ctx, cfg("connection_url", with("sekret-wrong")), connector.DiscoverOptions{})
	if err == nil || !strings.Contains(err.Error(), "password authentication failed") || strings.Contains(err.Error(), "sekret-wrong") {
		t.Errorf("wrong password: %v", err)
	}
	ds, err := discover(ctx, cfg("connection_url", with("right-pw")), connector.DiscoverOptions{})
	if err != nil || len(ds) != 0 {
		t.Errorf("right password on an empty server: %+v, %v", ds, err)
	}
}
