package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sqlPair is a source table and a destination table on two SQL servers,
// with the config blocks that read and write them.
type sqlPair struct {
	source, sink string // the pipeline's source: and sink: blocks
	seed         func(from, to int)
	dest         *killDest // the destination, checked in SQL
}

// pgToMy reads an incremental Postgres table into MariaDB (sinkOpts are
// added to the sink config). Each source row carries pad bytes more, so
// that a read is still streaming, not sitting in socket buffers, when a
// test cuts its connection.
func pgToMy(t *testing.T, pg *pgDB, my *myDB, srcURL, sinkURL, sinkOpts string, pad int) sqlPair {
	pg.exec(t, fmt.Sprintf("CREATE TABLE %s.src (id bigint PRIMARY KEY, name text, amount numeric(12,2), pad text DEFAULT repeat('x', %d))", pg.schema, pad))
	return sqlPair{
		source: fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table: src, replication_key: id}}`, srcURL, pg.schema),
		sink:   fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table_name: items, column_mapping: auto_map, create_table: true%s}}`, sinkURL, sinkOpts),
		seed:   func(from, to int) { pg.seed(t, "src", from, to) },
		dest:   myDest(my, "items"),
	}
}

// myToPG reads an incremental MariaDB table into Postgres.
func myToPG(t *testing.T, my *myDB, pg *pgDB, srcURL, sinkURL, sinkOpts string, pad int) sqlPair {
	my.exec(t, fmt.Sprintf("CREATE TABLE src (id BIGINT PRIMARY KEY, name VARCHAR(32), amount DECIMAL(12,2), pad VARCHAR(255) DEFAULT (REPEAT('x', %d)))", pad))
	return sqlPair{
		source: fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table: src, replication_key: id}}`, srcURL),
		sink:   fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table_name: items, column_mapping: auto_map, create_table: true%s}}`, sinkURL, pg.schema, sinkOpts),
		seed:   func(from, to int) { my.seed(t, "src", from, to) },
		dest:   pgDest(pg, "items"),
	}
}

// myToMy reads an incremental MariaDB table into another table of the
// same database, whose count follows the source's progress (the sink
// commits every page).
func myToMy(t *testing.T, my *myDB, srcURL, sinkURL string, pad int) sqlPair {
	my.exec(t, fmt.Sprintf("CREATE TABLE src (id BIGINT PRIMARY KEY, name VARCHAR(32), amount DECIMAL(12,2), pad VARCHAR(255) DEFAULT (REPEAT('x', %d)))", pad))
	return sqlPair{
		source: fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table: src, replication_key: id}}`, srcURL),
		sink:   fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table_name: items, column_mapping: auto_map, create_table: true}}`, sinkURL),
		seed:   func(from, to int) { my.seed(t, "src", from, to) },
		dest:   myDest(my, "items"),
	}
}

func (p sqlPair) config(name, delivery string) string {
	return fmt.Sprintf(`version: 1
name: %s
delivery: %s
pipeline:
  source: %s
  sink: %s
  state:
    type: file
    config: {path: state}
`, name, delivery, p.source, p.sink)
}

// runSummary is the part of `faucet run --output json` the tests read.
type runSummary struct {
	Status string `json:"status"`
	Totals struct {
		RowsIn  int64 `json:"rows_in"`
		RowsOut int64 `json:"rows_out"`
	} `json:"totals"`
}

// TestIncrementalSQLSourceSendsOnlyNewRows loads a table with a
// replication_key into an append-only table on the other server, adds rows
// at the source, and runs again: only the new rows travel, so the
// destination has every id once; a third run with nothing new moves
// nothing.
func TestIncrementalSQLSourceSendsOnlyNewRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		pair func(t *testing.T) sqlPair
	}{
		{"postgres to mariadb", func(t *testing.T) sqlPair {
			pg, my := newPGDB(t), newMyDB(t)
			return pgToMy(t, pg, my, pg.url, my.url, "", 0)
		}},
		{"mariadb to postgres", func(t *testing.T) sqlPair {
			my, pg := newMyDB(t), newPGDB(t)
			return myToPG(t, my, pg, my.url, pg.url, "", 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pair(t)
			dir := t.TempDir()
			writeConfig(t, dir, p.config("incr", "at_least_once"))
			for i, step := range []struct {
				from, to int // rows added at the source before the run
				moved    int64
			}{
				{1, 5000, 5000},
				{5001, 7500, 2500},
				{0, 0, 0},
			} {
				if step.to > 0 {
					p.seed(step.from, step.to)
				}
				stdout, stderr, code := runFaucet(t, dir, "run", "--quiet", "--output", "json")
				if code != 0 {
					t.Fatalf("run %d: status %d\n%s", i+1, code, stderr)
				}
				var sum runSummary
				if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
					t.Fatalf("run %d: summary %q: %v", i+1, stdout, err)
				}
				if sum.Totals.RowsIn != step.moved || sum.Totals.RowsOut != step.moved {
					t.Fatalf("run %d read %d and wrote %d rows, want %d (only the new ones)", i+1, sum.Totals.RowsIn, sum.Totals.RowsOut, step.moved)
				}
			}
			if got, want := p.dest.totals(), [4]int64{7500, 7500, 7500 * 7501 / 2, 7500}; got != want {
				t.Fatalf("destination (count, distinct ids, id sum, well-named rows) = %v, want %v", got, want)
			}
			state, _ := stateFile(t, dir, "incr")
			if b := bookmarkID(t, state); b != 7500 {
				t.Fatalf("bookmark %d, want 7500 (state %s)", b, state)
			}
		})
	}
}

// TestSQLConnectionKilledMidRun cuts one of faucet's database connections
// from the server side (pg_terminate_backend, KILL CONNECTION) while a run
// is loading. A dropped connection is retryable where a retry cannot lose
// or duplicate data (connectors/postgres/connlost.go and
// connectors/mysql/connlost.go say where): then the run completes on its
// own; elsewhere it fails cleanly, its bookmark no further than what the
// sink committed, and a rerun completes. Either way the destination ends
// with every source row exactly once.
func TestSQLConnectionKilledMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const rows = 300_000
	for _, tc := range []struct {
		name     string
		delivery string
		// setup builds the pair and returns the function that cuts the
		// connection.
		setup func(t *testing.T) (sqlPair, func())
		// mayFail: the run may stop (with an error containing failText)
		// instead of getting over the cut by itself; then a rerun
		// completes. logsRetry: a run that got over it logged a retry
		// (database/sql replaces a connection killed while idle without
		// an error, so a MariaDB sink may not need one).
		mayFail   bool
		failText  string
		logsRetry bool
	}{
		{"postgres source terminated", "at_least_once", func(t *testing.T) (sqlPair, func()) {
			pg, my := newPGDB(t), newMyDB(t)
			app := appName()
			return pgToMy(t, pg, my, pg.withApp(t, app), my.url, "", 200), func() { pg.terminate(t, app) }
		}, false, "", true},
		{"mariadb source killed", "at_least_once", func(t *testing.T) (sqlPair, func()) {
			my := newMyDB(t)
			user := my.user(t)
			return myToMy(t, my, my.userURL(t, user, "pw"), my.url, 200), func() { my.killUser(t, user) }
		}, false, "", true},
		{"mariadb sink killed, exactly_once", "exactly_once", func(t *testing.T) (sqlPair, func()) {
			pg, my := newPGDB(t), newMyDB(t)
			user := my.user(t)
			return pgToMy(t, pg, my, pg.url, my.userURL(t, user, "pw"), "", 0), func() { my.killUser(t, user) }
		}, false, "", false},
		{"postgres sink terminated, exactly_once", "exactly_once", func(t *testing.T) (sqlPair, func()) {
			my, pg := newMyDB(t), newPGDB(t)
			app := appName()
			return myToPG(t, my, pg, my.url, pg.withApp(t, app), "", 0), func() { pg.terminate(t, app) }
		}, false, "", true},
		// An upsert page shares its transaction with the pages since the
		// last checkpoint: unless it came right after a checkpoint, they
		// are gone with the connection.
		{"postgres sink terminated, upsert", "at_least_once", func(t *testing.T) (sqlPair, func()) {
			my, pg := newMyDB(t), newPGDB(t)
			app := appName()
			return myToPG(t, my, pg, my.url, pg.withApp(t, app), ", write_mode: upsert, key: [id]", 0), func() { pg.terminate(t, app) }
		}, true, "a rerun writes them again from the saved bookmark", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, cut := tc.setup(t)
			p.seed(1, rows)
			dir := t.TempDir()
			writeConfig(t, dir, p.config("cut", tc.delivery))
			proc := startFaucet(t, dir, "run", "--quiet")
			pollUntil(t, proc, "20000 rows in the destination", func() bool { return p.dest.landed() >= 20_000 })
			cut()
			code, stderr := proc.wait()
			t.Logf("status %d\n%s", code, stderr)
			retried := strings.Contains(stderr, "failed, retrying") && strings.Contains(stderr, "connection lost")
			switch {
			case code == 0 && tc.logsRetry && !retried:
				t.Fatalf("no retry after a lost connection in the log: the cut did not land mid-run")
			case code != 0 && !tc.mayFail:
				t.Fatalf("the run did not get over the cut connection: status %d", code)
			case code != 0:
				if !strings.Contains(stderr, tc.failText) {
					t.Fatalf("the error does not say %q", tc.failText)
				}
				state, ok := stateFile(t, dir, "cut")
				if ok {
					b := bookmarkID(t, state)
					if got := p.dest.upTo(b); got != b {
						t.Fatalf("state says %d rows are done but the destination holds %d of ids 1..%d", b, got, b)
					}
				}
				if _, stderr, code := runFaucet(t, dir, "run", "--quiet"); code != 0 {
					t.Fatalf("rerun: status %d\n%s", code, stderr)
				}
			}
			want := [4]int64{rows, rows, rows * (rows + 1) / 2, rows}
			if got := p.dest.totals(); got != want {
				t.Fatalf("destination (count, distinct ids, id sum, well-named rows) = %v, want %v", got, want)
			}
			if state, _ := stateFile(t, dir, "cut"); bookmarkID(t, state) != rows {
				t.Fatalf("final state %s, want bookmark %d", state, rows)
			}
		})
	}
}

func appName() string { return fmt.Sprintf("faucet_e2e_%d", rand.Uint64()%1e12) }

// terminate ends every backend of application app, as an administrator's
// pg_terminate_backend does.
func (e *pgDB) terminate(t *testing.T, app string) {
	t.Helper()
	v, ok := e.int64s("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '"+app+"'", 1)
	if !ok || v[0] == 0 {
		t.Fatalf("no backend of %s to terminate", app)
	}
}

// user creates a MariaDB user with password pw and every right on the
// test database, dropped when the test ends.
func (e *myDB) user(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("fx%d", rand.Uint64()%1e12)
	e.exec(t, "CREATE USER '"+name+"'@'%' IDENTIFIED BY 'pw'")
	t.Cleanup(func() { e.db.Exec("DROP USER IF EXISTS '" + name + "'@'%'") })
	e.exec(t, "GRANT ALL ON "+e.name+".* TO '"+name+"'@'%'")
	return name
}

// killUser runs KILL CONNECTION on every connection of user.
func (e *myDB) killUser(t *testing.T, user string) {
	t.Helper()
	rows, err := e.db.Query("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?", user)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) == 0 {
		t.Fatalf("no connection of %s to kill", user)
	}
	for _, id := range ids {
		e.exec(t, fmt.Sprintf("KILL CONNECTION %d", id))
	}
}
