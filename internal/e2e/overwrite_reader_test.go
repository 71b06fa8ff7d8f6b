package e2e

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"
)

// The overwrite tests replace a 200,000-row table (write_mode: overwrite)
// with a real faucet process while a reader in the test counts the table's
// rows in a loop, on Postgres, MariaDB and SQLite. A complete run swaps the
// new rows in at once: the reader sees the old total or the new one, never
// 0 or a part. A run that is cancelled, fails or is killed leaves the old
// table as it was.

const oldRows = 200_000

// owTarget is a destination table on one database.
type owTarget struct {
	sink  string                            // the pipeline's sink: block
	count func(table string) (int64, error) // rows of table
	dest  *killDest                         // checks of items
	// staged reports that the run has put rows in the staging table
	// (committed or not).
	staged func() bool
}

// stagedRows is staged for sinks that commit every page.
func stagedRows(count func(string) (int64, error)) func() bool {
	return func() bool {
		n, err := count("items__faucet_ovw")
		return err == nil && n >= 20_000
	}
}

var owTargets = []struct {
	name  string
	setup func(t *testing.T, dir string) owTarget
}{
	{"postgres", func(t *testing.T, dir string) owTarget {
		pg := newPGDB(t)
		pg.seed(t, "items", 1, oldRows)
		db, err := sql.Open("pgx", pg.url) // a pool: the reader and the test count at once
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		count := sqlCount(db)
		return owTarget{
			sink:  fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table_name: items, column_mapping: auto_map, write_mode: overwrite}}`, pg.url, pg.schema),
			count: func(table string) (int64, error) { return count(pg.schema + "." + table) },
			dest:  pgDest(pg, "items"),
			// The sink commits once per checkpoint, but the rows it
			// wrote take room in the table before that.
			staged: func() bool {
				var size int64
				err := db.QueryRow("SELECT pg_relation_size(to_regclass($1))", pg.schema+".items__faucet_ovw").Scan(&size)
				return err == nil && size > 1<<20
			},
		}
	}},
	{"mariadb", func(t *testing.T, dir string) owTarget {
		my := newMyDB(t)
		my.seed(t, "items", 1, oldRows)
		return owTarget{
			sink:   fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table_name: items, column_mapping: auto_map, write_mode: overwrite}}`, my.url),
			count:  sqlCount(my.db),
			dest:   myDest(my, "items"),
			staged: stagedRows(sqlCount(my.db)),
		}
	}},
	{"sqlite", func(t *testing.T, dir string) owTarget {
		db := sqliteSeed(t, filepath.Join(dir, "db.sqlite"), oldRows)
		return owTarget{
			sink:   `{type: sqlite, config: {path: db.sqlite, table_name: items, write_mode: overwrite}}`,
			count:  sqlCount(db),
			dest:   sqliteDest(db, "items"),
			staged: stagedRows(sqlCount(db)),
		}
	}},
}

func sqlCount(db *sql.DB) func(string) (int64, error) {
	return func(table string) (n int64, err error) {
		err = db.QueryRow("SELECT count(*) FROM " + table).Scan(&n)
		return n, err
	}
}

// sqliteSeed creates path with items(id, name, amount) holding ids 1..n,
// in WAL mode as the sink keeps it, and returns a reader's handle on it.
func sqliteSeed(t *testing.T, path string, n int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		"CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, amount REAL)",
		fmt.Sprintf(`INSERT INTO items WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d)
			SELECT x, 'name-' || (x %% 97), (x %% 10000) + (x %% 100) / 100.0 FROM c`, n),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

func sqliteDest(db *sql.DB, table string) *killDest {
	one := func(q string, n int) []int64 {
		out := make([]int64, n)
		ptrs := make([]any, n)
		for i := range out {
			ptrs[i] = &out[i]
		}
		if db.QueryRow(q).Scan(ptrs...) != nil {
			out[0] = -1
		}
		return out
	}
	return &killDest{
		landed: func() int64 { return one("SELECT count(*) FROM "+table, 1)[0] },
		upTo:   func(b int64) int64 { return one(fmt.Sprintf("SELECT count(*) FROM %s WHERE id <= %d", table, b), 1)[0] },
		totals: func() [4]int64 {
			return [4]int64(one("SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0), coalesce(sum(name = 'name-' || (id % 97)), 0) FROM "+table, 4))
		},
	}
}

// countReader counts a table's rows in a loop until stopped.
type countReader struct {
	seen    map[int64]int // row count -> times seen
	errs    []error
	queries int
	stop    chan struct{}
	done    chan struct{}
}

func startReader(count func() (int64, error)) *countReader {
	r := &countReader{seen: map[int64]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			select {
			case <-r.stop:
				return
			default:
			}
			n, err := count()
			r.queries++
			if err != nil {
				r.errs = append(r.errs, err)
				continue
			}
			r.seen[n]++
		}
	}()
	return r
}

// finish stops the reader and fails the test if it saw an error or a
// count outside allowed.
func (r *countReader) finish(t *testing.T, allowed ...int64) {
	t.Helper()
	close(r.stop)
	<-r.done
	var counts []int64
	for n := range r.seen {
		counts = append(counts, n)
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i] < counts[j] })
	t.Logf("reader: %d queries, counts seen %v", r.queries, r.seen)
	if len(r.errs) > 0 {
		t.Errorf("the reader failed %d times during the overwrite, first: %v", len(r.errs), r.errs[0])
	}
	for _, n := range counts {
		ok := false
		for _, a := range allowed {
			ok = ok || n == a
		}
		if !ok {
			t.Errorf("the reader saw %d rows (%d times); only %v are allowed", n, r.seen[n], allowed)
		}
	}
	if r.queries < 2 {
		t.Errorf("the reader ran %d queries: it did not overlap the run", r.queries)
	}
}

func owConfig(sink string) string {
	return fmt.Sprintf(`version: 1
name: ow
pipeline:
  source: {type: csv, config: {path: in.csv}}
  transforms:
    - {type: cast, config: {fields: {id: int}}}
  sink: %s
`, sink)
}

func totalsOf(n int64) [4]int64 { return [4]int64{n, n, n * (n + 1) / 2, n} }

func TestOverwriteConcurrentReaderSeesOldOrNew(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const newRows = 123_457
	for _, db := range owTargets {
		t.Run(db.name, func(t *testing.T) {
			dir := t.TempDir()
			tg := db.setup(t, dir)
			writeCSV(t, filepath.Join(dir, "in.csv"), newRows)
			writeConfig(t, dir, owConfig(tg.sink))
			r := startReader(func() (int64, error) { return tg.count("items") })
			_, stderr, code := runFaucet(t, dir, "run", "--quiet")
			r.finish(t, oldRows, newRows)
			if code != 0 {
				t.Fatalf("status %d\n%s", code, stderr)
			}
			if got := tg.dest.totals(); got != totalsOf(newRows) {
				t.Fatalf("after the overwrite (count, distinct, id sum, well-named) = %v, want %v", got, totalsOf(newRows))
			}
			if _, err := tg.count("items__faucet_ovw"); err == nil {
				t.Error("the staging table is still there")
			}
		})
	}
}

func TestOverwriteStoppedRunKeepsOldTable(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const newRows = 300_000
	for _, db := range owTargets {
		for _, tc := range []struct {
			name   string
			signal syscall.Signal // sent once the staging table has rows; 0: the input fails by itself
			code   int            // exit status (-1: killed)
			// staged: the staging table survives (a killed run cannot
			// drop it; the next run does).
			staged bool
		}{
			{"cancelled", syscall.SIGINT, 130, false},
			{"failed", 0, 1, false},
			{"killed", syscall.SIGKILL, -1, true},
		} {
			t.Run(db.name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				tg := db.setup(t, dir)
				writeCSV(t, filepath.Join(dir, "in.csv"), newRows)
				if tc.signal == 0 {
					breakCSVRow(t, filepath.Join(dir, "in.csv"), 250_000)
				}
				writeConfig(t, dir, owConfig(tg.sink))
				r := startReader(func() (int64, error) { return tg.count("items") })
				p := startFaucet(t, dir, "run", "--quiet")
				if tc.signal != 0 {
					pollUntil(t, p, "rows in the staging table", tg.staged)
					if err := p.cmd.Process.Signal(tc.signal); err != nil {
						t.Fatal(err)
					}
				}
				code, stderr := p.wait()
				r.finish(t, oldRows)
				if code != tc.code {
					t.Fatalf("status %d, want %d\n%s", code, tc.code, stderr)
				}
				if tc.signal == 0 && !containsAll(stderr, "in.csv:250001", "cast") {
					t.Errorf("the error does not name the record:\n%s", stderr)
				}
				if got := tg.dest.totals(); got != totalsOf(oldRows) {
					t.Fatalf("after a %s overwrite (count, distinct, id sum, well-named) = %v, want the old %v", tc.name, got, totalsOf(oldRows))
				}
				if _, err := tg.count("items__faucet_ovw"); (err == nil) != tc.staged {
					t.Errorf("staging table present = %v, want %v", err == nil, tc.staged)
				}
				if tc.staged {
					// The next complete run starts over and swaps in.
					writeCSV(t, filepath.Join(dir, "in.csv"), 1000)
					if _, stderr, code := runFaucet(t, dir, "run", "--quiet"); code != 0 {
						t.Fatalf("rerun: status %d\n%s", code, stderr)
					}
					if got := tg.dest.totals(); got != totalsOf(1000) {
						t.Fatalf("after the rerun %v, want %v", got, totalsOf(1000))
					}
				}
			})
		}
	}
}

// breakCSVRow replaces the id of the row with id n (line n+1 of a
// writeCSV file) by text, which the cast transform refuses.
func breakCSVRow(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf("\n%d,", n)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no row %d", path, n)
	}
	data = bytes.Replace(data, []byte(old), []byte(fmt.Sprintf("\nbad-%d,", n)), 1)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
