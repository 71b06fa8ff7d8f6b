package all

import (
	"bufio"
	"context"
	stdcsv "encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/benchdata"
)

const benchRows = 100_000

// benchBatch is the csv batch_size of BenchmarkCSVToJSONL (FAUCET_BENCH_BATCH overrides it).
var benchBatch = func() int {
	if n, err := strconv.Atoi(os.Getenv("FAUCET_BENCH_BATCH")); err == nil {
		return n
	}
	return connector.DefaultPageSize
}()

func benchFile(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "bench.csv")
	if err := os.WriteFile(path, benchdata.CSV(benchRows), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

func cfg(kv ...any) connector.Config {
	var fields []connector.KeyValue
	for i := 0; i < len(kv); i += 2 {
		fields = append(fields, connector.KeyValue{Key: kv[i].(string), Value: kv[i+1]})
	}
	v, _ := connector.FromAny(fields)
	return connector.Config{Path: "bench", Value: v}
}

// BenchmarkCSVToJSONL is the engine's fast path on one goroutine: the csv
// source's pages decoded, then encoded by the jsonl sink (bytes discarded).
// Compare with BenchmarkFloorCSVToJSONL, run the same way on the same data.
func BenchmarkCSVToJSONL(b *testing.B) {
	path := benchFile(b)
	srcSpec, _ := connector.Default.Source("csv")
	snkSpec, _ := connector.Default.Sink("jsonl")
	snk, err := snkSpec.New(cfg("path", filepath.Join(b.TempDir(), "out.jsonl")))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	snk.Open(ctx, connector.SinkOptions{})
	defer snk.Close()
	enc := snk.(connector.PageEncoder)
	buf := make([]byte, 0, 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		src, _ := srcSpec.New(cfg("path", path, "batch_size", benchBatch))
		if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			p, err := src.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			p.Materialize()
			n += len(p.Records)
			if buf, err = enc.EncodePage(p, buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
		src.Close()
		if n != benchRows {
			b.Fatalf("%d rows", n)
		}
	}
	cpu.report(b, benchRows)
}

// BenchmarkFloorCSVToJSONL is shared/bench/rawgo -mode csvjson in process:
// encoding/csv with ReuseRecord, keys pre-quoted, hand-written escaping.
func BenchmarkFloorCSVToJSONL(b *testing.B) {
	path := benchFile(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		f, _ := os.Open(path)
		r := stdcsv.NewReader(bufio.NewReaderSize(f, 1<<20))
		r.ReuseRecord = true
		w := bufio.NewWriterSize(io.Discard, 1<<20)
		hdr, _ := r.Read()
		keys := make([][]byte, len(hdr))
		for i, h := range hdr {
			keys[i] = floorString(nil, h)
		}
		var line []byte
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			line = append(line[:0], '{')
			for i, v := range rec {
				if i > 0 {
					line = append(line, ',')
				}
				line = append(line, keys[i]...)
				line = append(line, ':')
				line = floorString(line, v)
			}
			line = append(line, '}', '\n')
			w.Write(line)
		}
		w.Flush()
		f.Close()
	}
	cpu.report(b, benchRows)
}

func floorString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

type cpuClock struct{ start time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{processCPU()} }

// report adds per-record wall and CPU (all threads, GC included) metrics.
func (c cpuClock) report(b *testing.B, perOp int) {
	n := float64(b.N * perOp)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/record")
	b.ReportMetric(float64((processCPU()-c.start).Nanoseconds())/n, "cpu-ns/record")
	b.ReportMetric(0, "ns/op")
}
