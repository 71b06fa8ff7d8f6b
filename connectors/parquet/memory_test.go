package parquet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// memRows is n records with a string long enough to fill small pages.
func memRows(t testing.TB, from, n int) *connector.Page {
	t.Helper()
	var lines []string
	for i := from; i < from+n; i++ {
		lines = append(lines, fmt.Sprintf(`{"id":%d,"s":"row %d %s","x":%d.5}`, i, i, "abcdefghij"[:i%10], i%7))
	}
	return pageOf(t, lines...)
}

// TestSinkSpillsPagesToFilesItRemoves writes row groups whose pages go
// to the spill files (small pages, small row groups): the pages must be
// in temporary files, not in memory, while the row group is built, the
// file must read back whole, and no file but the output may be left, on
// commit as on abort.
func TestSinkSpillsPagesToFilesItRemoves(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	ctx := context.Background()
	open := func() *Sink {
		snk, err := newSink(connectortest.Cfg(t, "path", path, "page_buffer_bytes", 4096, "row_group_bytes", 64<<10))
		if err != nil {
			t.Fatal(err)
		}
		if err := snk.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		return snk.(*Sink)
	}
	var want []string
	s := open()
	for p := range 10 {
		page := memRows(t, p*1000, 1000)
		for _, r := range page.Records {
			want = append(want, string(connector.AppendRecordJSON(nil, r)))
		}
		if err := s.Write(ctx, page); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.spill.all) == 0 {
		t.Fatal("no page went to a spill file")
	}
	if err := s.CommitOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	got, pages := readLines(t, connectortest.Cfg(t, "path", path, "batch_size", 0))
	sameLines(t, got, want)
	if pages < 2 {
		t.Errorf("%d row group(s), want several of ~64 KiB", pages)
	}

	s = open()
	for p := range 3 {
		if err := s.Write(ctx, memRows(t, p*1000, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AbortOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 1 || es[0].Name() != "out.parquet" {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v, want only out.parquet", names)
	}
}

// TestSourceReleasedPagesAreReused reads a file of many pages and row
// groups, releasing each page only after the next one was read, as the
// engine may: reused memory (records, fields, string arenas, parquet's
// page buffers) must never change a page still held, and every row must
// come out once, in order.
func TestSourceReleasedPagesAreReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.parquet")
	var pages []*connector.Page
	var want []string
	for p := range 8 {
		page := memRows(t, p*500, 500)
		pages = append(pages, page)
		for _, r := range page.Records {
			want = append(want, string(connector.AppendRecordJSON(nil, r)))
		}
	}
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path, "page_buffer_bytes", 4096, "row_group_bytes", 64<<10), nil, pages...); err != nil {
		t.Fatal(err)
	}
	src, err := newSource(connectortest.Cfg(t, "path", path, "batch_size", 77))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var got []string
	var prev *connector.Page
	var prevLines []string
	lines := func(p *connector.Page) []string {
		var out []string
		for _, r := range p.Records {
			out = append(out, string(connector.AppendRecordJSON(nil, r)))
		}
		return out
	}
	for {
		p, err := connectortest.NextPage(context.Background(), src)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.Release == nil {
			t.Fatal("pages have no Release: their memory is never reused")
		}
		if prev != nil {
			if !slices.Equal(lines(prev), prevLines) {
				t.Fatalf("a page changed while the next was read")
			}
			prev.Release()
		}
		prev, prevLines = p, lines(p)
		got = append(got, prevLines...)
	}
	sameLines(t, got, want)
}
