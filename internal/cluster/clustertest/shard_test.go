package clustertest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Mode B end to end: a Postgres table split by key range into shards that
// three members claim and copy into a Postgres sink.

// shardRows is the size of the sharded source table.
const shardRows = 1_000_000

// shardTable creates table name with ids 1..rows and v = id*3 (v = -1 at
// id bad, when bad > 0).
func (e *env) shardTable(name string, rows, bad int) {
	e.t.Helper()
	e.exec(fmt.Sprintf("CREATE TABLE %s (id BIGINT PRIMARY KEY, v BIGINT NOT NULL)", name))
	e.exec(fmt.Sprintf("INSERT INTO %s SELECT n, CASE WHEN n = %d THEN -1 ELSE n*3 END FROM generate_series(1, %d) n", name, bad, rows))
}

func (e *env) exec(q string) {
	e.t.Helper()
	if _, err := e.db.Exec(q); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}

// shardedRun copies table src into table dst, split into count shards,
// batch rows a page, with the sink's write_method.
func (e *env) shardedRun(src, dst string, count, batch int, method string) submission {
	cfg := fmt.Sprintf(`version: 1
shard: {count: %d}
pipeline:
  source:
    type: postgres
    config:
      url: %q
      table: %s
      shard: {key: id}
      batch_size: %d
  sink:
    type: postgres
    config:
      url: %q
      table_name: %s
      column_mapping: auto_map
      write_method: %s
`, count, e.pgURL, src, batch, e.pgURL, dst, method)
	return submission{Config: cfg, Callback: e.hooks.spec()}
}

// shardRow is one row of faucet_serve_shards.
type shardRow struct{ id, status, owner string }

func (e *env) shards(runID string) []shardRow {
	e.t.Helper()
	rows, err := e.db.Query(`SELECT shard_id, status, COALESCE(owner, '') FROM faucet_serve_shards WHERE run_id = $1 ORDER BY shard_id`, runID)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []shardRow
	for rows.Next() {
		var s shardRow
		if err := rows.Scan(&s.id, &s.status, &s.owner); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func (e *env) countSum(table string) (n, sum int64) {
	e.t.Helper()
	if err := e.db.QueryRow("SELECT COUNT(*), COALESCE(SUM(v), 0) FROM "+table).Scan(&n, &sum); err != nil {
		e.t.Fatal(err)
	}
	return n, sum
}

func (e *env) threeMembers(extra ...string) []*member {
	ms := []*member{e.start("a", "", extra...), e.start("b", "", extra...), e.start("c", "", extra...)}
	e.waitFor("three live members", 20*time.Second, func() bool { return len(ms[0].view().Instances) == 3 })
	return ms
}

func finishedTotal(ms []*member, status string) float64 {
	n := 0.0
	for _, m := range ms {
		n += m.metric("faucet_serve_runs_total", `status="`+status+`"`)
	}
	return n
}

// TestClusterShardedRunIntegration: 1M rows split four ways by key range
// across three members: the sink holds exactly the source's rows, every
// shard completed on a member, the parent completed once (one callback,
// counted once). A run whose source cannot be sharded runs whole. A row
// the sink rejects in one key range fails that shard and the parent with
// "1/4 shard(s) failed".
func TestClusterShardedRunIntegration(t *testing.T) {
	e := newEnv(t)
	e.shardTable("src", shardRows, 0)
	e.exec("CREATE TABLE dst (id BIGINT, v BIGINT)")
	ms := e.threeMembers("--max-concurrent-runs", "2")
	owners := map[string]string{}
	for _, m := range ms {
		owners[m.id] = m.name
	}

	id := ms[1].submit(e.shardedRun("src", "dst", 4, 2000, "copy"))
	got := e.waitTerminal([]string{id}, 120*time.Second)[id]
	if got.status != "completed" {
		t.Fatalf("sharded run: %s %q", got.status, got.errText)
	}
	wantN, wantSum := e.countSum("src")
	if n, sum := e.countSum("dst"); n != wantN || sum != wantSum || n != shardRows {
		t.Fatalf("sink holds %d rows summing to %d; the source %d rows summing to %d", n, sum, wantN, wantSum)
	}
	shards := e.shards(id)
	if len(shards) != 4 {
		t.Fatalf("%d shards, want 4: %+v", len(shards), shards)
	}
	ran := map[string]int{}
	for _, s := range shards {
		if s.status != "completed" || owners[s.owner] == "" {
			t.Fatalf("shard %s: %s on %q", s.id, s.status, s.owner)
		}
		ran[owners[s.owner]]++
	}
	t.Logf("shards per member: %v", ran)
	claimed := 0.0
	for _, m := range ms {
		claimed += m.metric("faucet_serve_shards_claimed_total")
	}
	if claimed != 4 {
		t.Fatalf("%v shard claims, want 4", claimed)
	}
	if n := finishedTotal(ms, "completed"); n != 1 {
		t.Fatalf("the parent was counted %v times", n)
	}

	// One shard only (a CSV source of one file): the run executes whole.
	whole := e.shortRun(nil, "")
	whole.Config = "shard: {count: 3}\n" + whole.Config
	wid := ms[0].submit(whole)
	if r := e.waitTerminal([]string{wid}, 30*time.Second)[wid]; r.status != "completed" || r.records != 2 {
		t.Fatalf("unshardable run: %s records=%d %q", r.status, r.records, r.errText)
	}
	if s := e.shards(wid); len(s) != 0 {
		t.Fatalf("an unshardable run has shards: %+v", s)
	}
	warned := 0
	for _, m := range ms {
		warned += m.stderr.count("the source's data set is a single shard")
	}
	if warned != 1 {
		t.Fatalf("%d members warned that the one-file csv source runs whole, want 1", warned)
	}

	// One key range holds a row the sink rejects (v = -1 violates dst2's
	// CHECK): that shard fails, and with it the parent.
	e.shardTable("src2", 20_000, 12_345)
	e.exec("CREATE TABLE dst2 (id BIGINT, v BIGINT CHECK (v >= 0))")
	fid := ms[2].submit(e.shardedRun("src2", "dst2", 4, 2000, "copy"))
	f := e.waitTerminal([]string{fid}, 60*time.Second)[fid]
	if f.status != "failed" || f.errText != "1/4 shard(s) failed" {
		t.Fatalf("run with a rejected row: %s %q", f.status, f.errText)
	}
	failed := 0
	for _, s := range e.shards(fid) {
		if s.status == "failed" {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("%d failed shards, want 1: %+v", failed, e.shards(fid))
	}
	if n := finishedTotal(ms, "failed"); n != 1 {
		t.Fatalf("the failed parent was counted %v times", n)
	}
	for _, m := range ms {
		m.stop()
	}
	for _, run := range []string{id, wid} {
		if cb := e.hooks.of(run); len(cb) != 1 || cb[0] != "completed" {
			t.Errorf("run %s: callbacks %v, want one completed", run, cb)
		}
	}
	if cb := e.hooks.of(fid); len(cb) != 1 || cb[0] != "failed" {
		t.Errorf("failed sharded run: callbacks %v, want one failed", cb)
	}
}

// TestClusterShardedRunCancelIntegration: cancelling a sharded run through
// any member stops its shards on every member (the sink is slowed by a
// per-row trigger so that the shards are still running); the parent then
// fails with every shard failed, as in faucet-cli 1.x.
func TestClusterShardedRunCancelIntegration(t *testing.T) {
	e := newEnv(t)
	e.shardTable("src", 40_000, 0)
	e.exec("CREATE TABLE dst (id BIGINT, v BIGINT)")
	e.exec(`CREATE FUNCTION slow_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.005); RETURN NEW; END $$`)
	e.exec("CREATE TRIGGER slow BEFORE INSERT ON dst FOR EACH ROW EXECUTE FUNCTION slow_row()")
	ms := e.threeMembers("--max-concurrent-runs", "2")
	// 100 rows an INSERT: about half a second of trigger time, so a shard
	// stops at the next page boundary soon after the cancel (a COPY
	// stream would first drain the pages already sent).
	id := ms[0].submit(e.shardedRun("src", "dst", 4, 100, "insert"))
	e.waitFor("all four shards running", 60*time.Second, func() bool {
		s := e.shards(id)
		if len(s) != 4 {
			return false
		}
		for _, r := range s {
			if r.status != "running" {
				return false
			}
		}
		return true
	})
	if r := ms[1].do("POST", "/v1/runs/"+id+"/cancel", nil); r.code != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", r.code, r.body)
	}
	got := e.waitTerminal([]string{id}, 20*time.Second)[id]
	if got.status != "failed" || got.errText != "4/4 shard(s) failed" {
		t.Fatalf("cancelled sharded run: %s %q", got.status, got.errText)
	}
	stopped := 0
	for _, m := range ms {
		stopped += m.stderr.count("stopping shard: its run was cancelled")
	}
	if stopped != 4 {
		t.Fatalf("%d shards stopped on cancel, want 4", stopped)
	}
	if n, _ := e.countSum("dst"); n >= 40_000 {
		t.Fatalf("the sink got all %d rows: the shards were not stopped", n)
	}
	for _, m := range ms {
		m.stop()
	}
	if cb := e.hooks.of(id); len(cb) != 1 || !strings.EqualFold(cb[0], "failed") {
		t.Errorf("callbacks %v, want one failed", cb)
	}
}

// TestClusterShardOwnerKilledIntegration: the member executing a shard is
// killed (-9) mid-shard; the shard's lease lapses, a peer reclaims and
// re-runs it, and the parent completes once. The sink upserts by id, so the
// rows the dead member wrote before dying are not counted twice: the sink
// ends with exactly the source's rows.
func TestClusterShardOwnerKilledIntegration(t *testing.T) {
	e := newEnv(t)
	const rows = 20_000
	e.shardTable("src", rows, 0)
	e.exec("CREATE TABLE dst (id BIGINT PRIMARY KEY, v BIGINT)")
	// About 1 ms a row: a shard of 5000 rows runs for several seconds.
	e.exec(`CREATE FUNCTION slow_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.001); RETURN NEW; END $$`)
	e.exec("CREATE TRIGGER slow BEFORE INSERT ON dst FOR EACH ROW EXECUTE FUNCTION slow_row()")
	ms := e.threeMembers("--max-concurrent-runs", "1")
	byID := map[string]*member{}
	for _, m := range ms {
		byID[m.id] = m
	}
	s := e.shardedRun("src", "dst", 4, 250, "insert")
	s.Config += "      write_mode: upsert\n      key: [id]\n"
	id := ms[0].submit(s)
	var victim *member
	var victimShard string
	e.waitFor("three shards running, one per member", 60*time.Second, func() bool {
		owners := map[string]string{}
		for _, r := range e.shards(id) {
			if r.status == "running" {
				owners[r.owner] = r.id
			}
		}
		if len(owners) < 3 {
			return false
		}
		for owner, shard := range owners {
			victim, victimShard = byID[owner], shard
		}
		return victim != nil
	})
	victim.kill()
	got := e.waitTerminal([]string{id}, 120*time.Second)[id]
	if got.status != "completed" {
		t.Fatalf("sharded run after its shard owner died: %s %q", got.status, got.errText)
	}
	wantN, wantSum := e.countSum("src")
	if n, sum := e.countSum("dst"); n != wantN || sum != wantSum {
		t.Fatalf("sink holds %d rows summing to %d; the source %d rows summing to %d", n, sum, wantN, wantSum)
	}
	var attempt, owner string
	if err := e.db.QueryRow("SELECT attempt, owner FROM faucet_serve_shards WHERE run_id = $1 AND shard_id = $2", id, victimShard).Scan(&attempt, &owner); err != nil {
		t.Fatal(err)
	}
	if attempt != "1" || owner == victim.id {
		t.Fatalf("the dead member's shard %s: attempt %s, owner %s (dead: %s); want reclaimed once and run by a survivor", victimShard, attempt, owner, victim.id)
	}
	var survivors []*member
	for _, m := range ms {
		if m != victim {
			survivors = append(survivors, m)
		}
	}
	if n := finishedTotal(survivors, "completed"); n != 1 {
		t.Fatalf("the parent was counted %v times", n)
	}
	for _, m := range survivors {
		m.stop()
	}
	if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "completed" {
		t.Errorf("callbacks %v, want one completed", cb)
	}
}

// TestClusterShardedCSVIntegration: a 1M-row CSV set of eight files split
// four ways by a hash of the file paths across three members arrives
// complete in a Postgres sink, and the parent completes once.
func TestClusterShardedCSVIntegration(t *testing.T) {
	e := newEnv(t)
	const files, perFile = 8, shardRows / 8
	dir := filepath.Join(e.dir, "csvset")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var wantSum int64
	for f := range files {
		var b strings.Builder
		b.WriteString("id,v\n")
		for i := range perFile {
			id := int64(f*perFile + i + 1)
			wantSum += id * 3
			fmt.Fprintf(&b, "%d,%d\n", id, id*3)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.exec("CREATE TABLE dstcsv (id BIGINT, v BIGINT)")
	ms := e.threeMembers("--max-concurrent-runs", "2")
	cfg := fmt.Sprintf(`version: 1
shard: {count: 4}
pipeline:
  source:
    type: csv
    config: {path: %q}
  sink:
    type: postgres
    config: {url: %q, table_name: dstcsv, column_mapping: auto_map}
`, filepath.Join(dir, "*.csv"), e.pgURL)
	id := ms[0].submit(submission{Config: cfg, Callback: e.hooks.spec()})
	got := e.waitTerminal([]string{id}, 120*time.Second)[id]
	if got.status != "completed" {
		t.Fatalf("sharded csv run: %s %q", got.status, got.errText)
	}
	if n, sum := e.countSum("dstcsv"); n != shardRows || sum != wantSum {
		t.Fatalf("sink holds %d rows summing to %d, want %d summing to %d", n, sum, shardRows, wantSum)
	}
	shards := e.shards(id)
	if len(shards) < 2 {
		t.Fatalf("%d shards: %+v", len(shards), shards)
	}
	for _, s := range shards {
		if s.status != "completed" {
			t.Fatalf("shard %s: %s", s.id, s.status)
		}
	}
	if n := finishedTotal(ms, "completed"); n != 1 {
		t.Fatalf("the parent was counted %v times", n)
	}
}
