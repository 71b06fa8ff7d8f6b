package parquet

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func pageOf(t testing.TB, lines ...string) *connector.Page {
	t.Helper()
	p := &connector.Page{}
	for _, l := range lines {
		v, err := connector.ParseJSON([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		p.Records = append(p.Records, v.AsObject())
	}
	return p
}

// writeSink opens a sink, writes the pages and commits as the engine does
// at the end of a complete run.
func writeSink(t testing.TB, c connector.Config, log *slog.Logger, pages ...*connector.Page) (*Sink, error) {
	t.Helper()
	snk, err := newSink(c)
	if err != nil {
		t.Fatal(err)
	}
	s := snk.(*Sink)
	if err := s.Open(context.Background(), connector.SinkOptions{Logger: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, p := range pages {
		if err := s.Write(context.Background(), p); err != nil {
			return s, err
		}
		if err := s.Flush(context.Background()); err != nil {
			return s, err
		}
	}
	return s, s.CommitOverwrite(context.Background())
}

// readFooter opens the Parquet file at path (closed when the test ends)
// and reads its footer, as the source does.
func readFooter(t testing.TB, path string) *pq.File {
	t.Helper()
	f, pf, err := openFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return pf
}

// crossRow is what parquet-go's generic reader makes of the round-trip file.
type crossRow struct {
	ID     *int64   `parquet:"id,optional"`
	Name   *string  `parquet:"name,optional"`
	Score  *float64 `parquet:"score,optional"`
	Active *bool    `parquet:"active,optional"`
	Tags   *string  `parquet:"tags,optional,json"`
	Meta   *string  `parquet:"meta,optional,json"`
	Empty  *string  `parquet:"empty,optional"`
}

func TestSinkRoundTrip(t *testing.T) {
	for _, codec := range []string{"snappy", "zstd", "gzip", "none"} {
		t.Run(codec, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "deep", "dir", "out.parquet")
			in := []string{
				`{"id":1,"name":"héllo ✓","score":1,"active":true,"tags":["a",1,null],"meta":{"k":{"z":1,"a":[true]}},"empty":null}`,
				`{"id":-9223372036854775808,"name":"","score":2.5,"active":false,"tags":[],"meta":{},"empty":null}`,
				`{"id":null,"name":null,"score":null,"active":null,"tags":null,"meta":null,"empty":null}`,
			}
			// Fields out of order, missing, and a float column fed an int.
			in2 := []string{`{"name":"late","id":4,"score":7}`}
			if _, err := writeSink(t, connectortest.Cfg(t, "path", path, "compression", codec, "row_group_size", 2), nil, pageOf(t, in...), pageOf(t, in2...)); err != nil {
				t.Fatal(err)
			}
			got, _ := readLines(t, connectortest.Cfg(t, "path", path))
			sameLines(t, got, []string{
				`{"id":1,"name":"héllo ✓","score":1.0,"active":true,"tags":["a",1,null],"meta":{"k":{"z":1,"a":[true]}},"empty":null}`,
				`{"id":-9223372036854775808,"name":"","score":2.5,"active":false,"tags":[],"meta":{},"empty":null}`,
				`{"id":null,"name":null,"score":null,"active":null,"tags":null,"meta":null,"empty":null}`,
				`{"id":4,"name":"late","score":7.0,"active":null,"tags":null,"meta":null,"empty":null}`,
			})

			// Cross-check with parquet-go's own reader: types, nulls and
			// the row group size.
			pf := readFooter(t, path)
			if n := len(pf.RowGroups()); n != 2 {
				t.Errorf("row groups = %d, want 2 (row_group_size 2, 4 rows)", n)
			}
			wantCodec := map[string]string{"snappy": "SNAPPY", "zstd": "ZSTD", "gzip": "GZIP", "none": "UNCOMPRESSED"}[codec]
			if got := pf.Metadata().RowGroups[0].Columns[1].MetaData.Codec.String(); got != wantCodec {
				t.Errorf("codec = %s, want %s", got, wantCodec)
			}
			var cols []string
			for _, c := range pf.Schema().Fields() {
				cols = append(cols, c.Name()+":"+c.Type().String())
			}
			if got, want := strings.Join(cols, " "), "id:INT(64,true) name:STRING score:DOUBLE active:BOOLEAN tags:JSON meta:JSON empty:STRING"; got != want {
				t.Errorf("schema %s, want %s", got, want)
			}
			rows, err := pq.ReadFile[crossRow](path)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 4 || *rows[0].ID != 1 || *rows[0].Name != "héllo ✓" || *rows[0].Score != 1 || !*rows[0].Active ||
				*rows[0].Tags != `["a",1,null]` || *rows[0].Meta != `{"k":{"z":1,"a":[true]}}` || rows[0].Empty != nil ||
				*rows[1].Active || rows[2].ID != nil || rows[2].Meta != nil || *rows[3].Score != 7 {
				t.Errorf("parquet-go reads %+v", rows)
			}
		})
	}
}

func TestSinkFieldsAndTypes(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	// Unknown fields: dropped with one warning each (faucet-cli 1.x).
	path := filepath.Join(dir, "warn.parquet")
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path), log, pageOf(t, `{"a":1}`), pageOf(t, `{"a":2,"b":1}`, `{"a":3,"b":2}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, []string{`{"a":1}`, `{"a":2}`, `{"a":3}`})
	if n := strings.Count(logs.String(), "field=b"); n != 1 {
		t.Errorf("warned %d times about b, want once:\n%s", n, logs.String())
	}

	// on_unknown_field: error fails naming the field.
	_, err := writeSink(t, connectortest.Cfg(t, "path", filepath.Join(dir, "err.parquet"), "on_unknown_field", "error"), nil, pageOf(t, `{"a":1}`), pageOf(t, `{"a":2,"b":1}`))
	if err == nil || !strings.Contains(err.Error(), `field "b" is not a column`) {
		t.Errorf("unknown field error = %v", err)
	}

	// A value the column cannot hold is a sink record error; the rest is written.
	path = filepath.Join(dir, "types.parquet")
	p2 := pageOf(t, `{"n":2}`, `{"n":"three"}`, `{"n":4.5}`)
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path), nil, pageOf(t, `{"n":1}`), p2); err != nil {
		t.Fatal(err)
	}
	if len(p2.Failed) != 2 {
		t.Fatalf("failed records = %d, want 2", len(p2.Failed))
	}
	if msg := p2.Failed[0].Error(); !strings.Contains(msg, `field "n" is string, but its column is int64`) || p2.Failed[0].Stage != connector.StageSink {
		t.Errorf("record error = %q", msg)
	}
	got, _ = readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, []string{`{"n":1}`, `{"n":2}`})

	// Conflicting types inside the first page: an error naming the field.
	_, err = writeSink(t, connectortest.Cfg(t, "path", filepath.Join(dir, "mixed.parquet")), nil, pageOf(t, `{"x":1}`, `{"x":"a"}`))
	if err == nil || !strings.Contains(err.Error(), `field "x" is string in record 2 of the first page but int64 before`) {
		t.Errorf("mixed first page = %v", err)
	}
	// Integers and floats together make a DOUBLE column; nulls-only a STRING one.
	path = filepath.Join(dir, "widen.parquet")
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path), nil, pageOf(t, `{"x":1,"z":null}`, `{"x":1.5,"z":null}`), pageOf(t, `{"x":2,"z":"s"}`)); err != nil {
		t.Fatal(err)
	}
	got, _ = readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, []string{`{"x":1.0,"z":null}`, `{"x":1.5,"z":null}`, `{"x":2.0,"z":"s"}`})
}

// TestSinkStaging checks the durability protocol: nothing appears at the
// destination before CommitOverwrite, an abort keeps the old file, a run
// without records keeps it too, and no staging file is left behind.
func TestSinkStaging(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(path, []byte("previous contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	open := func() *Sink {
		snk, err := newSink(connectortest.Cfg(t, "path", path))
		if err != nil {
			t.Fatal(err)
		}
		if err := snk.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		return snk.(*Sink)
	}
	previous := func(when string) {
		t.Helper()
		if data, _ := os.ReadFile(path); string(data) != "previous contents" {
			t.Errorf("%s: destination changed", when)
		}
	}
	entries := func() int {
		es, _ := os.ReadDir(dir)
		return len(es)
	}

	s := open()
	if !s.Overwriting() {
		t.Fatal("the sink must stage (Overwriting) so the engine saves no bookmark before the footer")
	}
	if err := s.Write(ctx, pageOf(t, `{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	previous("after Write and Flush")
	if err := s.AbortOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	previous("after AbortOverwrite")
	if n := entries(); n != 1 {
		t.Errorf("%d files in the directory after abort, want 1 (no staging file left)", n)
	}

	s = open()
	if err := s.CommitOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	previous("after a run without records")

	s = open()
	s.Write(ctx, pageOf(t, `{"a":1}`))
	if err := s.CommitOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, []string{`{"a":1}`})
	if n := entries(); n != 1 {
		t.Errorf("%d files in the directory after commit, want 1", n)
	}
}

func TestSinkConfig(t *testing.T) {
	for _, c := range []connector.Config{
		connectortest.Cfg(t),
		connectortest.Cfg(t, "path", "x.parquet", "compression", "lz4"),
		connectortest.Cfg(t, "path", "x.parquet", "row_group_size", 0),
		connectortest.Cfg(t, "path", "x.parquet", "page_buffer_bytes", 1024),
		connectortest.Cfg(t, "destination", map[string]any{"type": "s3", "bucket": "b"}),
		connectortest.Cfg(t, "destination", map[string]any{"type": "local_path"}),
		connectortest.Cfg(t, "path", "x.parquet", "destination", map[string]any{"type": "local_path", "path": "y.parquet"}),
	} {
		if _, err := newSink(c); err == nil {
			t.Errorf("config %s: want an error", c.Value)
		}
	}
	snk, err := newSink(connectortest.Cfg(t, "destination", map[string]any{"type": "local_path", "path": "y.parquet"}))
	if err != nil || snk.(*Sink).cfg.Path != "y.parquet" {
		t.Errorf("destination: %v", err)
	}
}

// TestSinkWideTable writes more columns than the sink spills to temporary
// files (the rest keep their pages in memory) over several row groups and
// reads every value back.
func TestSinkWideTable(t *testing.T) {
	const cols, rows = maxSpillFiles + 72, 300
	var lines, want []string
	for r := range rows {
		var b strings.Builder
		b.WriteByte('{')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"c%03d":%d`, c, r*1000+c)
		}
		b.WriteByte('}')
		lines = append(lines, b.String())
	}
	want = lines
	path := filepath.Join(t.TempDir(), "wide.parquet")
	if _, err := writeSink(t, connectortest.Cfg(t, "path", path, "row_group_size", 100), nil, pageOf(t, lines[:150]...), pageOf(t, lines[150:]...)); err != nil {
		t.Fatal(err)
	}
	got, _ := readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, want)
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".faucet-parquet-pages-*")); len(left) > 0 {
		t.Errorf("temporary page files left: %v", left)
	}
}
