package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/jackc/pgx/v5"
)

const defaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// testDB returns the server URL and a connection in a fresh schema that
// is dropped when the test ends.
func testDB(t testing.TB) (string, *pgx.Conn, string) {
	t.Helper()
	url := connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", defaultURL, func(ctx context.Context, url string) error {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("faucet_t_%d", rand.Uint64()%1e12)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(context.Background())
	})
	return url, conn, schema
}

func mustExec(t testing.TB, conn *pgx.Conn, q string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func count(t testing.TB, conn *pgx.Conn, q string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// fixture creates schema.t(id, name, score) with n rows.
func fixture(t testing.TB, conn *pgx.Conn, schema string, n int) {
	t.Helper()
	mustExec(t, conn, "CREATE TABLE "+schema+".t (id bigint PRIMARY KEY, name text, score double precision)")
	mustExec(t, conn, "INSERT INTO "+schema+".t SELECT g, 'name ' || g, g * 0.5 FROM generate_series(1, $1::int) g", n)
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

// dump renders rows of a query as JSON lines.
func dump(t testing.TB, url, q string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range collect(t, cfg("connection_url", url, "query", q), nil).Records {
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
