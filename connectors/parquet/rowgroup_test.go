package parquet

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// bigPage is page p of a bench-like data set: an id, two short strings, a
// float, and a long, poorly compressible string, 1000 records.
func bigPage(p int) *connector.Page {
	page := &connector.Page{Seq: uint64(p), Records: make([]connector.Record, 1000)}
	for i := range page.Records {
		n := p*1000 + i
		h := uint64(n) * 0x9E3779B97F4A7C15
		page.Records[i] = connector.Record{Fields: []connector.Field{
			{Key: "id", Value: connector.Int(int64(n))},
			{Key: "name", Value: connector.String("name-" + strconv.FormatUint(h>>40, 36))},
			{Key: "country", Value: connector.String([]string{"DE", "FR", "US", "JP"}[n%4])},
			{Key: "amount", Value: connector.Float(float64(h%100000) / 100)},
			{Key: "attributes", Value: connector.String(`{"k":"` + strconv.FormatUint(h, 16) + strconv.FormatUint(h*31, 16) + `","v":` + strconv.Itoa(n) + `}`)},
		}}
	}
	return page
}

// TestSinkRowGroupBytesBoundsHeap writes 1M rows with the default config
// (row_group_size 1,048,576 rows, so only the byte budget ends row groups)
// and checks that the live heap stays bounded and the file has several
// row groups, each near the budget, holding every row.
func TestSinkRowGroupBytesBoundsHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1M rows")
	}
	const pages = 1000
	path := filepath.Join(t.TempDir(), "big.parquet")
	snk, err := newSink(connectortest.Cfg(t, "path", path))
	if err != nil {
		t.Fatal(err)
	}
	s := snk.(*Sink)
	if s.cfg.RowGroupBytes != 4<<20 {
		t.Fatalf("default row_group_bytes = %d, want 4 MiB", s.cfg.RowGroupBytes)
	}
	ctx := context.Background()
	if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	live := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base, peak := live(), uint64(0)
	for p := range pages {
		if err := s.Write(ctx, bigPage(p)); err != nil {
			t.Fatal(err)
		}
		if p%50 == 49 {
			peak = max(peak, live())
		}
	}
	// The row group's encoded pages wait in spill files, so what stays is
	// the columns' page buffers (page_buffer_bytes each) and pools: about
	// 2 MiB. Holding the row group (4 MiB) in memory, as the sink did,
	// took 8-9 MiB; a whole-file row group of this data over 40 MiB.
	const bound = 6 << 20
	grow := int64(peak) - int64(base)
	t.Logf("live heap grew by %.1f MiB", float64(grow)/(1<<20))
	if grow > bound {
		t.Errorf("live heap grew by %d MiB while writing 1M rows, want at most %d MiB", grow>>20, bound>>20)
	}
	if err := s.CommitOverwrite(ctx); err != nil {
		t.Fatal(err)
	}

	pf := readFooter(t, path)
	if n := pf.NumRows(); n != pages*1000 {
		t.Errorf("rows = %d, want %d", n, pages*1000)
	}
	rgs := pf.Metadata().RowGroups
	if len(rgs) < 4 {
		t.Errorf("%d row groups in a %d MiB file, want one per ~4 MiB", len(rgs), pf.Size()>>20)
	}
	for i, rg := range rgs[:len(rgs)-1] {
		var size int64
		for _, c := range rg.Columns {
			size += c.MetaData.TotalCompressedSize
		}
		if size > 5<<20 || size < 3<<20 {
			t.Errorf("row group %d: %d bytes, %d rows; want about 4 MiB", i, size, rg.NumRows)
		}
	}
	// The last row holds the last id.
	rows := make([]pq.Row, 1)
	last := pf.RowGroups()[len(rgs)-1]
	r := last.Rows()
	defer r.Close()
	if err := r.SeekToRow(last.NumRows() - 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := r.ReadRows(rows); n != 1 || rows[0][0].Int64() != pages*1000-1 {
		t.Errorf("last row = %v, want id %d", rows[0], pages*1000-1)
	}
}

func TestSinkRowGroupBytesConfig(t *testing.T) {
	for _, n := range []int{0, -1, minRowGroupBytes - 1} {
		if _, err := newSink(connectortest.Cfg(t, "path", "x.parquet", "row_group_bytes", n)); err == nil {
			t.Errorf("row_group_bytes %d: want an error", n)
		}
	}
	if _, err := newSink(connectortest.Cfg(t, "path", "x.parquet", "row_group_bytes", minRowGroupBytes)); err != nil {
		t.Errorf("row_group_bytes %d: %v", minRowGroupBytes, err)
	}
}
