package clustertest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// eoRows is the size of the exactly-once failover's source table.
const eoRows = 300_000

// exactlyOnceRun copies table src into table dst with delivery:
// exactly_once: an incremental source (replication_key: id), batch rows a
// page, and a Postgres state store in the test database that every member
// shares, so a run taken over resumes from the dead member's progress.
// With shards > 0 the run is split by key range into that many shards
// (each with its own state key).
func (e *env) exactlyOnceRun(src, dst string, batch, shards int) submission {
	head := "version: 1\nname: eo_failover\ndelivery: exactly_once\n"
	shardKey := ""
	if shards > 0 {
		head += fmt.Sprintf("shard: {count: %d}\n", shards)
		shardKey = "\n      shard: {key: id}"
	}
	cfg := head + fmt.Sprintf(`pipeline:
  source:
    type: postgres
    config:
      url: %q
      table: %s
      replication_key: id%s
      batch_size: %d
  sink:
    type: postgres
    config:
      url: %q
      table_name: %s
      column_mapping: auto_map
  state:
    type: postgres
    config: {url: %q}
`, e.pgURL, src, shardKey, batch, e.pgURL, dst, e.pgURL)
	return submission{Config: cfg, Callback: e.hooks.spec()}
}

// idCountSum is COUNT(*), COUNT(DISTINCT id) and SUM(id) of table.
func (e *env) idCountSum(table string) (n, distinct, sum int64) {
	e.t.Helper()
	if err := e.db.QueryRow("SELECT COUNT(*), COUNT(DISTINCT id), COALESCE(SUM(id), 0) FROM "+table).Scan(&n, &distinct, &sum); err != nil {
		e.t.Fatal(err)
	}
	return n, distinct, sum
}

// eoTables creates src (ids 1..eoRows) and dst, a destination without a
// key (a duplicate would stay visible) whose every INSERT or COPY
// statement takes about 50 ms more (a statement-level trigger), so that a
// copy of small pages runs for several seconds.
func (e *env) eoTables() {
	e.t.Helper()
	e.shardTable("src", eoRows, 0)
	e.exec("CREATE TABLE dst (id BIGINT, v BIGINT)")
	e.exec(`CREATE FUNCTION slow_page() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.05); RETURN NULL; END $$`)
	e.exec("CREATE TRIGGER slow AFTER INSERT ON dst FOR EACH STATEMENT EXECUTE FUNCTION slow_page()")
}

// exactCopy checks in SQL that dst holds every row of src exactly once:
// the count, the distinct ids, the sum of the ids, and the rows equal to
// their source row.
func (e *env) exactCopy() {
	e.t.Helper()
	wantN, wantDistinct, wantSum := e.idCountSum("src")
	n, distinct, sum := e.idCountSum("dst")
	if n != wantN || distinct != wantDistinct || sum != wantSum || n != eoRows {
		e.t.Fatalf("destination: %d rows, %d distinct ids, sum(id) %d; source: %d rows, %d distinct ids, sum(id) %d",
			n, distinct, sum, wantN, wantDistinct, wantSum)
	}
	var matching int64
	if err := e.db.QueryRow("SELECT COUNT(*) FROM dst d JOIN src s ON s.id = d.id AND s.v = d.v").Scan(&matching); err != nil {
		e.t.Fatal(err)
	}
	if matching != eoRows {
		e.t.Fatalf("%d destination rows equal their source row, want %d", matching, eoRows)
	}
}

// committedPages is how many pages the sink committed under the state key
// ending in suffix (the sequence number of its commit token), 0 if none.
func (e *env) committedPages(suffix string) int64 {
	e.t.Helper()
	var seq int64
	err := e.db.QueryRow(`SELECT COALESCE(MAX(split_part(token, '#', 1)::BIGINT), 0) FROM _faucet_commit_token WHERE scope LIKE '%' || $1`, suffix).Scan(&seq)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
		// A shard is "running" before its sink has opened: no sink has
		// created the token table yet, so nothing is committed.
		return 0
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return seq
}

// rejoin restarts the killed member as a new process and waits until every
// live member sees it and no longer sees the dead one.
func (e *env) rejoin(dead *member, survivors []*member) []*member {
	e.t.Helper()
	back := e.start(dead.name+"2", "")
	if back.id == dead.id {
		e.t.Fatal("a restarted process must be a new member")
	}
	live := append(append([]*member(nil), survivors...), back)
	e.waitFor("the restarted member to join and the dead one to leave", 20*time.Second, func() bool {
		for _, m := range live {
			v := m.view()
			if !v.has(back.id) || v.has(dead.id) || len(v.Instances) != len(live) {
				return false
			}
		}
		return true
	})
	return live
}

// TestClusterFailoverExactlyOnceIntegration: the member running an
// exactly-once copy of 300k rows is killed (-9) mid-load; after the lease a
// survivor takes the run over (attempt 1), resumes from the sink's commit
// token and completes it. The destination, which has no key that could
// absorb a duplicate, then holds every source row exactly once; the run
// ends once (one callback, counted once); the killed member restarts as a
// new member and rejoins.
func TestClusterFailoverExactlyOnceIntegration(t *testing.T) {
	e := newEnv(t)
	e.eoTables()
	ms := e.threeMembers()
	byID := map[string]*member{}
	for _, m := range ms {
		byID[m.id] = m
	}

	id := ms[0].submit(e.exactlyOnceRun("src", "dst", 2000, 0))
	var victim *member
	e.waitFor("the run to be running with part of the rows written", 60*time.Second, func() bool {
		r := e.runs()[id]
		if r.status != "running" {
			if terminal(r.status) {
				t.Fatalf("run %s ended before the kill: %s %q", id, r.status, r.errText)
			}
			return false
		}
		n, _, _ := e.idCountSum("dst")
		victim = byID[r.owner]
		return victim != nil && n >= 20_000
	})
	victim.kill()
	atKill, _, _ := e.idCountSum("dst")
	if atKill >= eoRows {
		t.Fatalf("after kill -9 the destination has %d rows: the kill should land mid-load", atKill)
	}
	// The dead member committed pages: a rerun from the start would
	// duplicate them in the keyless destination.
	pages := e.committedPages("")
	if pages == 0 {
		t.Fatal("no commit token at the kill: the dead member committed nothing")
	}
	t.Logf("killed %s (%s) with %d of %d rows (%d pages) in the destination", victim.name, victim.id, atKill, eoRows, pages)

	got := e.waitTerminal([]string{id}, 120*time.Second)[id]
	if got.status != "completed" {
		t.Fatalf("run after its owner died: %s %q", got.status, got.errText)
	}
	if got.attempt != 1 || got.owner == victim.id || byID[got.owner] == nil {
		t.Fatalf("run %s: attempt %d on %q (killed: %s); want attempt 1 on a survivor", id, got.attempt, got.owner, victim.id)
	}
	e.exactCopy()
	t.Logf("attempt 1 on %s wrote %d records", byID[got.owner].name, got.records)

	var survivors []*member
	for _, m := range ms {
		if m != victim {
			survivors = append(survivors, m)
		}
	}
	if c := finishedTotal(survivors, "completed"); c != 1 {
		t.Fatalf("the run was counted completed %v times", c)
	}

	// The killed member restarts: a new member id, seen by every member;
	// the dead id leaves the live set.
	for _, m := range e.rejoin(victim, survivors) {
		m.stop()
	}
	if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "completed" {
		t.Errorf("callbacks %v, want exactly one completed", cb)
	}
}

// TestClusterShardOwnerKilledExactlyOnceIntegration: the same copy split
// into three shards by key range (mode B), one shard per member; the owner
// of a running shard is killed (-9). A survivor reclaims the shard (attempt
// 1) and resumes it from its own commit token; the parent completes once
// and the destination holds every source row exactly once. The killed
// member restarts and rejoins.
func TestClusterShardOwnerKilledExactlyOnceIntegration(t *testing.T) {
	e := newEnv(t)
	e.eoTables()
	ms := e.threeMembers("--max-concurrent-runs", "1")
	byID := map[string]*member{}
	for _, m := range ms {
		byID[m.id] = m
	}

	id := ms[0].submit(e.exactlyOnceRun("src", "dst", 1000, 3))
	var victim *member
	var victimShard string
	e.waitFor("three shards running, one per member, the victim's with pages committed", 60*time.Second, func() bool {
		owners := map[string]string{}
		for _, s := range e.shards(id) {
			if s.status == "running" {
				owners[s.owner] = s.id
			}
		}
		if len(owners) < 3 {
			return false
		}
		for owner, shard := range owners {
			victim, victimShard = byID[owner], shard
		}
		return victim != nil && e.committedPages("::"+victimShard) >= 5
	})
	victim.kill()
	atKill, _, _ := e.idCountSum("dst")
	if atKill >= eoRows {
		t.Fatalf("after kill -9 the destination has %d rows: the kill should land mid-load", atKill)
	}
	pages := e.committedPages("::" + victimShard)
	if pages == 0 {
		t.Fatalf("no commit token of shard %s at the kill: the dead member committed nothing of it", victimShard)
	}
	t.Logf("killed %s (%s), owner of shard %s (%d pages committed), with %d of %d rows in the destination", victim.name, victim.id, victimShard, pages, atKill, eoRows)

	got := e.waitTerminal([]string{id}, 120*time.Second)[id]
	if got.status != "completed" {
		t.Fatalf("sharded run after a shard owner died: %s %q", got.status, got.errText)
	}
	var attempt, owner string
	if err := e.db.QueryRow("SELECT attempt, owner FROM faucet_serve_shards WHERE run_id = $1 AND shard_id = $2", id, victimShard).Scan(&attempt, &owner); err != nil {
		t.Fatal(err)
	}
	if attempt != "1" || owner == victim.id || byID[owner] == nil {
		t.Fatalf("the dead member's shard %s: attempt %s, owner %s (dead: %s); want reclaimed once and run by a survivor", victimShard, attempt, owner, victim.id)
	}
	for _, s := range e.shards(id) {
		if s.status != "completed" {
			t.Fatalf("shard %s: %s on %s", s.id, s.status, s.owner)
		}
	}
	e.exactCopy()

	var survivors []*member
	for _, m := range ms {
		if m != victim {
			survivors = append(survivors, m)
		}
	}
	if c := finishedTotal(survivors, "completed"); c != 1 {
		t.Fatalf("the parent was counted completed %v times", c)
	}
	for _, m := range e.rejoin(victim, survivors) {
		m.stop()
	}
	if cb := e.hooks.of(id); len(cb) != 1 || cb[0] != "completed" {
		t.Errorf("callbacks %v, want exactly one completed", cb)
	}
}
