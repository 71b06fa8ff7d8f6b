package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/jackc/pgx/v5"
)

// cli runs the faucet command line in-process.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// fixtureDDL builds, in one dialect: a table of several types with an
// updated_at column, a table with a composite primary key and a name that
// needs quoting, a table without a key, a mixed-case table keyed by an
// integer, a view, and a table whose name is a reserved row id.
var fixtureDDL = map[string][]string{
	"sqlite": {
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount REAL, paid BOOLEAN, meta JSON, updated_at DATETIME NOT NULL)`,
		`CREATE TABLE "Order Lines" (order_id INTEGER NOT NULL, line INTEGER NOT NULL, qty INTEGER, PRIMARY KEY (order_id, line))`,
		`CREATE TABLE events_log (msg TEXT, at DATETIME)`,
		`CREATE TABLE "Users" ("Id" INTEGER PRIMARY KEY, "Name" TEXT)`,
		`CREATE TABLE env (k TEXT)`,
		`CREATE VIEW order_totals AS SELECT customer, sum(amount) AS total FROM orders GROUP BY customer`,
		`INSERT INTO orders VALUES (1, 'a', 1.5, 1, '{"k":1}', '2024-01-01 10:00:00'), (2, 'b', 2.5, 0, NULL, '2024-01-02 10:00:00')`,
		`INSERT INTO "Order Lines" VALUES (1, 1, 3), (1, 2, 4)`,
		`INSERT INTO events_log VALUES ('x', NULL)`,
		`INSERT INTO "Users" VALUES (7, 'Ann')`,
	},
	"postgres": {
		`CREATE TABLE orders (id bigint PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), paid boolean, meta jsonb, tags text[], updated_at timestamptz NOT NULL)`,
		`CREATE TABLE "Order Lines" (order_id bigint NOT NULL, line int NOT NULL, qty int, PRIMARY KEY (order_id, line))`,
		`CREATE TABLE events_log (msg text, at timestamptz)`,
		`CREATE TABLE "Users" ("Id" integer PRIMARY KEY, "Name" text)`,
		`CREATE TABLE env (k text)`,
		`CREATE VIEW order_totals AS SELECT customer, sum(amount) AS total FROM orders GROUP BY customer`,
		`INSERT INTO orders VALUES (1, 'a', 1.5, true, '{"k":1}', '{x}', '2024-01-01T10:00:00Z'), (2, 'b', 2.5, false, NULL, NULL, '2024-01-02T10:00:00Z')`,
		`INSERT INTO "Order Lines" VALUES (1, 1, 3), (1, 2, 4)`,
		`INSERT INTO events_log VALUES ('x', NULL)`,
		`INSERT INTO "Users" VALUES (7, 'Ann')`,
	},
	"mysql": {
		"CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(20) NOT NULL, amount DECIMAL(10,2), paid TINYINT(1), meta JSON, updated_at DATETIME(3) NOT NULL)",
		"CREATE TABLE `Order Lines` (order_id BIGINT NOT NULL, line INT NOT NULL, qty INT, PRIMARY KEY (order_id, line))",
		"CREATE TABLE events_log (msg TEXT, at DATETIME NULL)",
		"CREATE TABLE `Users` (`Id` INT PRIMARY KEY, `Name` TEXT)",
		"CREATE TABLE env (k TEXT)",
		"CREATE VIEW order_totals AS SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer",
		`INSERT INTO orders VALUES (1, 'a', 1.5, 1, '{"k":1}', '2024-01-01 10:00:00'), (2, 'b', 2.5, 0, NULL, '2024-01-02 10:00:00')`,
		"INSERT INTO `Order Lines` VALUES (1, 1, 3), (1, 2, 4)",
		"INSERT INTO events_log VALUES ('x', NULL)",
		"INSERT INTO `Users` VALUES (7, 'Ann')",
	},
}

func sqliteFixture(t *testing.T, ddl []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range ddl {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// postgresFixture creates the fixture in a fresh schema (dropped at the
// end) and returns the server URL and the schema.
func postgresFixture(t *testing.T) (string, string) {
	t.Helper()
	u := connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		func(ctx context.Context, u string) error {
			c, err := pgx.Connect(ctx, u)
			if err == nil {
				c.Close(ctx)
			}
			return err
		})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("faucet_disc_%d", rand.Uint64()%1e12)
	t.Cleanup(func() {
		conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		conn.Close(context.Background())
	})
	for _, q := range append([]string{"CREATE SCHEMA " + schema, "SET search_path TO " + schema}, fixtureDDL["postgres"]...) {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return u, schema
}

// mysqlFixture creates the fixture in a fresh database (dropped at the
// end) and returns a mysql:// URL of it.
func mysqlFixture(t *testing.T, ddl []string) string {
	t.Helper()
	base := connectortest.ServiceURL(t, "FAUCET_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test", func(ctx context.Context, u string) error {
		db, err := sql.Open("mysql", mysqlDSN(t, u))
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	})
	admin, err := sql.Open("mysql", mysqlDSN(t, base))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("faucet_disc_%d", rand.Uint64()%1e12)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name)
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db, err := sql.Open("mysql", mysqlDSN(t, u.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range ddl {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return u.String()
}

// mysqlDSN turns mysql://user:pw@host:port/db into a driver DSN.
func mysqlDSN(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "mysql" {
		t.Skipf("needs a mysql:// URL, got %s", connectortest.Redact(raw))
	}
	user := u.User.Username()
	if p, ok := u.User.Password(); ok {
		user += ":" + p
	}
	return user + "@tcp(" + u.Host + ")" + u.Path
}

// matrixRows returns the row ids and source configs of a generated file.
func matrixRows(t *testing.T, path string, env map[string]string) map[string]string {
	t.Helper()
	doc, err := config.Load(path, config.Options{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, inv := range invs {
		out[inv.ID] = inv.Source.Config.Value.String()
	}
	return out
}

func TestDiscoverSQLiteURLGeneratesAValidPipeline(t *testing.T) {
	db := sqliteFixture(t, fixtureDDL["sqlite"])
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pipeline."+format)
			code, stdout, stderr := cli(t, "discover", "sqlite", "--url", db, "-o", out)
			if code != 0 || stdout != "" || !strings.Contains(stderr, "wrote "+out+" (5 tables from 'sqlite' source)") {
				t.Fatalf("discover: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			if code, _, stderr := cli(t, "validate", out); code != 0 {
				t.Fatalf("validate: exit %d: %s", code, stderr)
			}
			rows := matrixRows(t, out, nil)
			q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
			want := map[string]string{
				"Order_Lines": `{"path":` + q(db) + `,"query":"SELECT * FROM \"Order Lines\""}`,
				"Users":       `{"path":` + q(db) + `,"query":"SELECT * FROM \"Users\"","replication_key":"Id"}`,
				"env_table":   `{"path":` + q(db) + `,"query":"SELECT * FROM \"env\""}`,
				"events_log":  `{"path":` + q(db) + `,"query":"SELECT * FROM \"events_log\""}`,
				"orders":      `{"path":` + q(db) + `,"query":"SELECT * FROM \"orders\"","replication_key":"id"}`,
			}
			if fmt.Sprint(rows) != fmt.Sprint(want) {
				t.Errorf("rows\n got %v\nwant %v", rows, want)
			}
			text, _ := os.ReadFile(out)
			if format == "yaml" {
				for _, s := range []string{
					"# orders (table)\n",
					"#   columns: id INTEGER, customer TEXT, amount REAL?, paid BOOLEAN?, meta JSON?, updated_at DATETIME\n",
					"#   primary key: order_id, line; read whole on every run\n",
					"#   primary key: id; incremental on id\n",
					"path: out/orders.jsonl\n",
				} {
					if !strings.Contains(string(text), s) {
						t.Errorf("pipeline file lacks %q:\n%s", s, text)
					}
				}
			} else if !json.Valid(text) {
				t.Errorf("not JSON:\n%s", text)
			}
		})
	}
}

// The generated file runs: every table lands in its own file, and a
// second run reads nothing new from the incremental tables.
func TestDiscoverSQLiteGeneratedPipelineRuns(t *testing.T) {
	db := sqliteFixture(t, fixtureDDL["sqlite"])
	t.Chdir(t.TempDir())
	if code, _, stderr := cli(t, "discover", "sqlite", "--url", db, "--exclude", "env", "-o", "faucet.yaml"); code != 0 {
		t.Fatalf("discover: %s", stderr)
	}
	if code, _, stderr := cli(t, "run", "--quiet"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	lines := func(name string) int {
		data, err := os.ReadFile(filepath.Join("out", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "\n")
	}
	want := map[string]int{"orders": 2, "Order_Lines": 2, "events_log": 1, "Users": 1}
	for name, n := range want {
		if got := lines(name); got != n {
			t.Errorf("%s: %d lines, want %d", name, got, n)
		}
	}
	if _, err := os.Stat(filepath.Join("out", "env_table.jsonl")); err == nil {
		t.Error("--exclude env still wrote env_table")
	}
	if code, _, stderr := cli(t, "run", "--quiet"); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	for name, n := range want {
		if got := lines(name); got != n {
			t.Errorf("after a second run %s has %d lines, want %d (incremental appends nothing, full reads rewrite)", name, got, n)
		}
	}
}

// A config naming the connection with a literal password: the password
// is replaced by ${env:PGPASSWORD} in the printed file, which validates
// and runs with the variable set.
func TestDiscoverPostgresConfigHidesPassword(t *testing.T) {
	u, schema := postgresFixture(t)
	withPW, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	withPW.User = url.UserPassword(withPW.User.Username(), "sekret-pw") // trust auth ignores it
	dir := t.TempDir()
	conn := filepath.Join(dir, "conn.yaml")
	writeFile(t, conn, `# connection to introspect
version: 1
name: shop
pipeline:
  source:
    type: postgres
    config:
      connection_url: "`+withPW.String()+`"
      query: SELECT 1   # placeholder, replaced per row
  sink:
    type: jsonl
    config: {path: out.jsonl}
matrix:
  - id: old
`)
	code, stdout, stderr := cli(t, "discover", conn, "--schema", schema, "--exclude", "*.env")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, "sekret-pw") {
		t.Fatalf("password printed:\n%s\n%s", stdout, stderr)
	}
	for _, s := range []string{
		"# connection to introspect\n", "query: SELECT 1 # placeholder, replaced per row\n",
		":${env:PGPASSWORD}@", "# The matrix this file had was replaced", "id: " + schema + "_Order_Lines\n",
		`query: SELECT * FROM "` + schema + `"."Users"`, "replication_key: updated_at\n", "replication_key: Id\n",
		"#   columns: id bigint, customer text, amount numeric(10,2)?, paid boolean?, meta jsonb?, tags text[]?, updated_at timestamp with time zone\n",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Contains(stdout, "id: old") || strings.Contains(stdout, "order_totals") {
		t.Errorf("old matrix or the view is still there:\n%s", stdout)
	}
	if !strings.Contains(stderr, "note: the password in pipeline.source.config.connection_url was replaced by ${env:PGPASSWORD}; set PGPASSWORD") {
		t.Errorf("no note on stderr: %s", stderr)
	}
	out := filepath.Join(dir, "pipeline.yaml")
	writeFile(t, out, stdout)
	if code, _, stderr := cli(t, "validate", "--param-env", "PGPASSWORD=sekret-pw", out); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}
	if code, _, _ := cli(t, "validate", "--no-env-file", out); code != 1 {
		t.Errorf("validate without PGPASSWORD: exit %d, want 1 (the variable is required)", code)
	}
	rows := matrixRows(t, out, map[string]string{"PGPASSWORD": "sekret-pw"})
	if len(rows) != 4 {
		t.Errorf("%d rows, want 4: %v", len(rows), rows)
	}
	// --json: the datasets, with the original's fields and ours.
	code, stdout, _ = cli(t, "discover", conn, "--schema", schema, "--include", "*.orders", "--json")
	var res struct {
		Source   string `json:"source"`
		Datasets []struct {
			Name, Kind     string
			Schema         map[string]any `json:"schema"`
			ConfigPatch    map[string]any `json:"config_patch"`
			PrimaryKey     []string       `json:"primary_key"`
			ReplicationKey *string        `json:"replication_key"`
			Columns        []struct {
				Name, Type string
				DBType     string `json:"db_type"`
				Nullable   bool
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.Source != "postgres" || len(res.Datasets) != 1 {
		t.Fatalf("--json: exit %d: %s", code, stdout)
	}
	d := res.Datasets[0]
	if d.Name != schema+".orders" || d.Kind != "table" || *d.ReplicationKey != "updated_at" || fmt.Sprint(d.PrimaryKey) != "[id]" ||
		d.ConfigPatch["replication_key"] != "updated_at" || len(d.Columns) != 7 || d.Columns[6].DBType != "timestamp with time zone" {
		t.Errorf("--json dataset: %+v", d)
	}
	props := d.Schema["properties"].(map[string]any)
	if fmt.Sprint(props["amount"]) != "map[type:[string null]]" || fmt.Sprint(props["updated_at"]) != "map[format:date-time type:string]" {
		t.Errorf("schema: %v", props)
	}
}

// From a URL, the Postgres pipeline runs and resumes.
func TestDiscoverPostgresURLRuns(t *testing.T) {
	u, schema := postgresFixture(t)
	t.Chdir(t.TempDir())
	code, _, stderr := cli(t, "discover", "postgres", "--url", u, "--schema", schema, "--include", "*.orders", "--include", "*.Order Lines", "-o", "p.yaml")
	if code != 0 {
		t.Fatalf("discover: %s", stderr)
	}
	for run := 1; run <= 2; run++ {
		if code, _, stderr := cli(t, "run", "--quiet", "p.yaml"); code != 0 {
			t.Fatalf("run %d: exit %d: %s", run, code, stderr)
		}
		for name, n := range map[string]int{schema + "_orders": 2, schema + "_Order_Lines": 2} {
			data, err := os.ReadFile(filepath.Join("out", name+".jsonl"))
			if err != nil || strings.Count(string(data), "\n") != n {
				t.Errorf("run %d: %s: %d lines (%v), want %d", run, name, strings.Count(string(data), "\n"), err, n)
			}
		}
	}
}

func TestDiscoverMySQLURL(t *testing.T) {
	u := mysqlFixture(t, fixtureDDL["mysql"])
	out := filepath.Join(t.TempDir(), "p.yaml")
	code, _, stderr := cli(t, "discover", "mysql", "--url", u, "-o", out)
	if code != 0 {
		t.Fatalf("discover: %s", stderr)
	}
	if code, _, stderr := cli(t, "validate", out); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}
	rows := matrixRows(t, out, nil)
	if len(rows) != 5 || !strings.Contains(rows["orders"], `"replication_key":"updated_at"`) ||
		!strings.Contains(rows["Order_Lines"], "SELECT * FROM `Order Lines`") || strings.Contains(rows["events_log"], "replication_key") {
		t.Errorf("rows: %v", rows)
	}
}

func TestDiscoverErrors(t *testing.T) {
	dir := t.TempDir()
	empty := sqliteFixture(t, []string{"CREATE VIEW v AS SELECT 1 AS x"})
	db := sqliteFixture(t, fixtureDDL["sqlite"])
	csvConf := filepath.Join(dir, "csv.yaml")
	writeFile(t, csvConf, "version: 1\npipeline:\n  source: {type: csv, config: {path: in.csv}}\n  sink: {type: stdout}\n")
	named := filepath.Join(dir, "named.yaml")
	writeFile(t, named, "version: 1\npipeline:\n  sources:\n    shop: {type: sqlite, config: {path: "+db+", query: SELECT 1}}\n  sink: {type: stdout}\n")
	exists := filepath.Join(dir, "exists.yaml")
	writeFile(t, exists, "keep me\n")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"empty database", []string{"discover", "sqlite", "--url", empty}, 1, "the database has no tables (views are not listed)"},
		{"missing file", []string{"discover", "sqlite", "--url", filepath.Join(dir, "nope.db")}, 1, "nope.db: no such file"},
		{"nothing matches", []string{"discover", "sqlite", "--url", db, "--include", "zzz*"}, 1,
			"none of its 5 tables matches --include/--exclude (tables: Order Lines, Users, env, events_log, orders)"},
		{"unreachable postgres", []string{"discover", "postgres", "--url", "postgres://app:sekret-pw@127.0.0.1:1/shop?connect_timeout=2"}, 1,
			"error: discover: postgres: connect to postgres://app:***@127.0.0.1:1/shop?connect_timeout=2: failed to connect"},
		{"unsupported source", []string{"discover", csvConf}, 1, `source type "csv" does not support dataset discovery (supported: mysql, postgres, sqlite)`},
		{"unknown type", []string{"discover", "csv", "--url", "x"}, 2, `source type "csv" does not support dataset discovery`},
		{"url without type", []string{"discover", "--url", db}, 2, "--url needs the source type as the argument"},
		{"source with url", []string{"discover", "sqlite", "--url", db, "--source", "x"}, 2, "--source picks a template"},
		{"unknown template", []string{"discover", named, "--source", "nope"}, 1, "has no source template named 'nope' (available: shop)"},
		{"default template missing", []string{"discover", named}, 1, "has no source template named 'default' (available: shop)"},
		{"output exists", []string{"discover", "sqlite", "--url", db, "-o", exists}, 1, "exists.yaml already exists (use --force to overwrite)"},
		{"bad format", []string{"discover", "sqlite", "--url", db, "--format", "toml"}, 2, "--format must be yaml or json"},
		{"schema on sqlite", []string{"discover", "sqlite", "--url", db, "--schema", "main"}, 1, "schemas cannot be chosen"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d (want %d)\nstderr %s\nwant %q\nstdout %s", code, tc.code, stderr, tc.want, stdout)
			}
			if strings.Contains(stderr, "sekret-pw") {
				t.Errorf("password printed: %s", stderr)
			}
		})
	}
	if data, _ := os.ReadFile(exists); string(data) != "keep me\n" {
		t.Errorf("the existing output was changed: %q", data)
	}
	// --force replaces it; a named template adds ref: to each row.
	if code, _, stderr := cli(t, "discover", named, "--source", "shop", "-o", exists, "--force"); code != 0 {
		t.Fatalf("--force: %s", stderr)
	}
	if data, _ := os.ReadFile(exists); !strings.Contains(string(data), "ref: shop\n") {
		t.Errorf("rows lack ref: shop:\n%s", data)
	}
	if code, _, stderr := cli(t, "validate", exists); code != 0 {
		t.Errorf("validate: %s", stderr)
	}
	// --json goes to --output too.
	js := filepath.Join(dir, "tables.json")
	code, stdout, stderr := cli(t, "discover", "sqlite", "--url", db, "--json", "-o", js)
	data, _ := os.ReadFile(js)
	if code != 0 || stdout != "" || !json.Valid(data) || !strings.Contains(stderr, "wrote "+js+" (5 tables from 'sqlite' source, as JSON)") {
		t.Errorf("--json -o: exit %d, stderr %s, file %s", code, stderr, data)
	}
}

func TestDiscoverMySQLWrongPassword(t *testing.T) {
	u, err := url.Parse(mysqlFixture(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "sekret-pw")
	code, _, stderr := cli(t, "discover", "mysql", "--url", u.String())
	if code != 1 || !strings.Contains(stderr, "Access denied") || strings.Contains(stderr, "sekret-pw") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	u.User = url.User(u.User.Username())
	code, _, stderr = cli(t, "discover", "mysql", "--url", u.String())
	if code != 1 || !strings.Contains(stderr, "the database has no tables") {
		t.Errorf("empty database: exit %d: %s", code, stderr)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A server that accepts connections and never answers: --timeout ends
// the wait with a message that says so.
func TestDiscoverTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	for _, u := range []string{"postgres://app:sekret-pw@" + addr + "/shop", "mysql://app:sekret-pw@" + addr + "/shop"} {
		kind, _, _ := strings.Cut(u, ":")
		code, _, stderr := cli(t, "discover", kind, "--url", u, "--timeout", "500ms")
		if code != 1 || !strings.Contains(stderr, "no answer within --timeout 500ms") || strings.Contains(stderr, "sekret-pw") {
			t.Errorf("%s: exit %d: %s", kind, code, stderr)
		}
	}
}
