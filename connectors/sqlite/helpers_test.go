package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// fixture creates a database with table t(id, name, score) of n rows.
func fixture(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "src.db")
	db := rawDB(t, path)
	mustExec(t, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)`)
	mustExec(t, db, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ?)
		INSERT INTO t SELECT x, 'name ' || x, x * 0.5 FROM c`, n)
	return path
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func count(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func collect(t *testing.T, c connector.Config, start *connector.Value) connectortest.Result {
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

func write(t *testing.T, c connector.Config, recs ...[]connector.Record) *Sink {
	t.Helper()
	snk, err := newSink(c)
	if err != nil {
		t.Fatal(err)
	}
	var pages []*connector.Page
	for _, r := range recs {
		pages = append(pages, &connector.Page{Records: r})
	}
	if err := connectortest.WritePages(context.Background(), snk, pages...); err != nil {
		t.Fatal(err)
	}
	return snk.(*Sink)
}

// rec builds a record from alternating keys and values.
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
