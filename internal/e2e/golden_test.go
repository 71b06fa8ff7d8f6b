// Package e2e runs the golden end-to-end cases of testdata/pipelines
// against the real faucet binary, built once per test run.
//
// A case is a directory holding its pipeline file(s), inputs and a case.yaml:
//
//	description: what the case proves
//	env: {NAME: value}            # extra environment for every step
//	services: [postgres, mysql]   # optional: a fresh database on each
//	steps:
//	  - args: [run, faucet.yaml]   # default: [run, --quiet]
//	    before:                    # optional: copy files inside the case
//	      - {from: more/input.csv, to: input.csv}
//	    exit: 0                    # expected exit status
//	    stdout: want/stdout.txt    # optional: exact stdout
//	    stdout_contains: ["..."]   # optional: lines stdout must contain
//	    stderr_contains: ["..."]   # optional: lines stderr must contain
//	    stderr_excludes: ["..."]   # optional: text stderr must not contain
//	    files: {out.jsonl: want/out.jsonl}   # produced file -> expected file
//	    absent: [out.jsonl]        # files that must not exist
//	  - sql: {db: postgres, file: setup.sql}             # run a script
//	  - sql: {db: sqlite, path: src.sqlite, file: setup-sqlite.sql}
//	  - query: {db: mysql, sql: "SELECT ... ORDER BY id", want: want/x.tsv}
//
// Each case runs in a fresh copy of its directory. Set FAUCET_GOLDEN_UPDATE=1
// to rewrite the expected files from what the binary produced.
//
// Databases: for each service a case declares, the harness creates the
// database faucet_golden_<case>_<pid> (the case name in lower case with
// every other character as _) before the steps and drops it after them, so
// that cases running in parallel, or two test processes, never share
// tables. The steps see its URL in FAUCET_GOLDEN_PG (postgres://...) and
// FAUCET_GOLDEN_MYSQL (mysql://..., or a go-sql-driver DSN when
// FAUCET_TEST_MYSQL_URL is one), which pipelines read with
// ${env:FAUCET_GOLDEN_PG}. The servers are FAUCET_TEST_POSTGRES_URL and
// FAUCET_TEST_MYSQL_URL (default: the local services of SPEC §4); one that
// does not answer skips the case, or fails it under CI=true.
//
// A sql step executes every statement of a script (relative to the case
// copy) in one session; a query step runs one query and compares its rows
// with a golden file: a header line of column names, then one line per
// row, values separated by tabs, NULL as \N, and backslash, tab, newline,
// carriage return and non-UTF-8 bytes escaped as \\, \t, \n, \r, \xNN.
// Postgres values are its text output; MariaDB's come over the text
// protocol, integers and floats as the driver parses them; SQLite's are the
// stored values, except that the driver turns DATE, DATETIME and TIMESTAMP
// columns into RFC 3339 UTC (CAST(x AS TEXT) shows the stored text). Floats
// of both print in Go's shortest form (1e+300, -1.5e-07). Harness sessions
// run in UTC. db sqlite takes path, the database file relative to the case
// copy. A query returning more than one row must have an ORDER BY.
//
// Brokers: services may also list redis, nats, kafka, s3 and http
// (golden_brokers_test.go). Every case gets FAUCET_GOLDEN_PREFIX,
// fg_<case>_<pid> in the spelling of the database names. redis is the
// machine's Redis (FAUCET_TEST_REDIS_URL, in FAUCET_GOLDEN_REDIS_URL; the
// case's keys must start with <prefix>: and are deleted after it). nats is
// the machine's NATS (FAUCET_TEST_NATS_URL, in FAUCET_GOLDEN_NATS) with a
// JetStream stream named <prefix> over the subjects <prefix>.>, deleted
// after the case. A service that does not answer skips the case, or fails
// it under CI=true. kafka is an in-process kfake cluster of the case
// (FAUCET_GOLDEN_KAFKA: its brokers), s3 an in-process gofakes3 server
// (FAUCET_GOLDEN_S3, path style, any credentials) holding the empty
// bucket FAUCET_GOLDEN_S3_BUCKET, and http an in-process server of the
// JSON pages of the case copy's api/ folder that records POSTed bodies
// (FAUCET_GOLDEN_HTTP; the rules are on goldenAPI, golden_http_test.go).
// Broker steps, each alone in its step ({prefix} in names is the prefix):
//
//	steps:
//	  - redis: {cmds: [[XADD, "{prefix}:events", "1-1", k, v]]}
//	  - kafka_topic: {topic: orders, partitions: 1}
//	  - kafka_produce: {topic: orders, file: msgs.jsonl}  # a message a line
//	  - nats_publish: {subject: orders, file: msgs.jsonl} # to <prefix>.orders
//	  - s3_put: {key: in/a.csv, file: a.csv}
//	  - s3_get: {key: out/000000.jsonl, want: want/a.jsonl}
//	  - s3_list: {want: want/keys.txt}                    # a key a line
//	  - received: {want: want/posted.jsonl}               # http bodies so far
package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type goldenCase struct {
	Description string            `yaml:"description"`
	Env         map[string]string `yaml:"env"`
	Services    []string          `yaml:"services"`
	Steps       []goldenStep      `yaml:"steps"`
}

type goldenStep struct {
	Args           []string          `yaml:"args"`
	Before         []copySpec        `yaml:"before"`
	Exit           int               `yaml:"exit"`
	Stdout         string            `yaml:"stdout"`
	StdoutContains []string          `yaml:"stdout_contains"`
	StderrContains []string          `yaml:"stderr_contains"`
	StderrExcludes []string          `yaml:"stderr_excludes"`
	Files          map[string]string `yaml:"files"`
	Absent         []string          `yaml:"absent"`

	// A sql or query step runs no command.
	SQL   *sqlStep   `yaml:"sql"`
	Query *queryStep `yaml:"query"`

	// Steps that seed or check a broker service (golden_broker_steps_test.go).
	brokerSteps `yaml:",inline"`
}

// isCommand reports whether any of the command keys is set.
func (st goldenStep) isCommand() bool {
	return len(st.Args) > 0 || len(st.Before) > 0 || st.Exit != 0 || st.Stdout != "" ||
		len(st.StdoutContains) > 0 || len(st.StderrContains) > 0 || len(st.StderrExcludes) > 0 ||
		len(st.Files) > 0 || len(st.Absent) > 0
}

type copySpec struct {
	From string `yaml:"from"`
	To   string `yaml:"to"`
}

func TestGolden(t *testing.T) {
	bin := faucetBinary(t)
	root := filepath.Join("..", "..", "testdata", "pipelines")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n++
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runCase(t, bin, filepath.Join(root, name))
		})
	}
	if n == 0 {
		t.Fatal("no golden cases found")
	}
}

func runCase(t *testing.T, bin, src string) {
	data, err := os.ReadFile(filepath.Join(src, "case.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c goldenCase
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("case.yaml: %v", err)
	}
	if len(c.Steps) == 0 {
		t.Fatal("case.yaml has no steps")
	}
	work := t.TempDir()
	copyTree(t, src, work)
	dbs := setUpServices(t, filepath.Base(src), c.Services)
	brokers := setUpBrokers(t, work, filepath.Base(src), c.Services)
	for i, st := range c.Steps {
		switch {
		case st.brokerSteps.count() > 1 || (st.brokerSteps.count() == 1 && (st.SQL != nil || st.Query != nil || st.isCommand())):
			t.Fatalf("step %d: a step is one of a command, sql, query or one broker step", i+1)
		case st.brokerSteps.count() == 1:
			runBrokerStep(t, i+1, brokers, work, src, st.brokerSteps)
			continue
		case st.SQL != nil && (st.Query != nil || st.isCommand()), st.Query != nil && st.isCommand():
			t.Fatalf("step %d: a step is one of a command, sql or query", i+1)
		case st.SQL != nil:
			runSQL(t, i+1, dbs, work, *st.SQL)
			continue
		case st.Query != nil:
			runQuery(t, i+1, dbs, work, src, *st.Query)
			continue
		}
		for _, cp := range st.Before {
			copyFile(t, filepath.Join(work, cp.From), filepath.Join(work, cp.To))
		}
		args := st.Args
		if len(args) == 0 {
			args = []string{"run", "--quiet"}
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "FAUCET_LOG=info", "NO_COLOR=1")
		cmd.Env = append(cmd.Env, dbs.env()...)
		cmd.Env = append(cmd.Env, brokers.env()...)
		for k, v := range c.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		ctx := func() string {
			return "step " + itoa(i+1) + " (" + strings.Join(args, " ") + ")\n--- stdout\n" + stdout.String() + "--- stderr\n" + stderr.String()
		}
		if code != st.Exit {
			t.Fatalf("%s\nexit status %d, want %d", ctx(), code, st.Exit)
		}
		if st.Stdout != "" {
			compareFile(t, ctx, filepath.Join(src, st.Stdout), stdout.Bytes())
		}
		for _, s := range st.StdoutContains {
			if !strings.Contains(stdout.String(), s) {
				t.Errorf("%s\nstdout lacks %q", ctx(), s)
			}
		}
		for _, s := range st.StderrContains {
			if !strings.Contains(stderr.String(), s) {
				t.Errorf("%s\nstderr lacks %q", ctx(), s)
			}
		}
		for _, s := range st.StderrExcludes {
			if strings.Contains(stderr.String(), s) {
				t.Errorf("%s\nstderr contains %q", ctx(), s)
			}
		}
		for produced, want := range st.Files {
			got, err := os.ReadFile(filepath.Join(work, produced))
			if err != nil {
				t.Errorf("%s\n%v", ctx(), err)
				continue
			}
			compareFile(t, ctx, filepath.Join(src, want), got)
		}
		for _, f := range st.Absent {
			if _, err := os.Stat(filepath.Join(work, f)); err == nil {
				t.Errorf("%s\n%s exists but should not", ctx(), f)
			}
		}
	}
}

func compareFile(t *testing.T, ctx func() string, wantPath string, got []byte) {
	t.Helper()
	if os.Getenv("FAUCET_GOLDEN_UPDATE") == "1" {
		if err := os.MkdirAll(filepath.Dir(wantPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(wantPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatalf("%s\n%v", ctx(), err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s\n%s differs:\n--- got\n%s--- want\n%s", ctx(), wantPath, got, want)
	}
}

func copyTree(t *testing.T, from, to string) {
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
