package s3

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func openSink(t testing.TB, c connector.Config) *Sink {
	return connectortest.OpenSink[*Sink](t, newSink, c)
}

func recs(from, to int) *connector.Page {
	p := &connector.Page{}
	for i := from; i <= to; i++ {
		p.Records = append(p.Records, connector.Record{Fields: []connector.Field{
			{Key: "id", Value: connector.Int(int64(i))},
			{Key: "name", Value: connector.String(fmt.Sprintf("n%d é", i))},
		}})
	}
	return p
}

// TestFormatsRoundTrip: what the sink writes in each format (and gzip)
// the source reads back, record for record, over rolled objects.
func TestFormatsRoundTrip(t *testing.T) {
	f := newFakeS3(t, "rt")
	all := connectortest.Records(2500)
	var want []string
	for _, r := range all {
		want = append(want, string(connector.AppendRecordJSON(nil, r)))
	}
	for _, tt := range []struct {
		format, compression, ext string
		want                     func(i int) string
	}{
		{"jsonl", "none", ".jsonl", nil},
		{"json_lines", "none", ".jsonl", nil},
		{"jsonl", "gzip", ".jsonl.gz", nil},
		{"json", "none", ".json", nil},
		{"json", "gzip", ".json.gz", nil},
		{"parquet", "none", ".parquet", nil},
		{"csv", "gzip", ".csv.gz", func(i int) string {
			// csv reads every value back as text, null as empty.
			r := all[i]
			var b strings.Builder
			b.WriteString("{")
			for j, fl := range r.Fields {
				if j > 0 {
					b.WriteString(",")
				}
				v := ""
				if fl.Value.Kind() != connector.KindNull {
					v = strings.Trim(string(connector.AppendJSON(nil, fl.Value)), `"`)
				}
				b.WriteString(fmt.Sprintf("%q:%q", fl.Key, v))
			}
			b.WriteString("}")
			return b.String()
		}},
	} {
		t.Run(tt.format+"+"+tt.compression, func(t *testing.T) {
			prefix := tt.format + "-" + tt.compression + "/"
			s := openSink(t, f.cfg(t, "rt", "prefix", prefix, "format", tt.format, "compression", tt.compression,
				"max_records_per_file", 1000, "run_id", "run1"))
			ctx := context.Background()
			for i := 0; i < len(all); i += 700 {
				if err := s.Write(ctx, &connector.Page{Records: all[i:min(i+700, len(all))]}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			keys := f.keys(t, "rt", prefix)
			same(t, "keys", keys, []string{prefix + "run1-000000" + tt.ext, prefix + "run1-000001" + tt.ext, prefix + "run1-000002" + tt.ext})
			got := readAll(t, f.cfg(t, "rt", "prefix", prefix), nil)
			w := want
			if tt.want != nil {
				w = nil
				for i := range all {
					w = append(w, tt.want(i))
				}
			}
			same(t, "records", got, w)
		})
	}
}

// TestSinkRollingAndRetry: objects roll at max_records_per_file, appear
// only when complete (at Flush), are named by run and sequence, and a
// failed upload retried (by the engine, calling Write or Flush again)
// overwrites the same key: no object and no record twice.
func TestSinkRollingAndRetry(t *testing.T) {
	f := newFakeS3(t, "roll")
	ctx := context.Background()
	s := openSink(t, f.cfg(t, "roll", "prefix", "out/", "max_records_per_file", 2, "run_id", "r7"))

	if err := s.Write(ctx, recs(1, 3)); err != nil { // completes r7-000000 locally
		t.Fatal(err)
	}
	if k := f.keys(t, "roll", "out/"); len(k) != 0 {
		t.Fatalf("objects visible before anything was uploaded: %q", k)
	}
	// The next Write uploads r7-000000 first; the store fails it (past
	// the SDK's own retries), so the Write fails before touching its page.
	f.setFailPut(func(path string) bool { return strings.HasSuffix(path, "/r7-000000.jsonl") })
	err := s.Write(ctx, recs(4, 4))
	if err == nil || !connector.IsRetryable(err) || !strings.Contains(err.Error(), "put s3://roll/out/r7-000000.jsonl") {
		t.Fatalf("failed upload: %v (retryable %v)", err, connector.IsRetryable(err))
	}
	f.setFailPut(nil)
	if err := s.Write(ctx, recs(4, 4)); err != nil { // the engine's retry
		t.Fatal(err)
	}
	same(t, "after the retried write", f.keys(t, "roll", "out/"), []string{"out/r7-000000.jsonl"})
	if err := s.Write(ctx, recs(5, 5)); err != nil {
		t.Fatal(err)
	}
	// Flush fails once, then succeeds: same keys, overwritten.
	f.setFailPut(func(path string) bool { return strings.HasSuffix(path, "/r7-000002.jsonl") })
	if err := s.Flush(ctx); err == nil || !connector.IsRetryable(err) {
		t.Fatalf("failed flush: %v", err)
	}
	f.setFailPut(nil)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A flush with nothing new writes no object.
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, recs(6, 6)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// Written but never flushed: dropped at Close, never visible.
	if err := s.Write(ctx, recs(7, 7)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	keys := f.keys(t, "roll", "out/")
	same(t, "keys", keys, []string{"out/r7-000000.jsonl", "out/r7-000001.jsonl", "out/r7-000002.jsonl", "out/r7-000003.jsonl"})
	var contents []string
	for _, k := range keys {
		contents = append(contents, string(f.get(t, "roll", k)))
	}
	same(t, "contents", contents, []string{
		`{"id":1,"name":"n1 é"}` + "\n" + `{"id":2,"name":"n2 é"}` + "\n",
		`{"id":3,"name":"n3 é"}` + "\n" + `{"id":4,"name":"n4 é"}` + "\n",
		`{"id":5,"name":"n5 é"}` + "\n",
		`{"id":6,"name":"n6 é"}` + "\n",
	})

	// A rerun with the same run_id overwrites its objects; without one,
	// each run has its own names.
	s2 := openSink(t, f.cfg(t, "roll", "prefix", "out/", "max_records_per_file", 2, "run_id", "r7"))
	s2.Write(ctx, recs(1, 2))
	if err := s2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.keys(t, "roll", "out/"); len(got) != 4 {
		t.Errorf("rerun with the same run_id: %q", got)
	}
	s3 := openSink(t, f.cfg(t, "roll", "prefix", "gen/", "key_template", "part-{seq}-{run_id}{ext}"))
	s3.Write(ctx, recs(1, 1))
	if err := s3.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.keys(t, "roll", "gen/"); len(got) != 1 || !strings.HasPrefix(got[0], "gen/part-000000-") || !strings.HasSuffix(got[0], ".jsonl") || len(got[0]) != len("gen/part-000000-20240101T000000Z-a1b2c3.jsonl") {
		t.Errorf("generated run id: %q", got)
	}
}

// TestSinkMultipart: an object above part_size_mb goes up in parts and
// reads back whole.
func TestSinkMultipart(t *testing.T) {
	f := newFakeS3(t, "big")
	ctx := context.Background()
	s := openSink(t, f.cfg(t, "big", "prefix", "m/", "part_size_mb", 5, "run_id", "x"))
	const n = 60000
	pad := strings.Repeat("p", 100)
	for i := 0; i < n; i += 1000 {
		p := &connector.Page{}
		for j := i; j < i+1000; j++ {
			p.Records = append(p.Records, connector.Record{Fields: []connector.Field{
				{Key: "id", Value: connector.Int(int64(j))}, {Key: "pad", Value: connector.String(pad)}}})
		}
		if err := s.Write(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	data := f.get(t, "big", "m/x-000000.jsonl")
	if len(data) < 6<<20 {
		t.Fatalf("object is %d bytes, want more than one 5 MiB part", len(data))
	}
	if got := lines(data); got != n {
		t.Errorf("object holds %d lines, want %d", got, n)
	}
	if p := f.parts.Load(); p != 2 {
		t.Errorf("%d parts uploaded, want 2", p)
	}
}
