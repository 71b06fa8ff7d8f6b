package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

const defaultURL = "mysql://root@127.0.0.1:3306/test"

// testDB returns a URL of a fresh database (dropped when the test ends)
// and a connection to it.
func testDB(t testing.TB) (string, *sql.DB) {
	t.Helper()
	base := connectortest.ServiceURL(t, "FAUCET_TEST_MYSQL_URL", defaultURL, func(ctx context.Context, u string) error {
		db, err := open(u)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	})
	admin, err := open(base)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("faucet_t_%d", rand.Uint64()%1e12)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name)
		admin.Close()
	})
	u := withDB(t, base, name)
	db, err := open(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return u, db
}

// withDB replaces the database of a mysql:// URL or a DSN.
func withDB(t testing.TB, raw, name string) string {
	if strings.HasPrefix(raw, "mysql://") {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		return u.String()
	}
	cfg, err := dsn(raw)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = name
	return cfg.FormatDSN()
}

func mustExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func count(t testing.TB, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// fixture creates t(id, name, score) with n rows.
func fixture(t testing.TB, db *sql.DB, n int) {
	t.Helper()
	mustExec(t, db, "DROP TABLE IF EXISTS t")
	mustExec(t, db, "CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR(64), score DOUBLE)")
	if n > 0 {
		// One session: the recursion limit is a session variable.
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(context.Background(), "SET SESSION max_recursive_iterations = 100000000"); err != nil {
			t.Log(err) // MySQL has cte_max_recursion_depth instead
			conn.ExecContext(context.Background(), "SET SESSION cte_max_recursion_depth = 100000000")
		}
		if _, err := conn.ExecContext(context.Background(), `INSERT INTO t WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
			SELECT x, CONCAT('name ', x), x * 0.5 FROM c`, n); err != nil {
			t.Fatal(err)
		}
	}
}

func cfg(kv ...any) connector.Config {
	var fields []connector.KeyValue
	for i := 0; i < len(kv); i += 2 {
		fields = append(fields, connector.KeyValue{Key: kv[i].(string), Value: kv[i+1]})
	}
	v, err := connector.FromAny(fields)
	if err != nil {
		panic(err)
	}
	return connector.Config{Path: "pipeline.config", Value: v}
}

func collect(t testing.TB, c connector.Config, start *connector.Value) connectortest.Result {
	t.Helper()
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := connectortest.Collect(context.Background(), src, start)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func dump(t testing.TB, u, q string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range collect(t, cfg("connection_url", u, "query", q), nil).Records {
		b.WriteString(connector.Object(r).String())
		b.WriteByte('\n')
	}
	return b.String()
}

func write(t testing.TB, c connector.Config, pages ...[]connector.Record) error {
	t.Helper()
	snk, err := newSink(c)
	if err != nil {
		t.Fatal(err)
	}
	var ps []*connector.Page
	for _, r := range pages {
		ps = append(ps, &connector.Page{Records: r})
	}
	return connectortest.WritePages(context.Background(), snk, ps...)
}

func rec(kv ...any) connector.Record {
	var r connector.Record
	for i := 0; i < len(kv); i += 2 {
		v, err := connector.FromAny(kv[i+1])
		if err != nil {
			panic(err)
		}
		r.Set(kv[i].(string), v)
	}
	return r
}

// dumpTable renders a whole table (read with `table`, so MariaDB JSON
// columns are known) as JSON lines.
func dumpTable(t testing.TB, u, table string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range collect(t, cfg("connection_url", u, "table", table), nil).Records {
		b.WriteString(connector.Object(r).String())
		b.WriteByte('\n')
	}
	return b.String()
}
