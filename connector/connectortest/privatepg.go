package connectortest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// PostgresBin is where Debian's PostgreSQL 15 server binaries live.
const PostgresBin = "/usr/lib/postgresql/15/bin"

// PrivatePostgres is a throwaway Postgres server a test owns, so it can
// stop and start it, or require a password, without touching the
// machine's shared server.
type PrivatePostgres struct {
	t    testing.TB
	dir  string
	data string
	Port int
}

// StartPrivatePostgres initdbs a cluster as user postgres in a fresh temp
// dir and starts it on a free port of 127.0.0.1. With a non-empty
// password the superuser postgres needs it (scram-sha-256); otherwise
// every local connection is trusted. It needs root (to run the server as
// postgres) and the binaries in PostgresBin: without them the test is
// skipped, or failed under CI=true. The server is stopped at cleanup.
func StartPrivatePostgres(t testing.TB, password string) *PrivatePostgres {
	t.Helper()
	_, errInit := os.Stat(filepath.Join(PostgresBin, "initdb"))
	_, errCtl := os.Stat(filepath.Join(PostgresBin, "pg_ctl"))
	if errInit != nil || errCtl != nil || os.Geteuid() != 0 {
		msg := fmt.Sprintf("needs root and %s/initdb, pg_ctl to start a private Postgres", PostgresBin)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// Not t.TempDir: its parent is root-only, the server runs as postgres.
	dir, err := os.MkdirTemp("", "faucet-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &PrivatePostgres{t: t, dir: dir, data: filepath.Join(dir, "data"), Port: ln.Addr().(*net.TCPAddr).Port}
	ln.Close()
	auth := []string{"--auth=trust"}
	if password != "" {
		pw := filepath.Join(dir, "pw")
		if err := os.WriteFile(pw, []byte(password+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		auth = []string{"--auth=scram-sha-256", "--pwfile=" + pw}
	}
	if out, err := exec.Command("chown", "-R", "postgres", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown %s: %v %s", dir, err, out)
	}
	p.as(append([]string{filepath.Join(PostgresBin, "initdb"), "-D", p.data, "-U", "postgres"}, auth...)...)
	p.Start()
	t.Cleanup(func() {
		cmd := exec.Command("runuser", "-u", "postgres", "--", filepath.Join(PostgresBin, "pg_ctl"), "-D", p.data, "-m", "immediate", "stop")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("stop private postgres: %v %s", err, out)
		}
	})
	return p
}

func (p *PrivatePostgres) as(args ...string) {
	p.t.Helper()
	cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

func (p *PrivatePostgres) ctl(args ...string) {
	p.t.Helper()
	p.as(append([]string{filepath.Join(PostgresBin, "pg_ctl"), "-D", p.data, "-w", "-l", filepath.Join(p.dir, "log")}, args...)...)
}

// Start starts the server (again).
func (p *PrivatePostgres) Start() {
	p.t.Helper()
	p.ctl("start", "-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", p.Port, p.dir))
}

// Stop stops the server with a fast shutdown.
func (p *PrivatePostgres) Stop() { p.t.Helper(); p.ctl("-m", "fast", "stop") }

// URL is a connection URL for database db, as postgres without a password.
func (p *PrivatePostgres) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.Port, db)
}
