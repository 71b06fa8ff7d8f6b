package parquet

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// TestSinkColumnsWrittenConcurrently writes pages whose records take every
// path of colwrite.go (direct, converted by Sink.row, refused) through
// several column goroutines, with a row_group_size that ends row groups in
// the middle of pages, and reads every value back in order, with each
// codec (their encoders are shared by the column goroutines).
func TestSinkColumnsWrittenConcurrently(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	for _, codec := range []string{"snappy", "zstd", "gzip", "none"} {
		t.Run(codec, func(t *testing.T) { testColumnsWrittenConcurrently(t, codec) })
	}
}

func testColumnsWrittenConcurrently(t *testing.T, codec string) {
	page := func() []string {
		return []string{
			`{"id":1,"name":"a","score":1.5,"tags":[1,2]}`,           // direct
			`{"name":"b","id":2,"score":2,"tags":{"x":1}}`,           // other key order
			`{"id":3,"name":"c"}`,                                    // missing fields
			`{"id":null,"name":null,"score":null,"tags":null}`,       // direct, nulls
			`{"id":"x","name":"d","score":1,"tags":[]}`,              // refused: string in int64
			`{"id":6,"name":"e","score":7,"tags":"s"}`,               // direct: int in double, string as JSON
			`{"id":7,"name":"f","score":1,"tags":null,"extra":true}`, // unknown field dropped
		}
	}
	want := []string{
		`{"id":1,"name":"a","score":1.5,"tags":[1,2]}`,
		`{"id":2,"name":"b","score":2.0,"tags":{"x":1}}`,
		`{"id":3,"name":"c","score":null,"tags":null}`,
		`{"id":null,"name":null,"score":null,"tags":null}`,
		`{"id":6,"name":"e","score":7.0,"tags":"s"}`,
		`{"id":7,"name":"f","score":1.0,"tags":null}`,
	}
	path := filepath.Join(t.TempDir(), "cols.parquet")
	// The first page fixes the columns: id int64, name string, score
	// double, tags JSON.
	first := pageOf(t, `{"id":0,"name":"z","score":0.5,"tags":[]}`)
	p1, p2 := pageOf(t, page()...), pageOf(t, page()...)
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path, "row_group_size", 4, "compression", codec), nil, first, p1, p2); err != nil {
		t.Fatal(err)
	}
	for i, p := range []int{len(p1.Failed), len(p2.Failed)} {
		if p != 1 {
			t.Errorf("page %d: %d refused records, want 1", i+1, p)
		}
	}
	got, _ := readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, append(append([]string{`{"id":0,"name":"z","score":0.5,"tags":[]}`}, want...), want...))

	pf := readFooter(t, path)
	var sizes []int64
	for _, rg := range pf.Metadata().RowGroups {
		sizes = append(sizes, rg.NumRows)
	}
	if len(sizes) != 4 || sizes[0] != 4 || sizes[1] != 4 || sizes[2] != 4 || sizes[3] != 1 {
		t.Errorf("row groups of %v rows, want [4 4 4 1]", sizes)
	}
}

// TestSinkColumnPagesFlushedConcurrently writes pages big enough that
// every column encodes and compresses several Parquet pages during each
// Write (page_buffer_bytes at its minimum), so the column goroutines flush
// pages to their spill files at the same time, with each codec, and reads
// every row back.
func TestSinkColumnPagesFlushedConcurrently(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	for _, codec := range []string{"snappy", "zstd", "gzip"} {
		t.Run(codec, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big.parquet")
			pages := []*connector.Page{bigPage(0), bigPage(1), bigPage(2), bigPage(3)}
			if _, err := writeSink(t, connectortest.Cfg(t, "path", path, "compression", codec, "page_buffer_bytes", 4096, "row_group_size", 1500), nil, pages...); err != nil {
				t.Fatal(err)
			}
			got, _ := readLines(t, connectortest.Cfg(t, "path", path))
			if len(got) != 4000 {
				t.Fatalf("%d rows read back, want 4000", len(got))
			}
			for i, line := range got {
				want := string(connector.AppendRecordJSON(nil, pages[i/1000].Records[i%1000]))
				if line != want {
					t.Fatalf("row %d:\n got %s\nwant %s", i, line, want)
				}
			}
		})
	}
}
