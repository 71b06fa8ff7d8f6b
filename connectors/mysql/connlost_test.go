package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// kill runs KILL CONNECTION id, as an administrator does, and waits until
// the connection is gone.
func kill(t testing.TB, db *sql.DB, id int64) {
	t.Helper()
	mustExec(t, db, fmt.Sprintf("KILL CONNECTION %d", id))
	deadline := time.Now().Add(10 * time.Second)
	for count(t, db, fmt.Sprintf("SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = %d", id)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("connection %d still alive after KILL", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitConn returns the id of the one connection of this test's database
// whose processlist row matches cond.
func waitConn(t testing.TB, db *sql.DB, cond string) int64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var id int64
		err := db.QueryRow("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND " + cond).Scan(&id)
		if err == nil {
			return id
		}
		if !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection with %s", cond)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wideTable creates wide with n rows of about 200 bytes, so that a read
// of it is still streaming when its connection is cut.
func wideTable(t testing.TB, db *sql.DB, n int) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE wide (id BIGINT PRIMARY KEY, pad VARCHAR(255))",
		"SET SESSION max_recursive_iterations = 100000000",
		fmt.Sprintf(`INSERT INTO wide WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d)
			SELECT x, REPEAT('x', 200) FROM c`, n),
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestSourceReadsOnAfterConnectionLoss(t *testing.T) {
	u, db := testDB(t)
	const n = 200_000
	wideTable(t, db, n)
	from := connector.Int(100_000)
	for _, tc := range []struct {
		name  string
		start *connector.Value
		at    int // pages read before the connection is cut
		first int64
	}{
		{"before the first page", nil, 0, 1},
		{"after three pages", nil, 3, 1},
		{"resumed run, after one page", &from, 1, 100_001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newSource(cfg("connection_url", u, "table", "wide", "replication_key", "id"))
			if err != nil {
				t.Fatal(err)
			}
			src := s.(*Source)
			ctx := context.Background()
			if err := src.Open(ctx, connector.SourceOptions{StartBookmark: tc.start}); err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var ids []int64
			var retries []error
			for page := 0; ; page++ {
				if page == tc.at {
					kill(t, db, waitConn(t, db, "INFO LIKE '%_faucet_src%'"))
				}
				p, err := src.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					if !connector.IsRetryable(err) {
						t.Fatalf("page %d: %v (not retryable)", page, err)
					}
					if retries = append(retries, err); len(retries) > 3 {
						t.Fatalf("still failing after %d retries: %v", len(retries), err)
					}
					continue
				}
				for _, r := range p.Records {
					v, _ := r.Get("id")
					ids = append(ids, v.AsInt())
				}
			}
			if len(retries) != 1 {
				t.Fatalf("%d retryable errors, want exactly 1 (the cut): %v", len(retries), retries)
			}
			if msg := retries[0].Error(); !strings.Contains(msg, "`wide`") || !strings.Contains(msg, "connection lost") {
				t.Errorf("error does not name the table and the cause: %s", msg)
			}
			if want := n - tc.first + 1; int64(len(ids)) != want {
				t.Fatalf("read %d rows, want %d", len(ids), want)
			}
			for i, id := range ids {
				if id != tc.first+int64(i) {
					t.Fatalf("row %d has id %d, want %d: a gap or a duplicate across the reconnect", i, id, tc.first+int64(i))
				}
			}
		})
	}
}

// Without replication_key the rows have no repeatable order: a cut read
// fails, naming the table and row.
func TestSourceWithoutReplicationKeyFailsOnConnectionLoss(t *testing.T) {
	u, db := testDB(t)
	wideTable(t, db, 200_000)
	s, err := newSource(cfg("connection_url", u, "table", "wide"))
	if err != nil {
		t.Fatal(err)
	}
	src := s.(*Source)
	ctx := context.Background()
	if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Next(ctx); err != nil {
		t.Fatal(err)
	}
	kill(t, db, waitConn(t, db, "INFO LIKE 'SELECT%wide%'"))
	for {
		_, err := src.Next(ctx)
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) {
			t.Fatal("the read ended normally after its connection was cut")
		}
		if connector.IsRetryable(err) {
			t.Fatalf("retryable without replication_key: %v", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "table `wide`") || !strings.Contains(msg, "after row") {
			t.Errorf("error does not name the table and row: %s", msg)
		}
		return
	}
}

// slowWrites makes every row inserted into out sleep while gate has a
// row, so a test can cut the connection mid-write.
func slowWrites(t testing.TB, db *sql.DB) {
	t.Helper()
	mustExec(t, db, "CREATE TABLE gate (x INT)")
	mustExec(t, db, "CREATE TRIGGER slow BEFORE INSERT ON `out` FOR EACH ROW SET @faucet_slow = (SELECT SLEEP(60) FROM gate LIMIT 1)")
}

// cutMidWrite runs write in the background, waits until the sink's
// statement sleeps in the trigger, kills the connection, empties the gate
// for the retry and returns write's error.
func cutMidWrite(t *testing.T, db *sql.DB, write func() error) error {
	t.Helper()
	mustExec(t, db, "INSERT INTO gate VALUES (1)")
	done := make(chan error, 1)
	go func() { done <- write() }()
	kill(t, db, waitConn(t, db, "STATE = 'User sleep'"))
	err := <-done
	mustExec(t, db, "DELETE FROM gate")
	return err
}

func page(from, to int) *connector.Page {
	p := &connector.Page{}
	for i := from; i <= to; i++ {
		p.Records = append(p.Records, rec("id", i, "name", "n"))
	}
	return p
}

func openSink(t testing.TB, c connector.Config) *Sink {
	return connectortest.OpenSink[*Sink](t, newSink, c)
}

// Every page is its own transaction, so a page cut mid-write is written
// again on a new connection.
func TestSinkConnectionLossMidWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		kv   []any
	}{
		{"append", nil},
		{"upsert", []any{"write_mode", "upsert", "key", []any{"id"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, db := testDB(t)
			mustExec(t, db, "CREATE TABLE `out` (id BIGINT PRIMARY KEY, name VARCHAR(20))")
			slowWrites(t, db)
			snk := openSink(t, cfg(append([]any{"connection_url", u, "table_name", "out", "column_mapping", "auto_map"}, tc.kv...)...))
			if err := connectortest.WritePagesOpen(ctx, snk, page(1, 100)); err != nil {
				t.Fatal(err)
			}
			cut := page(101, 200)
			err := cutMidWrite(t, db, func() error { return connectortest.WritePagesOpen(ctx, snk, cut) })
			if !connector.IsRetryable(err) {
				t.Fatalf("want a retryable error, got %v", err)
			}
			if !strings.Contains(err.Error(), "insert into `out`") {
				t.Errorf("the error does not name the table: %v", err)
			}
			if err := connectortest.WritePagesOpen(ctx, snk, cut); err != nil {
				t.Fatalf("retry: %v", err)
			}
			if n, sum := count(t, db, "SELECT count(*) FROM `out`"), count(t, db, "SELECT sum(id) FROM `out`"); n != 200 || sum != 20100 {
				t.Fatalf("table has %d rows (id sum %d), want 200 (sum 20100)", n, sum)
			}
		})
	}
}

// Under exactly-once a page whose commit outcome is unknown is looked up
// by its token before it is written again: never twice.
func TestSinkExactlyOnceRetryChecksToken(t *testing.T) {
	ctx := context.Background()
	u, db := testDB(t)
	mustExec(t, db, "CREATE TABLE `out` (id BIGINT, name VARCHAR(20))") // no key: a second write would duplicate
	slowWrites(t, db)
	snk := openSink(t, cfg("connection_url", u, "table_name", "out", "column_mapping", "auto_map"))
	const scope = "eo::row-0"
	tok1, tok2 := "00000000000000000001#100", "00000000000000000002#200"
	if err := snk.WriteIdempotent(ctx, page(1, 100), scope, tok1); err != nil {
		t.Fatal(err)
	}
	// The connection dropped after the commit: the engine retries the page.
	snk.uncertain = true
	if err := snk.WriteIdempotent(ctx, page(1, 100), scope, tok1); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT count(*) FROM `out`"); n != 100 {
		t.Fatalf("%d rows after retrying a committed page, want 100", n)
	}
	// The connection dropped before the commit: the retry writes it.
	err := cutMidWrite(t, db, func() error { return snk.WriteIdempotent(ctx, page(101, 200), scope, tok2) })
	if !connector.IsRetryable(err) {
		t.Fatalf("want a retryable error, got %v", err)
	}
	if err := snk.WriteIdempotent(ctx, page(101, 200), scope, tok2); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n := count(t, db, "SELECT count(*) FROM `out`"); n != 200 {
		t.Fatalf("%d rows, want 200", n)
	}
	if tok, ok, err := snk.LastCommittedToken(ctx, scope); err != nil || !ok || tok != tok2 {
		t.Fatalf("token %q %v %v, want %q", tok, ok, err, tok2)
	}
}

// KILL QUERY stops a statement on purpose; it is not a lost connection.
func TestKillQueryIsNotRetried(t *testing.T) {
	u, db := testDB(t)
	mustExec(t, db, "CREATE TABLE `out` (id BIGINT PRIMARY KEY, name VARCHAR(20))")
	slowWrites(t, db)
	snk := openSink(t, cfg("connection_url", u, "table_name", "out", "column_mapping", "auto_map"))
	mustExec(t, db, "INSERT INTO gate VALUES (1)")
	done := make(chan error, 1)
	go func() { done <- connectortest.WritePagesOpen(context.Background(), snk, page(1, 10)) }()
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", waitConn(t, db, "STATE = 'User sleep'")))
	err := <-done
	if err == nil || connector.IsRetryable(err) {
		t.Fatalf("want a non-retryable error, got %v", err)
	}
}
