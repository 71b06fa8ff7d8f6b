package e2e

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badCase is one bad input for a real `faucet run`: it must exit non-zero
// with an error containing every want (the table, column or record to
// fix), never print a secret, and leave a bookmark no further than what
// the sink committed.
type badCase struct {
	config string
	want   []string
	secret string // must not appear in the output
	// upTo counts the destination rows whose bookmark column is <= b;
	// nil when nothing may have been written (the run fails at Open).
	upTo func(b int64) int64
	// bad, when set, turns the input bad after a first good run, which
	// must save the bookmark 5000: the bad run must not move it past what
	// the sink committed.
	bad func()
}

// TestSQLBadInput runs each bad input and checks the error, the exit
// status and the state file. The bad records come after a first good run
// (ids 1..5000) and in the third page of the second (id 7345).
func TestSQLBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) badCase
	}{
		{"mariadb source, wrong password", func(t *testing.T, dir string) badCase {
			my := newMyDB(t)
			user, wrong := myUserWithPassword(t, my)
			return badCase{
				config: pipe(fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table: items}}`, my.userURL(t, user, wrong)), `{type: jsonl, config: {path: out.jsonl}}`),
				want:   []string{"source mysql", "connect to mysql://" + user + ":***@", "Access denied for user '" + user + "'"},
				secret: wrong,
			}
		}},
		{"mariadb sink, wrong password", func(t *testing.T, dir string) badCase {
			my := newMyDB(t)
			user, wrong := myUserWithPassword(t, my)
			writeCSV(t, filepath.Join(dir, "in.csv"), 10)
			return badCase{
				config: pipe(`{type: csv, config: {path: in.csv}}`, fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table_name: items, create_table: true, column_mapping: auto_map}}`, my.userURL(t, user, wrong))),
				want:   []string{"sink mysql", "connect to mysql://" + user + ":***@", "Access denied for user '" + user + "'"},
				secret: wrong,
			}
		}},
		// The Postgres here trusts 127.0.0.1, so a wrong password would
		// pass: an unknown role and an unknown database are what fails.
		{"postgres, unknown role", func(t *testing.T, dir string) badCase {
			pg := newPGDB(t)
			role := fmt.Sprintf("no_role_%d", rand.Uint64()%1e9)
			u := withUser(t, pg.url, role, "")
			return badCase{
				config: pipe(fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", table: items}}`, u), `{type: jsonl, config: {path: out.jsonl}}`),
				want:   []string{"source postgres", "connect to postgres://" + role + "@", `role "` + role + `" does not exist`},
			}
		}},
		{"postgres, unknown database", func(t *testing.T, dir string) badCase {
			pg := newPGDB(t)
			db := fmt.Sprintf("no_db_%d", rand.Uint64()%1e9)
			u, _ := url.Parse(pg.url)
			u.Path = "/" + db
			writeCSV(t, filepath.Join(dir, "in.csv"), 10)
			return badCase{
				config: pipe(`{type: csv, config: {path: in.csv}}`, fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", table_name: items}}`, u)),
				want:   []string{"sink postgres", `database "` + db + `" does not exist`},
			}
		}},
		{"postgres, unknown source table", func(t *testing.T, dir string) badCase {
			pg := newPGDB(t)
			return badCase{
				config: pipe(fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table: nosuch}}`, pg.url, pg.schema), `{type: jsonl, config: {path: out.jsonl}}`),
				want:   []string{`table "` + pg.schema + `"."nosuch"`, "does not exist"},
			}
		}},
		{"mariadb, unknown source table", func(t *testing.T, dir string) badCase {
			my := newMyDB(t)
			return badCase{
				config: pipe(fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table: nosuch}}`, my.url), `{type: jsonl, config: {path: out.jsonl}}`),
				want:   []string{"table `nosuch`", "Table '" + my.name + ".nosuch' doesn't exist"},
			}
		}},
		{"postgres, unknown sink table", func(t *testing.T, dir string) badCase {
			pg := newPGDB(t)
			writeCSV(t, filepath.Join(dir, "in.csv"), 10)
			return badCase{
				config: pipe(`{type: csv, config: {path: in.csv}}`, fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table_name: nosuch, column_mapping: auto_map}}`, pg.url, pg.schema)),
				want:   []string{`table "` + pg.schema + `"."nosuch" does not exist (set create_table: true`},
			}
		}},
		{"mariadb, unknown sink table", func(t *testing.T, dir string) badCase {
			my := newMyDB(t)
			writeCSV(t, filepath.Join(dir, "in.csv"), 10)
			return badCase{
				config: pipe(`{type: csv, config: {path: in.csv}}`, fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table_name: nosuch, column_mapping: auto_map}}`, my.url)),
				want:   []string{"table `nosuch` does not exist (set create_table: true"},
			}
		}},
		{"sqlite, unknown sink table", func(t *testing.T, dir string) badCase {
			writeCSV(t, filepath.Join(dir, "in.csv"), 10)
			return badCase{
				config: pipe(`{type: csv, config: {path: in.csv}}`, `{type: sqlite, config: {path: db.sqlite, table_name: nosuch}}`),
				want:   []string{`table "nosuch" does not exist (set create_table: true`},
			}
		}},
		// A value the column cannot take: text in the integer column n.
		{"postgres copy, text into an integer column", func(t *testing.T, dir string) badCase {
			pg := newPGDB(t)
			pg.exec(t, "CREATE TABLE "+pg.schema+".dst (id bigint PRIMARY KEY, name text, n bigint)")
			writeBadValueCSV(t, dir, 0)
			return badCase{
				config: incremental(fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table_name: dst, column_mapping: auto_map}}`, pg.url, pg.schema)),
				want:   []string{`copy into "` + pg.schema + `"."dst"`, `column n: "abc"`, "record 345 of the page: id=7345"},
				upTo:   pgUpTo(pg, "dst", "id"),
				bad:    func() { writeBadValueCSV(t, dir, 7345) },
			}
		}},
		{"postgres upsert, text into an integer column", func(t *testing.T, dir string) badCase {
			pg := newPGDB(t)
			pg.exec(t, "CREATE TABLE "+pg.schema+".dst (id bigint PRIMARY KEY, name text, n bigint)")
			writeBadValueCSV(t, dir, 0)
			return badCase{
				config: incremental(fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table_name: dst, column_mapping: auto_map, write_mode: upsert, key: [id]}}`, pg.url, pg.schema)),
				want:   []string{`insert into "` + pg.schema + `"."dst"`, `record 345 of the page (id=7345), column "n"`, `"abc"`},
				upTo:   pgUpTo(pg, "dst", "id"),
				bad:    func() { writeBadValueCSV(t, dir, 7345) },
			}
		}},
		{"mariadb, text into an integer column", func(t *testing.T, dir string) badCase {
			my := newMyDB(t)
			my.exec(t, "CREATE TABLE dst (id BIGINT PRIMARY KEY, name VARCHAR(32), n BIGINT)")
			writeBadValueCSV(t, dir, 0)
			return badCase{
				config: incremental(fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table_name: dst, column_mapping: auto_map}}`, my.url)),
				want:   []string{"insert into `dst`", "record 345 of the page (id=7345)", "'abc' for column `" + my.name + "`.`dst`.`n`"},
				upTo:   myUpTo(my, "dst", "id"),
				bad:    func() { writeBadValueCSV(t, dir, 7345) },
			}
		}},
		{"sqlite strict table, text into an integer column", func(t *testing.T, dir string) badCase {
			db := sqliteExec(t, filepath.Join(dir, "db.sqlite"), "CREATE TABLE dst (id INTEGER PRIMARY KEY, name TEXT, n INTEGER) STRICT")
			writeBadValueCSV(t, dir, 0)
			return badCase{
				config: incremental(`{type: sqlite, config: {path: db.sqlite, table_name: dst}}`),
				// SQLite names the column, not the row.
				want: []string{`insert into "dst"`, "TEXT value in INTEGER column dst.n"},
				upTo: sqlUpTo(db, "dst", "id"),
				bad:  func() { writeBadValueCSV(t, dir, 7345) },
			}
		}},
		// A record without id, the upsert key (the bookmark is seq). Its
		// position in the page depends on where the JSON Lines reader cut
		// the page (at batch_size lines or at the end of a read buffer);
		// seq names it.
		{"postgres upsert, key column missing", func(t *testing.T, dir string) badCase {
			pg := newPGDB(t)
			pg.exec(t, "CREATE TABLE "+pg.schema+".dst (seq bigint, id bigint PRIMARY KEY, name text)")
			writeMissingKeyJSONL(t, dir, 0)
			return badCase{
				config: keyedJSONL(fmt.Sprintf(`{type: postgres, config: {connection_url: "%s", schema: %s, table_name: dst, column_mapping: auto_map, write_mode: upsert, key: [id]}}`, pg.url, pg.schema)),
				want:   []string{`table "` + pg.schema + `"."dst"`, `of the page (seq=7345): key column "id" is missing or null`},
				upTo:   pgUpTo(pg, "dst", "seq"),
				bad:    func() { writeMissingKeyJSONL(t, dir, 7345) },
			}
		}},
		{"mariadb upsert, key column missing", func(t *testing.T, dir string) badCase {
			my := newMyDB(t)
			my.exec(t, "CREATE TABLE dst (seq BIGINT, id BIGINT PRIMARY KEY, name VARCHAR(32))")
			writeMissingKeyJSONL(t, dir, 0)
			return badCase{
				config: keyedJSONL(fmt.Sprintf(`{type: mysql, config: {connection_url: "%s", table_name: dst, column_mapping: auto_map, write_mode: upsert, key: [id]}}`, my.url)),
				want:   []string{"table `dst`", `of the page (seq=7345): key column "id" is missing or null`},
				upTo:   myUpTo(my, "dst", "seq"),
				bad:    func() { writeMissingKeyJSONL(t, dir, 7345) },
			}
		}},
		{"sqlite upsert, key column missing", func(t *testing.T, dir string) badCase {
			db := sqliteExec(t, filepath.Join(dir, "db.sqlite"), "CREATE TABLE dst (seq INTEGER, id INTEGER PRIMARY KEY, name TEXT)")
			writeMissingKeyJSONL(t, dir, 0)
			return badCase{
				config: keyedJSONL(`{type: sqlite, config: {path: db.sqlite, table_name: dst, write_mode: upsert, key: [id]}}`),
				want:   []string{`table "dst"`, `of the page (seq=7345): key column "id" is missing or null`},
				upTo:   sqlUpTo(db, "dst", "seq"),
				bad:    func() { writeMissingKeyJSONL(t, dir, 7345) },
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := tc.setup(t, dir)
			writeConfig(t, dir, c.config)
			first := int64(0)
			if c.bad != nil {
				if _, stderr, code := runFaucet(t, dir, "run", "--quiet"); code != 0 {
					t.Fatalf("the good first run: status %d\n%s", code, stderr)
				}
				state, _ := stateFile(t, dir, "bad")
				if first = bookmarkID(t, state); first != 5000 {
					t.Fatalf("the good first run saved %s, want 5000", state)
				}
				c.bad()
			}
			stdout, stderr, code := runFaucet(t, dir, "run", "--quiet")
			out := stdout + stderr
			if code == 0 {
				t.Fatalf("bad input ran with status 0\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the error does not say %q:\n%s", w, out)
				}
			}
			if c.secret != "" && strings.Contains(out, c.secret) {
				t.Errorf("the output shows the password %q:\n%s", c.secret, out)
			}
			state, saved := stateFile(t, dir, "bad")
			switch {
			case saved && c.upTo == nil:
				t.Errorf("a run that failed before writing saved state %s", state)
			case saved:
				b := bookmarkID(t, state)
				if b < first {
					t.Errorf("the bookmark went back from %d to %d", first, b)
				}
				if got := c.upTo(b); got != b {
					t.Errorf("state says %d rows are done but the destination holds %d of them", b, got)
				}
				t.Logf("state %s", state)
			}
		})
	}
}

// pipe is a pipeline from source to sink with a file state store.
func pipe(source, sink string) string {
	return fmt.Sprintf(`version: 1
name: bad
pipeline:
  source: %s
  sink: %s
  state: {type: file, config: {path: state}}
`, source, sink)
}

// incremental reads in.csv by id (cast to an integer) into sink.
func incremental(sink string) string {
	return fmt.Sprintf(`version: 1
name: bad
pipeline:
  source: {type: csv, config: {path: in.csv, replication_key: id}}
  transforms:
    - {type: cast, config: {fields: {id: int}}}
  sink: %s
  state: {type: file, config: {path: state}}
`, sink)
}

// keyedJSONL reads in.jsonl by seq into sink.
func keyedJSONL(sink string) string {
	return fmt.Sprintf(`version: 1
name: bad
pipeline:
  source: {type: jsonl, config: {path: in.jsonl, replication_key: seq}}
  sink: %s
  state: {type: file, config: {path: state}}
`, sink)
}

// writeBadValueCSV writes in.csv with id, name, n: ids 1..5000 when bad
// is 0, else ids 1..10000 where n of id bad is "abc".
func writeBadValueCSV(t *testing.T, dir string, bad int) {
	var b strings.Builder
	b.WriteString("id,name,n\n")
	for i := 1; i <= rowsFor(bad); i++ {
		n := fmt.Sprint(i)
		if i == bad {
			n = "abc"
		}
		fmt.Fprintf(&b, "%d,name-%d,%s\n", i, i%97, n)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeMissingKeyJSONL writes in.jsonl with seq, id and name: 1..5000
// when bad is 0, else 1..10000 where record bad has no id.
func writeMissingKeyJSONL(t *testing.T, dir string, bad int) {
	var b strings.Builder
	for i := 1; i <= rowsFor(bad); i++ {
		if i == bad {
			fmt.Fprintf(&b, "{\"seq\":%d,\"name\":\"n%d\"}\n", i, i)
			continue
		}
		fmt.Fprintf(&b, "{\"seq\":%d,\"id\":%d,\"name\":\"n%d\"}\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rowsFor(bad int) int {
	if bad == 0 {
		return 5000
	}
	return 10_000
}

// myUserWithPassword creates a MariaDB user with a password (dropped when
// the test ends) and returns it with a wrong password.
func myUserWithPassword(t *testing.T, my *myDB) (user, wrong string) {
	n := rand.Uint64() % 1e12
	user = fmt.Sprintf("fxpw%d", n)
	my.exec(t, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'right-%d'", user, n))
	t.Cleanup(func() { my.db.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	my.exec(t, "GRANT ALL ON "+my.name+".* TO '"+user+"'@'%'")
	return user, fmt.Sprintf("wrong-%d", n)
}

// withUser is raw with its user (and password) replaced.
func withUser(t *testing.T, raw, user, password string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(user)
	if password != "" {
		u.User = url.UserPassword(user, password)
	}
	return u.String()
}

func pgUpTo(pg *pgDB, table, col string) func(int64) int64 {
	return func(b int64) int64 {
		v, _ := pg.int64s(fmt.Sprintf("SELECT count(*) FROM %s.%s WHERE %s <= %d", pg.schema, table, col, b), 1)
		return v[0]
	}
}

func myUpTo(my *myDB, table, col string) func(int64) int64 {
	return func(b int64) int64 {
		v, _ := my.int64s(fmt.Sprintf("SELECT count(*) FROM %s WHERE %s <= %d", table, col, b), 1)
		return v[0]
	}
}

func sqlUpTo(db *sql.DB, table, col string) func(int64) int64 {
	return func(b int64) int64 {
		var n int64
		_ = db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %s WHERE %s <= %d", table, col, b)).Scan(&n)
		return n
	}
}

// sqliteExec creates the database file with q and returns a handle on it.
func sqliteExec(t *testing.T, path, q string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return db
}
