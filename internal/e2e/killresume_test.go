package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

// TestKillNineThenResumeExactlyOnce loads a large CSV into Postgres with
// delivery: exactly_once, kills the real faucet process with SIGKILL in
// the middle, reruns it, and checks in SQL that every source row is in the
// table exactly once (count, distinct count and checksum).
func TestKillNineThenResumeExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	base := connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		func(ctx context.Context, url string) error {
			c, err := pgx.Connect(ctx, url)
			if err != nil {
				return err
			}
			return c.Close(ctx)
		})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("e2e_kill_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")

	bin := faucetBinary(t)
	dir := t.TempDir()
	const rows = 400_000
	writeCSV(t, filepath.Join(dir, "in.csv"), rows)
	config := fmt.Sprintf(`version: 1
name: killed
delivery: exactly_once
pipeline:
  source:
    type: csv
    config: {path: in.csv, replication_key: id}
  transforms:
    - {type: cast, config: {fields: {id: int}}}
  sink:
    type: postgres
    config:
      connection_url: "%s"
      schema: %s
      table_name: items
      column_mapping: auto_map
      create_table: true
  state:
    type: file
    config: {path: state}
`, base, schema)
	if err := os.WriteFile(filepath.Join(dir, "faucet.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "run", "--quiet")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once rows are landing, well before the end.
	count := func() int64 {
		var n int64
		err := conn.QueryRow(ctx, "SELECT count(*) FROM "+schema+".items").Scan(&n)
		if err != nil {
			return -1 // the table does not exist yet
		}
		return n
	}
	deadline := time.Now().Add(60 * time.Second)
	for count() < 20_000 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("no rows after 60s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if n := count(); n <= 0 || n >= rows {
		t.Fatalf("after kill -9 the table has %d rows: the kill should land mid-load", n)
	}
	// Usually the state file is behind the sink's commit token here (it is
	// saved once a second): the rerun must start from the token.
	var token string
	_ = conn.QueryRow(ctx, "SELECT token FROM "+schema+"._faucet_commit_token").Scan(&token)
	stateData, _ := os.ReadFile(filepath.Join(dir, "state", "killed%3A%3Arow-0.json"))
	t.Logf("at the kill: table %d rows, sink token %s, state %s", count(), token, stateData)

	rerun := exec.Command(bin, "run", "--quiet")
	rerun.Dir = dir
	if out, err := rerun.CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	var n, distinct, sum int64
	err = conn.QueryRow(ctx, "SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0) FROM "+schema+".items").Scan(&n, &distinct, &sum)
	if err != nil {
		t.Fatal(err)
	}
	if n != rows || distinct != rows || sum != int64(rows)*(rows+1)/2 {
		t.Fatalf("table holds %d rows (%d distinct ids, sum %d); want %d once each (sum %d)", n, distinct, sum, rows, int64(rows)*(rows+1)/2)
	}
}
