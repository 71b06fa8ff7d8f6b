package sqlstore

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/faucet-hq/faucet/internal/history"
)

// Real driver errors, classified from their typed codes.
func TestClassifySQLiteDriverErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.db")
	holder, err := sql.Open("sqlite", "file:"+p+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.Exec("CREATE TABLE t (k TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec("INSERT INTO t VALUES ('a')"); err != nil {
		t.Fatal(err)
	}
	_, err = holder.Exec("INSERT INTO t VALUES ('a')")
	if ce := classify("", err); history.TransienceOf(ce) != history.Permanent {
		t.Fatalf("constraint violation (2067) must be permanent: %v", ce)
	}
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	other, err := sql.Open("sqlite", "file:"+p+"?_pragma=busy_timeout(0)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Exec("INSERT INTO t VALUES ('b')")
	if err == nil {
		t.Fatal("expected SQLITE_BUSY")
	}
	ce := classify("", err)
	if history.TransienceOf(ce) != history.Transient || !history.IsRetriable(ce) {
		t.Fatalf("SQLITE_BUSY must be transient: %v", ce)
	}
}

func TestClassifyPostgresDriverErrors(t *testing.T) {
	u := os.Getenv("FAUCET_TEST_POSTGRES_URL")
	if u == "" {
		u = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	db, err := sql.Open("pgx", u)
	if err == nil {
		err = db.PingContext(context.Background())
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Postgres unreachable under CI=true: %v", err)
		}
		t.Skipf("Postgres unreachable: %v", err)
	}
	defer db.Close()
	_, err = db.Exec("SELECT * FROM faucet_no_such_table_here")
	if ce := classify("", err); history.TransienceOf(ce) != history.Permanent || history.IsUnreachable(ce) {
		t.Fatalf("42P01 must be permanent: %v", ce)
	}
	_, err = db.Exec("SELECT 1/0")
	if ce := classify("", err); history.TransienceOf(ce) != history.Permanent {
		t.Fatalf("22012 must be permanent: %v", ce)
	}
	down, _ := sql.Open("pgx", "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=1")
	defer down.Close()
	err = down.Ping()
	if ce := classify("", err); !history.IsUnreachable(ce) || history.TransienceOf(ce) != history.Transient {
		t.Fatalf("refused connection must be unreachable+transient: %v", ce)
	}
}
