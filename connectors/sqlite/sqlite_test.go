package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestSourceTypesAndParams(t *testing.T) {
	path := filepath.Join(t.TempDir(), "types.db")
	db := rawDB(t, path)
	mustExec(t, db, `CREATE TABLE ty (i INTEGER, r REAL, s TEXT, b BLOB, flag BOOLEAN, doc JSON, ts DATETIME, n TEXT)`)
	mustExec(t, db, `INSERT INTO ty VALUES (42, 1.5, 'héllo 🎉', x'00ff', 1, '{"a":[1,{"b":null}]}', '2024-05-01 10:00:00', NULL)`)
	mustExec(t, db, `INSERT INTO ty VALUES (7, 0, '', x'', 0, '[]', NULL, 'x')`)
	res := collect(t, connectortest.Cfg(t, "path", "sqlite://"+path, "query", "SELECT * FROM ty WHERE i > ? ORDER BY i", "params", []any{10}), nil)
	if len(res.Records) != 1 {
		t.Fatalf("got %d records", len(res.Records))
	}
	got := connector.Object(res.Records[0]).String()
	want := `{"i":42,"r":1.5,"s":"héllo 🎉","b":"AP8=","flag":true,"doc":{"a":[1,{"b":null}]},"ts":"2024-05-01T10:00:00Z","n":null}`
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
	if res.Bookmark != nil {
		t.Error("a non-incremental source emitted a bookmark")
	}
}

func TestSourceTableColumnsIncremental(t *testing.T) {
	path := fixture(t, 25)
	c := connectortest.Cfg(t, "path", path, "table", "t", "columns", []any{"id", "name"}, "replication_key", "id", "batch_size", 10)
	res := collect(t, c, nil)
	if len(res.Records) != 25 || res.Pages != 3 || res.Bookmark.AsInt() != 25 {
		t.Fatalf("records %d pages %d bookmark %v", len(res.Records), res.Pages, res.Bookmark)
	}
	if keys := strings.Join(res.Records[0].Keys(), ","); keys != "id,name" {
		t.Errorf("keys %s", keys)
	}
	// New rows arrive; a rerun from the bookmark reads only them.
	mustExec(t, rawDB(t, path), `INSERT INTO t VALUES (26, 'late', 1), (27, 'later', 2)`)
	again := collect(t, c, res.Bookmark)
	if len(again.Records) != 2 || again.Bookmark.AsInt() != 27 {
		t.Fatalf("rerun: %d records, bookmark %v", len(again.Records), again.Bookmark)
	}
}

func TestSourceErrors(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]connector.Config{
		"missing file":  connectortest.Cfg(t, "path", filepath.Join(t.TempDir(), "nope.db"), "table", "t"),
		"unknown table": connectortest.Cfg(t, "path", fixture(t, 1), "table", "nope"),
		"bad key":       connectortest.Cfg(t, "path", fixture(t, 1), "table", "t", "replication_key", "nope"),
	} {
		src, err := newSource(c)
		if err != nil {
			t.Fatal(err)
		}
		err = src.Open(ctx, connector.SourceOptions{})
		src.Close()
		if err == nil {
			t.Errorf("%s: Open succeeded", name)
		} else if name != "missing file" && !strings.Contains(err.Error(), "nope") {
			t.Errorf("%s: error does not name it: %v", name, err)
		}
	}
}

func sinkCfg(path string, kv ...any) connector.Config {
	all := append([]any{"path", path, "table_name", "dst"}, kv...)
	var fields []connector.KeyValue
	for i := 0; i < len(all); i += 2 {
		fields = append(fields, connector.KeyValue{Key: all[i].(string), Value: all[i+1]})
	}
	v, _ := connector.FromAny(fields)
	return connector.Config{Path: "sink.config", Value: v}
}

func dump(t *testing.T, path string) string {
	t.Helper()
	res := collect(t, connectortest.Cfg(t, "path", path, "query", "SELECT * FROM dst ORDER BY 1"), nil)
	var b strings.Builder
	for _, r := range res.Records {
		b.WriteString(connector.Object(r).String())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestSinkCreateAppendRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.db")
	recs := []connector.Record{
		rec("id", 1, "name", "a", "score", 1.5, "ok", true, "tags", []any{"x", 1}, "note", nil),
		rec("id", 2, "name", "", "score", 2, "ok", false, "tags", []any{}, "note", "n"),
	}
	write(t, sinkCfg(path, "create_table", true), recs)
	want := `{"id":1,"name":"a","score":1.5,"ok":true,"tags":["x",1],"note":null}
{"id":2,"name":"","score":2.0,"ok":false,"tags":[],"note":"n"}
`
	if got := dump(t, path); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSinkMissingTableAndUnknownField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.db")
	snk, _ := newSink(sinkCfg(path))
	err := snk.Open(context.Background(), connector.SinkOptions{})
	snk.Close()
	if err == nil || !strings.Contains(err.Error(), `"dst" does not exist`) {
		t.Fatalf("err = %v", err)
	}
	write(t, sinkCfg(path, "create_table", true), []connector.Record{rec("id", 1)})
	snk, _ = newSink(sinkCfg(path))
	err = connectortest.WritePages(context.Background(), snk, &connector.Page{Records: []connector.Record{rec("id", 2), rec("id", 3, "extra", "x")}})
	if err == nil || !strings.Contains(err.Error(), `record 2 of the page: field "extra"`) {
		t.Fatalf("err = %v", err)
	}
	if got := count(t, rawDB(t, path), "SELECT count(*) FROM dst"); got != 1 {
		t.Errorf("a failed page left %d rows, want 1 (page is one transaction)", got)
	}
	write(t, sinkCfg(path, "evolve_schema", true), []connector.Record{rec("id", 2), rec("id", 3, "extra", "x")})
	if got := dump(t, path); !strings.Contains(got, `{"id":3,"extra":"x"}`) {
		t.Errorf("evolved table:\n%s", got)
	}
}

func TestSinkUpsertDeleteMarker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.db")
	c := sinkCfg(path, "create_table", true, "write_mode", "upsert", "key", []any{"id"},
		"delete_marker", map[string]any{"field": "op", "values": []any{"d"}})
	write(t, c,
		[]connector.Record{rec("id", 1, "v", "a", "op", "u"), rec("id", 2, "v", "b", "op", "u"), rec("id", 1, "v", "a2", "op", "u")},
		[]connector.Record{rec("id", 2, "op", "d"), rec("id", 3, "v", "c", "op", "u")},
	)
	want := `{"id":1,"v":"a2"}
{"id":3,"v":"c"}
`
	if got := dump(t, path); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	write(t, sinkCfg(path, "write_mode", "delete", "key", []any{"id"}), []connector.Record{rec("id", 3)})
	if got := dump(t, path); got != "{\"id\":1,\"v\":\"a2\"}\n" {
		t.Errorf("after delete:\n%s", got)
	}
	snk, _ := newSink(c)
	err := connectortest.WritePages(context.Background(), snk, &connector.Page{Records: []connector.Record{rec("v", "no key")}})
	if err == nil || !strings.Contains(err.Error(), `key column "id"`) {
		t.Errorf("missing key: %v", err)
	}
}

func TestSinkCompositeKeyAndBindLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.db")
	// 40 columns x 1000 rows = 40000 variables: over SQLite's limit.
	var recs []connector.Record
	for i := 0; i < 1000; i++ {
		r := rec("a", i%10, "b", i/10)
		for c := 0; c < 38; c++ {
			r.Set(fmt.Sprintf("c%02d", c), connector.Int(int64(i*c)))
		}
		recs = append(recs, r)
	}
	c := sinkCfg(path, "create_table", true, "write_mode", "upsert", "key", []any{"a", "b"}, "batch_size", 5000)
	write(t, c, recs, recs[:10])
	if got := count(t, rawDB(t, path), "SELECT count(*) FROM dst"); got != 1000 {
		t.Fatalf("rows = %d", got)
	}
	del := []connector.Record{rec("a", 0, "b", 0), rec("a", 1, "b", 0)}
	write(t, sinkCfg(path, "write_mode", "delete", "key", []any{"a", "b"}), del)
	if got := count(t, rawDB(t, path), "SELECT count(*) FROM dst"); got != 998 {
		t.Fatalf("rows after delete = %d", got)
	}
}

func TestSinkOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.db")
	write(t, sinkCfg(path, "create_table", true), []connector.Record{rec("id", 1), rec("id", 2)})
	ctx := context.Background()
	open := func() *Sink {
		s, err := newSink(sinkCfg(path, "write_mode", "overwrite"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(ctx, &connector.Page{Records: []connector.Record{rec("id", 9)}}); err != nil {
			t.Fatal(err)
		}
		return s.(*Sink)
	}
	// Not committed: the table keeps its rows and the staging table goes.
	s := open()
	if got := count(t, rawDB(t, path), "SELECT count(*) FROM dst"); got != 2 {
		t.Fatalf("readers saw %d rows during the overwrite, want the old 2", got)
	}
	s.Close()
	if got := dump(t, path); got != "{\"id\":1}\n{\"id\":2}\n" {
		t.Fatalf("abandoned overwrite changed the table:\n%s", got)
	}
	if n := count(t, rawDB(t, path), "SELECT count(*) FROM sqlite_master WHERE name = 'dst__faucet_ovw'"); n != 0 {
		t.Fatal("staging table left behind")
	}
	s = open()
	if err := s.CommitOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := dump(t, path); got != "{\"id\":9}\n" {
		t.Fatalf("after overwrite:\n%s", got)
	}
}

func TestSinkJSONMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.db")
	write(t, sinkCfg(path, "create_table", true, "column_mapping", map[string]any{"json": map[string]any{"column": "doc"}}),
		[]connector.Record{rec("b", 1, "a", []any{"x"})})
	if got := dump(t, path); got != "{\"doc\":{\"b\":1,\"a\":[\"x\"]}}\n" {
		t.Errorf("got %s", got)
	}
}

func TestSinkCommitToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.db")
	ctx := context.Background()
	snk, _ := newSink(sinkCfg(path, "create_table", true))
	s := snk.(*Sink)
	if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok, err := s.LastCommittedToken(ctx, "p::row-0"); ok || err != nil {
		t.Fatalf("fresh: ok=%v err=%v", ok, err)
	}
	if err := s.WriteIdempotent(ctx, &connector.Page{Records: []connector.Record{rec("id", 1)}}, "p::row-0", "00000000000000000001#1"); err != nil {
		t.Fatal(err)
	}
	// A page that fails writes neither its rows nor its token.
	err := s.WriteIdempotent(ctx, &connector.Page{Records: []connector.Record{rec("id", 2), rec("nope", 1)}}, "p::row-0", "00000000000000000002#2")
	if err == nil {
		t.Fatal("bad page accepted")
	}
	tok, ok, err := s.LastCommittedToken(ctx, "p::row-0")
	if err != nil || !ok || tok != "00000000000000000001#1" {
		t.Fatalf("token %q ok=%v err=%v", tok, ok, err)
	}
	if n := count(t, rawDB(t, path), "SELECT count(*) FROM dst"); n != 1 {
		t.Fatalf("rows = %d", n)
	}
}

// A DATETIME replication key stored as text resumes after the last row
// read, not after its RFC 3339 rendering (which sorts after every later
// time of the same day).
func TestIncrementalDatetimeKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ev.db")
	db := rawDB(t, path)
	mustExec(t, db, "CREATE TABLE ev (at DATETIME, v INTEGER)")
	mustExec(t, db, "INSERT INTO ev VALUES ('2024-01-01 10:00:00', 1), ('2024-01-01 11:30:00', 2)")
	c := connectortest.Cfg(t, "path", path, "table", "ev", "replication_key", "at")
	first := collect(t, c, nil)
	if len(first.Records) != 2 || first.Bookmark == nil || first.Bookmark.Text() != "2024-01-01 11:30:00" {
		t.Fatalf("first run: %d records, bookmark %v", len(first.Records), first.Bookmark)
	}
	if got := first.Records[1].Fields[0].Value.Text(); got != "2024-01-01T11:30:00Z" {
		t.Fatalf("record value %q, want RFC 3339", got)
	}
	if len(first.Records[1].Fields) != 2 {
		t.Fatalf("fields: %v", first.Records[1].Fields)
	}
	mustExec(t, db, "INSERT INTO ev VALUES ('2024-01-01 12:00:00', 3)")
	second := collect(t, c, first.Bookmark)
	if len(second.Records) != 1 || second.Records[0].Fields[1].Value.Text() != "3" {
		t.Fatalf("second run: %v", second.Records)
	}
}
