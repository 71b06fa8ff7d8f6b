package postgres

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/jackc/pgx/v5"
)

// terminate ends the server process of pid, as an administrator's
// pg_terminate_backend does, and waits until it is gone.
func terminate(t testing.TB, conn *pgx.Conn, pid uint32) {
	t.Helper()
	mustExec(t, conn, "SELECT pg_terminate_backend($1)", pid)
	deadline := time.Now().Add(10 * time.Second)
	for count(t, conn, "SELECT count(*) FROM pg_stat_activity WHERE pid = "+itoa(int64(pid))) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("backend %d still alive after pg_terminate_backend", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func itoa(n int64) string { return connector.Int(n).Text() }

// wideTable creates schema.wide with n rows of about 200 bytes, so that a
// read of it is still streaming when its connection is cut.
func wideTable(t testing.TB, conn *pgx.Conn, schema string, n int) {
	t.Helper()
	mustExec(t, conn, "CREATE TABLE "+schema+".wide (id bigint PRIMARY KEY, pad text)")
	mustExec(t, conn, "INSERT INTO "+schema+".wide SELECT g, repeat('x', 200) FROM generate_series(1, $1::int) g", n)
}

// readAll reads src to the end as the engine does: a retryable error is
// followed by another Next. kill runs once before the page numbered at.
func readAll(t *testing.T, src *Source, at int, kill func()) (ids []int64, retries []error) {
	t.Helper()
	ctx := context.Background()
	for page := 0; ; page++ {
		if page == at {
			kill()
		}
		p, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			return ids, retries
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
}

func TestSourceReadsOnAfterConnectionLoss(t *testing.T) {
	url, conn, schema := testDB(t)
	const n = 200_000
	wideTable(t, conn, schema, n)
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
			s, err := newSource(cfg("connection_url", url, "schema", schema, "table", "wide", "replication_key", "id"))
			if err != nil {
				t.Fatal(err)
			}
			src := s.(*Source)
			if err := src.Open(context.Background(), connector.SourceOptions{StartBookmark: tc.start}); err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			ids, retries := readAll(t, src, tc.at, func() { terminate(t, conn, src.conn.PgConn().PID()) })
			if len(retries) != 1 {
				t.Fatalf("%d retryable errors, want exactly 1 (the cut): %v", len(retries), retries)
			}
			if msg := retries[0].Error(); !strings.Contains(msg, `"wide"`) || !strings.Contains(msg, "connection lost") {
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

// Without replication_key the rows have no repeatable order, so a cut
// read cannot go on where it stopped: it fails, naming the table and row.
func TestSourceWithoutReplicationKeyFailsOnConnectionLoss(t *testing.T) {
	url, conn, schema := testDB(t)
	wideTable(t, conn, schema, 200_000)
	s, err := newSource(cfg("connection_url", url, "schema", schema, "table", "wide"))
	if err != nil {
		t.Fatal(err)
	}
	src := s.(*Source)
	if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	terminate(t, conn, src.conn.PgConn().PID())
	for {
		_, err := src.Next(context.Background())
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) {
			t.Fatal("the read ended normally after its connection was cut")
		}
		if connector.IsRetryable(err) {
			t.Fatalf("retryable without replication_key: %v", err)
		}
		if msg := err.Error(); !strings.Contains(msg, `table "`+schema+`"."wide"`) || !strings.Contains(msg, "after row") {
			t.Errorf("error does not name the table and row: %s", msg)
		}
		return
	}
}

// slowWrites makes every INSERT or COPY into schema.out sleep while
// schema.gate has a row, so a test can cut the connection mid-write.
func slowWrites(t testing.TB, conn *pgx.Conn, schema string) {
	t.Helper()
	mustExec(t, conn, "CREATE TABLE "+schema+".gate (x int)")
	mustExec(t, conn, "CREATE FUNCTION "+schema+`.slow() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_sleep(60) FROM `+schema+`.gate; RETURN NULL; END $$`)
	mustExec(t, conn, "CREATE TRIGGER slow BEFORE INSERT ON "+schema+".out FOR EACH STATEMENT EXECUTE FUNCTION "+schema+".slow()")
}

// cutMidWrite runs write in the background, waits until the sink's
// statement sleeps in the trigger, opens the gate for later statements and
// terminates the backend; it returns write's error.
func cutMidWrite(t *testing.T, conn *pgx.Conn, schema string, snk *Sink, write func() error) error {
	t.Helper()
	mustExec(t, conn, "INSERT INTO "+schema+".gate VALUES (1)")
	pid := snk.conn.PgConn().PID()
	done := make(chan error, 1)
	go func() { done <- write() }()
	deadline := time.Now().Add(20 * time.Second)
	for count(t, conn, "SELECT count(*) FROM pg_stat_activity WHERE pid = "+itoa(int64(pid))+" AND wait_event = 'PgSleep'") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the write never reached the trigger")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mustExec(t, conn, "DELETE FROM "+schema+".gate")
	terminate(t, conn, pid)
	return <-done
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

// A page whose transaction held nothing else is written again on a new
// connection; one that shared its transaction with earlier pages is not
// (they are gone), and the error says what a rerun does.
func TestSinkConnectionLossMidWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		kv        []any
		before    *connector.Page // written (not flushed) before the cut page
		retryable bool
		want      int // rows after the retry (or after the failure)
	}{
		{"copy page alone", []any{"write_method", "copy"}, nil, true, 200},
		{"insert page alone", []any{"write_method", "insert"}, nil, true, 200},
		{"upsert page alone", []any{"write_mode", "upsert", "key", []any{"id"}}, nil, true, 200},
		{"upsert after unflushed pages", []any{"write_mode", "upsert", "key", []any{"id"}}, page(1001, 1100), false, 100},
		{"copy after unflushed pages", []any{"write_method", "copy"}, page(1001, 1100), false, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, conn, schema := testDB(t)
			mustExec(t, conn, "CREATE TABLE "+schema+".out (id bigint PRIMARY KEY, name text)")
			slowWrites(t, conn, schema)
			kv := append([]any{"connection_url", url, "schema", schema, "table_name", "out", "column_mapping", "auto_map"}, tc.kv...)
			snk := openSink(t, cfg(kv...))
			if err := connectortest.WritePagesOpen(ctx, snk, page(1, 100)); err != nil {
				t.Fatal(err)
			}
			if err := snk.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.before != nil {
				if err := snk.Write(ctx, tc.before); err != nil {
					t.Fatal(err)
				}
			}
			cut := page(101, 200)
			err := cutMidWrite(t, conn, schema, snk, func() error { return connectortest.WritePagesOpen(ctx, snk, cut) })
			if err == nil {
				t.Fatal("the write succeeded although its connection was cut")
			}
			if connector.IsRetryable(err) != tc.retryable {
				t.Fatalf("retryable = %v, want %v: %v", !tc.retryable, tc.retryable, err)
			}
			if tc.retryable {
				if err := connectortest.WritePagesOpen(ctx, snk, cut); err != nil {
					t.Fatalf("retry: %v", err)
				}
				if err := snk.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			} else if !strings.Contains(err.Error(), "a rerun writes them again from the saved bookmark") {
				t.Errorf("the error does not say what happens to the lost pages: %v", err)
			}
			got := count(t, conn, "SELECT count(*) FROM "+schema+".out")
			sum := count(t, conn, "SELECT coalesce(sum(id), 0) FROM "+schema+".out")
			wantSum := 5050
			if tc.want == 200 {
				wantSum = 20100
			}
			if got != tc.want || sum != wantSum {
				t.Fatalf("table has %d rows (id sum %d), want %d (sum %d)", got, sum, tc.want, wantSum)
			}
		})
	}
}

// Under exactly-once a page whose commit outcome is unknown is looked up
// by its token before it is written again: never twice.
func TestSinkExactlyOnceRetryChecksToken(t *testing.T) {
	ctx := context.Background()
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".out (id bigint PRIMARY KEY, name text)")
	slowWrites(t, conn, schema)
	snk := openSink(t, cfg("connection_url", url, "schema", schema, "table_name", "out", "column_mapping", "auto_map"))
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
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 100 {
		t.Fatalf("%d rows after retrying a committed page, want 100", n)
	}
	// The connection dropped before the commit: the retry writes it.
	err := cutMidWrite(t, conn, schema, snk, func() error { return snk.WriteIdempotent(ctx, page(101, 200), scope, tok2) })
	if !connector.IsRetryable(err) {
		t.Fatalf("want a retryable error, got %v", err)
	}
	if err := snk.WriteIdempotent(ctx, page(101, 200), scope, tok2); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 200 {
		t.Fatalf("%d rows, want 200", n)
	}
	if tok, ok, err := snk.LastCommittedToken(ctx, scope); err != nil || !ok || tok != tok2 {
		t.Fatalf("token %q %v %v, want %q", tok, ok, err, tok2)
	}
}
