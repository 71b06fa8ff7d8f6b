package csv

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

const benchRows = 100_000

// benchCSV writes rows in the shape of the shared benchmark data set
// (shared/bench/gen): id,first_name,country,amount,created_at,active,attributes
// with an RFC 4180-quoted JSON attributes column.
func benchCSV(tb testing.TB, dir string, rows int) string {
	tb.Helper()
	names := []string{"Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil"}
	countries := []string{"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "NL"}
	tiers := []string{"bronze", "silver", "gold", "platinum"}
	tags := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	r := rand.New(rand.NewPCG(42, 7))
	ts := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var b []byte
	b = append(b, "id,first_name,country,amount,created_at,active,attributes\n"...)
	for id := 1; id <= rows; id++ {
		ts = ts.Add(time.Duration(1+r.IntN(90)) * time.Second)
		cents := 100 + r.IntN(999901)
		var attr strings.Builder
		attr.WriteString(`{"tier":"` + tiers[r.IntN(4)] + `","score":` + strconv.FormatFloat(float64(r.IntN(100001))/1000, 'f', 3, 64) + `,"tags":[`)
		perm := r.Perm(5)
		for i := 0; i < 1+r.IntN(3); i++ {
			if i > 0 {
				attr.WriteByte(',')
			}
			attr.WriteString(`"` + tags[perm[i]] + `"`)
		}
		attr.WriteString("]}")
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, ',')
		b = append(b, names[r.IntN(16)]...)
		b = append(b, ',')
		b = append(b, countries[r.IntN(10)]...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(cents/100), 10)
		b = append(b, '.', byte('0'+cents%100/10), byte('0'+cents%10), ',')
		b = ts.AppendFormat(b, time.RFC3339)
		b = append(b, ',')
		b = strconv.AppendBool(b, r.IntN(2) == 1)
		b = append(b, ',', '"')
		b = append(b, strings.ReplaceAll(attr.String(), `"`, `""`)...)
		b = append(b, '"', '\n')
	}
	path := filepath.Join(dir, "bench.csv")
	if err := os.WriteFile(path, b, 0o644); err != nil {
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
		p, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			tb.Fatal(err)
		}
		if err := p.Materialize(); err != nil {
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
