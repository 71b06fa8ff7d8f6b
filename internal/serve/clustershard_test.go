package serve

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/internal/history"
)

// Mode B in process (two servers on one Postgres schema), so the shard
// paths of the server run under the race detector. The real-process proof
// is internal/cluster/clustertest.

func shardedPipeline(url, key string, count int) string {
	return fmt.Sprintf(`version: 1
name: sharded
shard: {count: %d}
pipeline:
  source:
    type: postgres
    config: {url: %q, table: shard_src, shard: {key: %s}, batch_size: 100}
  sink:
    type: postgres
    config: {url: %q, table_name: shard_dst, column_mapping: auto_map}
`, count, url, key, url)
}

func TestClusterModeShardsARunAcrossServers(t *testing.T) {
	url := pgURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE shard_src (id BIGINT PRIMARY KEY, v BIGINT NOT NULL)",
		"INSERT INTO shard_src SELECT n, n * 7 FROM generate_series(1, 3000) n",
		"CREATE TABLE shard_dst (id BIGINT, v BIGINT)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	a := newClusterServer(t, url, "member-a", 2, nil)
	b := newClusterServer(t, url, "member-b", 2, nil)

	id := b.submit(map[string]any{"config": shardedPipeline(url, "id", 3)})["run_id"].(string)
	if m := a.wait(id); m["status"] != "completed" || m["error"] != nil {
		t.Fatalf("sharded run: %v", m)
	}
	var n, sum int64
	if err := db.QueryRow("SELECT COUNT(*), SUM(v) FROM shard_dst").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 3000 || sum != 7*3000*3001/2 {
		t.Fatalf("sink: %d rows, sum %d", n, sum)
	}
	p, err := a.h.ShardProgress(context.Background(), id)
	if err != nil || p != (history.ShardProgress{Total: 3, Completed: 3}) {
		t.Fatalf("shard progress %+v %v", p, err)
	}
	if finished := counterValue(t, a, "faucet_serve_runs_total") + counterValue(t, b, "faucet_serve_runs_total"); finished != 1 {
		t.Fatalf("the parent was counted %v times", finished)
	}

	// A shard key the source does not have fails the run at enumeration,
	// naming the column.
	bad := a.submit(map[string]any{"config": shardedPipeline(url, "nope", 3)})["run_id"].(string)
	m := b.wait(bad)
	msg, _ := m["error"].(string)
	if m["status"] != "failed" || !strings.Contains(msg, "enumerating shards") || !strings.Contains(msg, "nope") {
		t.Fatalf("run with a bad shard key: %v", m)
	}
}
