package csv

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/faucet-hq/faucet/connectors/internal/benchdata"
)

const benchRows = 100_000

// benchCSV writes the benchmark-shaped CSV (see internal/benchdata).
func benchCSV(tb testing.TB, dir string, rows int) string {
	tb.Helper()
	path := filepath.Join(dir, "bench.csv")
	if err := os.WriteFile(path, benchdata.CSV(rows), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// decodeFile reads the whole file through the source, decoding every page.
func decodeFile(tb testing.TB, cfg connector.Config, each func(p *connector.Page)) int {
	s, err := openSource(tb, cfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	n := 0
	for {
		p, err := connectortest.NextPage(context.Background(), s)
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			tb.Fatal(err)
		}
		if len(p.Failed) > 0 {
			tb.Fatalf("unexpected failures: %v", p.Failed[0].Error())
		}
		n += len(p.Records)
		if each != nil {
			each(p)
		}
	}
}

func BenchmarkCSVDecode(b *testing.B) {
	path := benchCSV(b, b.TempDir(), benchRows)
	cfg := config(b, "path", path)
	b.ReportAllocs()
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		if n := decodeFile(b, cfg, nil); n != benchRows {
			b.Fatalf("%d rows", n)
		}
	}
	cpu.report(b, benchRows)
}

// BenchmarkCSVRead is the reader's share (Next without Decode): the part of
// the csv source that runs on one goroutine while pages decode in parallel.
func BenchmarkCSVRead(b *testing.B) {
	path := benchCSV(b, b.TempDir(), benchRows)
	cfg := config(b, "path", path)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		s, err := openSource(b, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := s.Next(context.Background()); err != nil {
				break
			}
		}
		s.Close()
	}
	cpu.report(b, benchRows)
}

func BenchmarkCSVEncode(b *testing.B) {
	path := benchCSV(b, b.TempDir(), benchRows)
	var pages []*connector.Page
	decodeFile(b, config(b, "path", path), func(p *connector.Page) { pages = append(pages, p) })
	snk, err := newSink(config(b, "path", filepath.Join(b.TempDir(), "out.csv")))
	if err != nil {
		b.Fatal(err)
	}
	s := snk.(*Sink)
	if err := s.Open(context.Background(), connector.SinkOptions{}); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	buf := make([]byte, 0, 256<<10)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		for _, p := range pages {
			buf, err = s.EncodePage(p, buf[:0])
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu.report(b, benchRows)
}

// TestEncodeMatchesInput: decoding the benchmark file and encoding it again
// gives back the same bytes.
func TestEncodeMatchesInput(t *testing.T) {
	dir := t.TempDir()
	path := benchCSV(t, dir, 5000)
	out := filepath.Join(dir, "out.csv")
	snk, err := newSink(config(t, "path", out))
	if err != nil {
		t.Fatal(err)
	}
	s := snk.(*Sink)
	ctx := context.Background()
	if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	decodeFile(t, config(t, "path", path), func(p *connector.Page) {
		if err := s.Write(ctx, p); err != nil {
			t.Fatal(err)
		}
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(path)
	got, _ := os.ReadFile(out)
	if string(got) != string(want) {
		t.Fatalf("round trip differs: %d vs %d bytes", len(got), len(want))
	}
}

// cpuClock measures the process's CPU time (user+system, all threads, so
// the garbage collector's work counts) besides the wall clock: on a shared
// machine it is the steadier number.
type cpuClock struct{ start time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{processCPU()} }

func (c cpuClock) report(b *testing.B, perOp int) {
	n := float64(b.N * perOp)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/record")
	b.ReportMetric(float64((processCPU()-c.start).Nanoseconds())/n, "cpu-ns/record")
	b.ReportMetric(0, "ns/op")
}
