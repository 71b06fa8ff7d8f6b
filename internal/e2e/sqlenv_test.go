package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/faucet-hq/faucet/connector/connectortest"
	mysqlconn "github.com/faucet-hq/faucet/connectors/mysql"
)

// Helpers shared by the SQL fault tests (sqlfaults_test.go,
// overwrite_reader_test.go, sqlbadinput_test.go, killresume_test.go):
// a fresh Postgres schema or MariaDB database per test, and a real faucet
// process per run.

// pgDB is a fresh Postgres schema, dropped when the test ends.
type pgDB struct {
	url    string // the server URL (faucet connects with it)
	conn   *pgx.Conn
	schema string
}

func newPGDB(t *testing.T) *pgDB {
	t.Helper()
	u := connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		func(ctx context.Context, u string) error {
			c, err := pgx.Connect(ctx, u)
			if err != nil {
				return err
			}
			return c.Close(ctx)
		})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	e := &pgDB{url: u, conn: conn, schema: fmt.Sprintf("e2e_sql_%d", rand.Uint64()%1e12)}
	e.exec(t, "CREATE SCHEMA "+e.schema)
	t.Cleanup(func() {
		conn.Exec(context.Background(), "DROP SCHEMA "+e.schema+" CASCADE")
		conn.Close(context.Background())
	})
	return e
}

// withApp is the server URL with an application_name, so that a test can
// find faucet's own backends in pg_stat_activity.
func (e *pgDB) withApp(t *testing.T, name string) string {
	u, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

func (e *pgDB) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := e.conn.Exec(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// int64s runs a query returning one row of integers; ok is false when it
// fails (a table that does not exist yet).
func (e *pgDB) int64s(q string, n int) ([]int64, bool) {
	out := make([]int64, n)
	ptrs := make([]any, n)
	for i := range out {
		ptrs[i] = &out[i]
	}
	err := e.conn.QueryRow(context.Background(), q).Scan(ptrs...)
	return out, err == nil
}

// seed creates schema.name(id bigint primary key, name text, amount
// numeric) holding ids from..to, named as writeCSV names them.
func (e *pgDB) seed(t *testing.T, name string, from, to int) {
	t.Helper()
	e.exec(t, "CREATE TABLE IF NOT EXISTS "+e.schema+"."+name+" (id bigint PRIMARY KEY, name text, amount numeric(12,2))")
	e.exec(t, "INSERT INTO "+e.schema+"."+name+
		" (id, name, amount) SELECT g, 'name-' || (g % 97), (g % 10000) + (g % 100) / 100.0 FROM generate_series($1::bigint, $2::bigint) g", from, to)
}

// myDB is a fresh MariaDB database, dropped when the test ends.
type myDB struct {
	base string  // the server URL
	url  string  // the URL of the test database
	db   *sql.DB // root on the test database
	name string
}

func newMyDB(t *testing.T) *myDB {
	t.Helper()
	base := connectortest.ServiceURL(t, "FAUCET_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test",
		func(ctx context.Context, u string) error {
			db, err := sql.Open("mysql", myDSN(t, u, ""))
			if err != nil {
				return err
			}
			defer db.Close()
			return db.PingContext(ctx)
		})
	name := fmt.Sprintf("e2e_sql_%d", rand.Uint64()%1e12)
	admin, err := sql.Open("mysql", myDSN(t, base, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", myDSN(t, base, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		admin.Exec("DROP DATABASE " + name)
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return &myDB{base: base, url: u.String(), db: db, name: name}
}

// myDSN is the go-sql-driver DSN of the server at raw (a mysql:// URL or
// a DSN), on database db (the URL's when empty), accepting scripts.
func myDSN(t *testing.T, raw, db string) string {
	cfg, err := mysqlconn.ParseURL(raw)
	if err != nil {
		t.Fatalf("FAUCET_TEST_MYSQL_URL: %v", err)
	}
	if db != "" {
		cfg.DBName = db
	}
	cfg.MultiStatements = true
	return cfg.FormatDSN()
}

func (e *myDB) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := e.db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (e *myDB) int64s(q string, n int) ([]int64, bool) {
	out := make([]int64, n)
	ptrs := make([]any, n)
	for i := range out {
		ptrs[i] = &out[i]
	}
	err := e.db.QueryRow(q).Scan(ptrs...)
	return out, err == nil
}

// seed creates name(id, name, amount) holding ids from..to, named as
// writeCSV names them.
func (e *myDB) seed(t *testing.T, name string, from, to int) {
	t.Helper()
	e.exec(t, "CREATE TABLE IF NOT EXISTS "+name+" (id BIGINT PRIMARY KEY, name VARCHAR(32), amount DECIMAL(12,2))")
	// One session: the recursion limit is a session variable.
	e.exec(t, fmt.Sprintf(`SET SESSION max_recursive_iterations = 100000000;
		INSERT INTO %s (id, name, amount) WITH RECURSIVE c(x) AS (SELECT %d UNION ALL SELECT x + 1 FROM c WHERE x < %d)
		SELECT x, CONCAT('name-', x %% 97), (x %% 10000) + (x %% 100) / 100 FROM c`, name, from, to))
}

// userURL is the test database's URL as user:password.
func (e *myDB) userURL(t *testing.T, user, password string) string {
	u, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}

// writeConfig writes dir/faucet.yaml.
func writeConfig(t *testing.T, dir, config string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "faucet.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runFaucet runs the binary in dir to the end.
func runFaucet(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(faucetBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// faucetProc is a faucet run in the background.
type faucetProc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

func startFaucet(t *testing.T, dir string, args ...string) *faucetProc {
	t.Helper()
	p := &faucetProc{cmd: exec.Command(faucetBinary(t), args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "NO_COLOR=1")
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// exited reports whether the process has ended.
func (p *faucetProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits for the end and returns the exit status and stderr.
func (p *faucetProc) wait() (int, string) {
	<-p.done
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), p.stderr.String()
	}
	if p.err != nil {
		return -1, p.stderr.String()
	}
	return 0, p.stderr.String()
}

// pollUntil polls cond until it holds; the process ending first, or a
// minute passing, fails the test.
func pollUntil(t *testing.T, p *faucetProc, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if p != nil && p.exited() {
			code, stderr := p.wait()
			t.Fatalf("faucet ended (status %d) before %s\n%s", code, what, stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after a minute", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stateFile returns the saved state of a row, if any.
func stateFile(t *testing.T, dir, pipeline string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "state", pipeline+"%3A%3Arow-0.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data), true
}
