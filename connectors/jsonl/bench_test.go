package jsonl

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

// benchPages builds records shaped like the shared benchmark data set read
// by the csv source: seven string fields, keys shared by every record.
func benchPages(rows int) []*connector.Page {
	keys := []string{"id", "first_name", "country", "amount", "created_at", "active", "attributes"}
	names := []string{"Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil"}
	countries := []string{"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "NL"}
	tiers := []string{"bronze", "silver", "gold", "platinum"}
	tags := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	r := rand.New(rand.NewPCG(42, 7))
	ts := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var pages []*connector.Page
	var p *connector.Page
	for id := 1; id <= rows; id++ {
		if p == nil || len(p.Records) == connector.DefaultPageSize {
			p = &connector.Page{}
			pages = append(pages, p)
		}
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
		vals := []string{
			strconv.Itoa(id), names[r.IntN(16)], countries[r.IntN(10)],
			strconv.Itoa(cents/100) + "." + strconv.Itoa(cents%100/10) + strconv.Itoa(cents%10),
			ts.Format(time.RFC3339), strconv.FormatBool(r.IntN(2) == 1), attr.String(),
		}
		rec := connector.NewRecord(len(keys))
		for i, k := range keys {
			rec.Fields = append(rec.Fields, connector.Field{Key: k, Value: connector.String(vals[i])})
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
