package postgres

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
)

// The source reuses the memory of pages the engine released (records,
// fields, text arena). A page's values must stay intact until it is
// released, even while later pages are read, and must equal what a read
// without reuse returns.
func TestSourceReusesReleasedPages(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".r (id int, name text, at timestamptz, tsn timestamp, n numeric, doc jsonb, arr text[])")
	mustExec(t, conn, `INSERT INTO `+schema+`.r SELECT g, repeat('é', g % 7) || E'\t' || g, '2024-01-01Z'::timestamptz + g * interval '1.5 s',
		'2024-01-01'::timestamp + g * interval '1 ms', g / 7.0, jsonb_build_object('k', g, 's', repeat('x', g % 300), 'a', jsonb_build_array(g, 'v' || g)),
		ARRAY['a' || g, NULL] FROM generate_series(1, 700) g`)
	q := "SELECT * FROM " + schema + ".r ORDER BY id"
	var want []string
	for _, r := range collect(t, cfg("connection_url", url, "query", q), nil).Records { // Collect never releases
		want = append(want, connector.Object(r).String())
	}

	src, err := newSource(cfg("connection_url", url, "query", q, "batch_size", 50))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var got []string
	var held *connector.Page // the previous page stays unreleased while the next is read
	reused := 0
	for {
		p, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if held != nil {
			if unsafe.SliceData(held.Records) == unsafe.SliceData(p.Records) {
				t.Fatal("a page that was not released was reused")
			}
			for i, r := range held.Records {
				if s := connector.Object(r).String(); s != want[len(got)-len(held.Records)+i] {
					t.Fatalf("held page changed while the next one was read: %s", s)
				}
			}
			held.Done()
		}
		for _, r := range p.Records {
			got = append(got, connector.Object(r).String())
		}
		if held != nil && len(got) > 150 {
			reused++
		}
		held = p
	}
	held.Done()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("read %d records with reuse, %d without; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if reused == 0 {
		t.Fatal("no page read after a release")
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// COPY pages written through the engine's path (EncodePage, WriteEncoded)
// land in one transaction that Flush commits, after the rows Write left
// pending: nothing is visible before the Flush, everything after it.
func TestSinkCopyPagesCommitAtFlush(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".out (id bigint, name text)")
	snk := openSink(t, cfg("connection_url", url, "schema", schema, "table_name", "out", "column_mapping", "auto_map", "write_method", "copy"))
	ctx := context.Background()
	if err := snk.Write(ctx, page(1, 10)); err != nil { // the Write path keeps its rows pending
		t.Fatal(err)
	}
	for from := 11; from <= 100; from += 30 {
		p := page(from, from+29)
		data, err := snk.EncodePage(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := snk.WriteEncoded(ctx, p, data); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".out"); n != 0 {
		t.Fatalf("%d rows visible before Flush", n)
	}
	if err := snk.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, sum := count(t, conn, "SELECT count(*) FROM "+schema+".out"), count(t, conn, "SELECT sum(id) FROM "+schema+".out"); n != 100 || sum != 5050 {
		t.Fatalf("after Flush: %d rows, id sum %d; want 100, 5050", n, sum)
	}
}
