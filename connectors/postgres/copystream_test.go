package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// writeEncoded writes pages as the engine does (EncodePage, WriteEncoded)
// and returns the first error.
func writeEncoded(ctx context.Context, snk *Sink, pages ...*connector.Page) error {
	return connectortest.WritePagesOpen(ctx, snk, pages...)
}

// A bad value in a page sent into the open COPY fails a later write or the
// Flush; the error names the record of that page, and the transaction
// (every page since the last Flush) is rolled back.
func TestStreamErrorNamesRecordAndRollsBack(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".out (id bigint, name text, n bigint)")
	snk := openSink(t, cfg("connection_url", url, "schema", schema, "table_name", "out", "column_mapping", "auto_map"))
	ctx := context.Background()
	pages := make([]*connector.Page, 6)
	for i := range pages {
		p := &connector.Page{}
		for id := i*100 + 1; id <= i*100+100; id++ {
			n := any(id)
			if id == 245 {
				n = "abc" // page 3, record 45
			}
			p.Records = append(p.Records, rec("id", id, "name", "r", "n", n))
		}
		pages[i] = p
	}
	err := writeEncoded(ctx, snk, pages...)
	if err == nil {
		err = snk.Flush(ctx)
	}
	if err == nil {
		t.Fatal("a bad value was loaded")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{`copy into "` + schema + `"."out"`, `"abc"`, "record 45 of the page: id=245"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if connector.IsRetryable(err) {
		t.Errorf("a bad value is retryable: %v", err)
	}
	if err := snk.Flush(ctx); err != nil {
		t.Fatalf("flush after the failure: %v", err)
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 0 {
		t.Fatalf("%d rows committed from a failed transaction", n)
	}
	// The sink goes on: the next pages start a new transaction.
	if err := writeEncoded(ctx, snk, page(1, 50), page(51, 100), page(101, 150)); err != nil {
		t.Fatal(err)
	}
	if err := snk.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 150 {
		t.Fatalf("%d rows after the retry, want 150", n)
	}
}

// A connection lost while pages sit in the open COPY fails with the error
// that says those pages are gone (not retryable), and nothing of them is
// committed; the sink reconnects for the next transaction.
func TestStreamConnectionLoss(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".out (id bigint PRIMARY KEY, name text)")
	snk := openSink(t, cfg("connection_url", url, "schema", schema, "table_name", "out", "column_mapping", "auto_map"))
	ctx := context.Background()
	if err := writeEncoded(ctx, snk, page(1, 100), page(101, 200), page(201, 300)); err != nil {
		t.Fatal(err)
	}
	if snk.copy == nil {
		t.Fatal("the pages after the first did not go into a COPY stream")
	}
	terminate(t, conn, snk.copy.pid)
	err := writeEncoded(ctx, snk, page(301, 400))
	if err == nil {
		err = snk.Flush(ctx)
	}
	t.Log(err)
	if err == nil || connector.IsRetryable(err) || !strings.Contains(err.Error(), "a rerun writes them again from the saved bookmark") {
		t.Fatalf("want the lost-pages error, got %v", err)
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 0 {
		t.Fatalf("%d rows committed", n)
	}
	if err := writeEncoded(ctx, snk, page(1, 100)); err != nil {
		t.Fatalf("after the loss: %v", err)
	}
	if err := snk.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 100 {
		t.Fatalf("%d rows, want 100", n)
	}
}

// Pages with other columns end the open COPY and start another; Write
// (the page that needs DDL), the commit-token calls and Close without a
// Flush all find the connection free.
func TestStreamSettlesForOtherStatements(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".out (id bigint, name text, extra text)")
	snk := openSink(t, cfg("connection_url", url, "schema", schema, "table_name", "out", "column_mapping", "auto_map", "evolve_schema", true))
	ctx := context.Background()
	narrow := &connector.Page{Records: []connector.Record{rec("id", 1000)}}
	wide := &connector.Page{Records: []connector.Record{rec("id", 1001, "name", "w", "extra", "x")}}
	if err := writeEncoded(ctx, snk, page(1, 10), page(11, 20), narrow, page(21, 30), wide); err != nil {
		t.Fatal(err)
	}
	// A new field: EncodePage sends the page to Write, which adds the column.
	added := &connector.Page{Records: []connector.Record{rec("id", 1002, "name", "n", "more", "m")}}
	if err := writeEncoded(ctx, snk, added, page(31, 40)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := snk.LastCommittedToken(ctx, "scope"); err != nil {
		t.Fatal(err)
	}
	if err := writeEncoded(ctx, snk, page(41, 50), page(51, 60)); err != nil {
		t.Fatal(err)
	}
	if err := snk.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, more := count(t, conn, "SELECT count(*) FROM "+schema+".out"), count(t, conn, "SELECT count(*) FROM "+schema+".out WHERE more = 'm'"); n != 63 || more != 1 {
		t.Fatalf("%d rows (%d with the added column), want 63 (1)", n, more)
	}
	// Pages left in an open COPY at Close are not committed.
	if err := writeEncoded(ctx, snk, page(61, 70), page(71, 80)); err != nil {
		t.Fatal(err)
	}
	if err := snk.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 63 {
		t.Fatalf("%d rows after Close without Flush, want 63", n)
	}
}
