package jsonl

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
	"github.com/faucet-hq/faucet/connectors/internal/benchdata"
)

const benchRows = 100_000

// benchPages builds records shaped like the shared benchmark data set as
// the csv source reads it: seven string fields, keys shared by all records.
func benchPages(rows int) []*connector.Page {
	var pages []*connector.Page
	var p *connector.Page
	for _, row := range benchdata.Rows(rows) {
		if p == nil || len(p.Records) == connector.DefaultPageSize {
			p = &connector.Page{}
			pages = append(pages, p)
		}
		rec := connector.NewRecord(len(row))
		for i, v := range row {
			rec.Fields = append(rec.Fields, connector.Field{Key: benchdata.Header[i], Value: connector.String(v)})
		}
		p.Records = append(p.Records, rec)
	}
	return pages
}

func BenchmarkJSONLEncode(b *testing.B) {
	pages := benchPages(benchRows)
	s := sinkTo(b, "path", filepath.Join(b.TempDir(), "o.jsonl"))
	defer s.Close()
	buf := make([]byte, 0, 512<<10)
	var err error
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

func BenchmarkJSONLDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "in.jsonl")
	s := sinkTo(b, "path", path)
	for _, p := range benchPages(benchRows) {
		s.Write(context.Background(), p)
	}
	s.Close()
	st, _ := os.Stat(path)
	cfg := config(b, "path", path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		src, _ := newSource(cfg)
		if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			p, err := src.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			p.Materialize()
			if len(p.Failed) > 0 {
				b.Fatal(p.Failed[0].Error())
			}
			n += len(p.Records)
		}
		src.Close()
		if n != benchRows {
			b.Fatalf("%d rows", n)
		}
	}
	cpu.report(b, benchRows)
}

// TestEncodeMatchesSDK: the fast encoder writes exactly what
// connector.AppendRecordJSON writes, on the benchmark's records.
func TestEncodeMatchesSDK(t *testing.T) {
	s := sinkTo(t, "path", filepath.Join(t.TempDir(), "o.jsonl"))
	defer s.Close()
	for _, p := range benchPages(3000) {
		got, _ := s.EncodePage(p, nil)
		var want []byte
		for _, r := range p.Records {
			want = append(connector.AppendRecordJSON(want, r), '\n')
		}
		if string(got) != string(want) {
			t.Fatal("EncodePage differs from AppendRecordJSON")
		}
	}
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
