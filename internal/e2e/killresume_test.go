package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// TestKillNineThenResume loads a table with a real faucet faucetProc, kills
// it with SIGKILL in the middle of the load, reruns it, and checks in SQL
// that every source row is in the destination exactly once: the count,
// the distinct count and the sum of the ids, and the number of rows whose
// content matches their id. Right after the kill it also checks that the
// saved bookmark never runs ahead of what the destination committed.
func TestKillNineThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	for _, tc := range []struct {
		name  string
		rows  int
		setup func(t *testing.T, dir string, rows int) *killDest
	}{
		{"csv to postgres, exactly_once", 400_000, csvToPostgresExactlyOnce},
		{"incremental postgres to mariadb, exactly_once", 300_000, postgresToMariaDBExactlyOnce},
		{"incremental mariadb to postgres, upsert by key", 600_000, mariaDBToPostgresUpsert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			dest := tc.setup(t, dir, tc.rows)
			p := startFaucet(t, dir, "run", "--quiet")
			pollUntil(t, p, "20000 rows in the destination", func() bool { return dest.landed() >= 20_000 })
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			p.wait()
			n := dest.landed()
			if n >= int64(tc.rows) {
				t.Fatalf("after kill -9 the destination has %d rows: the kill should land mid-load", n)
			}
			// The state may lag the destination (it is saved once a
			// second, and under exactly_once the sink's token wins), but
			// it must never be ahead of it.
			state, ok := stateFile(t, dir, "killed")
			t.Logf("at the kill: destination %d rows, state %s", n, state)
			if ok {
				b := bookmarkID(t, state)
				if got := dest.upTo(b); got != b {
					t.Fatalf("state says %d rows are done but the destination holds %d of ids 1..%d", b, got, b)
				}
			}
			if _, stderr, code := runFaucet(t, dir, "run", "--quiet"); code != 0 {
				t.Fatalf("rerun: status %d\n%s", code, stderr)
			}
			rows := int64(tc.rows)
			want := [4]int64{rows, rows, rows * (rows + 1) / 2, rows}
			if got := dest.totals(); got != want {
				t.Fatalf("destination holds %d rows (%d distinct ids, id sum %d, %d with the right name); want %d",
					got[0], got[1], got[2], got[3], want)
			}
		})
	}
}

// killDest is the destination of a kill case.
type killDest struct {
	landed func() int64 // rows so far; -1 while the table does not exist
	// upTo counts the rows with id <= b.
	upTo func(b int64) int64
	// totals are count, distinct ids, id sum and rows whose name is
	// 'name-' || id % 97 (as writeCSV and seed name them).
	totals func() [4]int64
}

func pgDest(pg *pgDB, table string) *killDest {
	t := pg.schema + "." + table
	return &killDest{
		landed: func() int64 {
			v, ok := pg.int64s("SELECT count(*) FROM "+t, 1)
			if !ok {
				return -1
			}
			return v[0]
		},
		upTo: func(b int64) int64 {
			v, _ := pg.int64s(fmt.Sprintf("SELECT count(*) FROM %s WHERE id <= %d", t, b), 1)
			return v[0]
		},
		totals: func() [4]int64 {
			v, _ := pg.int64s("SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0), count(*) FILTER (WHERE name = 'name-' || (id % 97)) FROM "+t, 4)
			return [4]int64(v)
		},
	}
}

func myDest(my *myDB, table string) *killDest {
	return &killDest{
		landed: func() int64 {
			v, ok := my.int64s("SELECT count(*) FROM "+table, 1)
			if !ok {
				return -1
			}
			return v[0]
		},
		upTo: func(b int64) int64 {
			v, _ := my.int64s(fmt.Sprintf("SELECT count(*) FROM %s WHERE id <= %d", table, b), 1)
			return v[0]
		},
		totals: func() [4]int64 {
			v, _ := my.int64s("SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0), coalesce(sum(name = CONCAT('name-', id % 97)), 0) FROM "+table, 4)
			return [4]int64(v)
		},
	}
}

func csvToPostgresExactlyOnce(t *testing.T, dir string, rows int) *killDest {
	pg := newPGDB(t)
	writeCSV(t, filepath.Join(dir, "in.csv"), rows)
	writeConfig(t, dir, fmt.Sprintf(`version: 1
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
    config: {connection_url: "%s", schema: %s, table_name: items, column_mapping: auto_map, create_table: true}
  state:
    type: file
    config: {path: state}
`, pg.url, pg.schema))
	return pgDest(pg, "items")
}

func postgresToMariaDBExactlyOnce(t *testing.T, dir string, rows int) *killDest {
	pg, my := newPGDB(t), newMyDB(t)
	pg.seed(t, "src", 1, rows)
	writeConfig(t, dir, fmt.Sprintf(`version: 1
name: killed
delivery: exactly_once
pipeline:
  source:
    type: postgres
    config: {connection_url: "%s", schema: %s, table: src, replication_key: id}
  sink:
    type: mysql
    config: {connection_url: "%s", table_name: items, column_mapping: auto_map, create_table: true}
  state:
    type: file
    config: {path: state}
`, pg.url, pg.schema, my.url))
	return myDest(my, "items")
}

func mariaDBToPostgresUpsert(t *testing.T, dir string, rows int) *killDest {
	pg, my := newPGDB(t), newMyDB(t)
	my.seed(t, "src", 1, rows)
	writeConfig(t, dir, fmt.Sprintf(`version: 1
name: killed
pipeline:
  source:
    type: mysql
    config: {connection_url: "%s", table: src, replication_key: id}
  sink:
    type: postgres
    config: {connection_url: "%s", schema: %s, table_name: items, column_mapping: auto_map, create_table: true, write_mode: upsert, key: [id]}
  state:
    type: file
    config: {path: state}
`, my.url, pg.url, pg.schema))
	return pgDest(pg, "items")
}

// bookmarkID reads an integer bookmark from a state file: a bare value
// (a number, or a string from a CSV source) or the exactly-once envelope.
func bookmarkID(t *testing.T, state string) int64 {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(state), &v); err != nil {
		t.Fatalf("state %s: %v", state, err)
	}
	if env, ok := v.(map[string]any); ok {
		v = env["bookmark"]
	}
	switch b := v.(type) {
	case float64:
		return int64(b)
	case string:
		n, err := strconv.ParseInt(b, 10, 64)
		if err == nil {
			return n
		}
	case nil:
		return 0
	}
	t.Fatalf("state %s: not an integer bookmark", state)
	return 0
}
