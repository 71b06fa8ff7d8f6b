package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

const typesDDL = `(id INT PRIMARY KEY, d DECIMAL(38,10), dt DATETIME(6), ts TIMESTAMP(3) NULL, day DATE, j JSON,
	b VARBINARY(16), big BIGINT UNSIGNED, f DOUBLE, t TEXT, e VARCHAR(8), flag TINYINT(1))`

func TestSourceTypesRoundTrip(t *testing.T) {
	u, db := testDB(t)
	mustExec(t, db, "CREATE TABLE ty "+typesDDL+" DEFAULT CHARSET=utf8mb4")
	mustExec(t, db, `INSERT INTO ty VALUES
		(1, 1234567890123456789012345678.0123456789, '2024-05-01 10:00:00.123456', '2024-05-01 10:00:00.5', '2024-05-01',
		 '{"z":1,"a":[1,{"b":null}]}', x'00ff', 18446744073709551615, 1.5, 'héllo 🎉', '', 1),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)
	want := `{"id":1,"d":"1234567890123456789012345678.0123456789","dt":"2024-05-01T10:00:00.123456","ts":"2024-05-01T10:00:00.500Z","day":"2024-05-01","j":{"z":1,"a":[1,{"b":null}]},"b":"AP8=","big":"18446744073709551615","f":1.5,"t":"héllo 🎉","e":"","flag":1}
{"id":2,"d":null,"dt":null,"ts":null,"day":null,"j":null,"b":null,"big":null,"f":null,"t":null,"e":null,"flag":null}
`
	if got := dumpTable(t, u, "ty"); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	mustExec(t, db, "CREATE TABLE ty2 "+typesDDL+" DEFAULT CHARSET=utf8mb4")
	recs := collect(t, cfg("connection_url", u, "table", "ty"), nil).Records
	if err := write(t, cfg("connection_url", u, "table_name", "ty2", "column_mapping", "auto_map"), recs); err != nil {
		t.Fatal(err)
	}
	if got := dumpTable(t, u, "ty2"); got != want {
		t.Errorf("round trip:\n%s", got)
	}
}

func TestSourceIncremental(t *testing.T) {
	u, db := testDB(t)
	mustExec(t, db, "CREATE TABLE ev (at DATETIME(3), v INT)")
	mustExec(t, db, "INSERT INTO ev VALUES ('2024-01-01 00:00:00', 1), ('2024-01-01 00:00:00.5', 2), ('2024-01-01 00:00:01', 3)")
	c := cfg("connection_url", u, "query", "SELECT at, v FROM ev WHERE v < ?", "params", []any{10}, "replication_key", "at", "batch_size", 1)
	first := collect(t, c, nil)
	if len(first.Records) != 3 || first.Bookmark.AsString() != "2024-01-01T00:00:01.000" {
		t.Fatalf("first run: %d records, bookmark %v", len(first.Records), first.Bookmark)
	}
	mid := first.Bookmarks[0]
	if rest := collect(t, c, &mid); len(rest.Records) != 2 {
		t.Fatalf("resumed after %v: %d records", mid, len(rest.Records))
	}
	mustExec(t, db, "INSERT INTO ev VALUES ('2024-01-02 00:00:00', 4)")
	if again := collect(t, c, first.Bookmark); len(again.Records) != 1 {
		t.Fatalf("rerun: %d records", len(again.Records))
	}
}

func TestErrorsRedacted(t *testing.T) {
	testDB(t)
	src, err := newSource(cfg("connection_url", "mysql://root:sekret-pw@127.0.0.1:1/test?timeout=2s", "table", "t"))
	if err != nil {
		t.Fatal(err)
	}
	err = src.Open(context.Background(), connector.SourceOptions{})
	src.Close()
	if err == nil || strings.Contains(err.Error(), "sekret-pw") {
		t.Fatalf("err = %v", err)
	}
	if uri := src.(*Source).DatasetURI(); strings.Contains(uri, "sekret") {
		t.Errorf("dataset URI: %s", uri)
	}
}

func TestSinkModes(t *testing.T) {
	u, _ := testDB(t)
	with := func(kv ...any) connector.Config {
		return cfg(append([]any{"connection_url", u, "table_name", "dst", "column_mapping", "auto_map"}, kv...)...)
	}
	q := "SELECT * FROM dst ORDER BY 1"
	up := with("create_table", true, "write_mode", "upsert", "key", []any{"id"},
		"delete_marker", map[string]any{"field": "op", "values": []any{"d"}})
	if err := write(t, up,
		[]connector.Record{rec("id", 1, "v", "a", "op", "u"), rec("id", 2, "v", "b", "op", "u"), rec("id", 1, "v", "a2", "op", "u")},
		[]connector.Record{rec("id", 2, "op", "d"), rec("id", 3, "v", "c", "op", "u")}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, u, q); got != "{\"id\":1,\"v\":\"a2\"}\n{\"id\":3,\"v\":\"c\"}\n" {
		t.Fatalf("after upsert:\n%s", got)
	}
	if err := write(t, with("write_mode", "delete", "key", []any{"id"}), []connector.Record{rec("id", 3)}); err != nil {
		t.Fatal(err)
	}
	err := write(t, with(), []connector.Record{rec("id", 5, "extra", 1.5)})
	if err == nil || !strings.Contains(err.Error(), `field "extra"`) {
		t.Fatalf("unknown field: %v", err)
	}
	if err := write(t, with("evolve_schema", true), []connector.Record{rec("id", 5, "extra", 1.5)}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, u, q); got != "{\"id\":1,\"v\":\"a2\",\"extra\":null}\n{\"id\":5,\"v\":null,\"extra\":1.5}\n" {
		t.Fatalf("after evolve:\n%s", got)
	}
	err = write(t, with(), []connector.Record{rec("id", 1, "v", "dup")})
	if err == nil || !strings.Contains(err.Error(), "dst") {
		t.Fatalf("duplicate key: %v", err)
	}
	err = write(t, with("write_mode", "upsert", "key", []any{"id"}), []connector.Record{rec("v", "x")})
	if err == nil || !strings.Contains(err.Error(), `key column "id"`) {
		t.Fatalf("missing key: %v", err)
	}
}

func TestSinkOverwrite(t *testing.T) {
	u, db := testDB(t)
	mustExec(t, db, "CREATE TABLE dst (id BIGINT PRIMARY KEY, v VARCHAR(10))")
	mustExec(t, db, "INSERT INTO dst VALUES (1, 'old'), (2, 'old')")
	ctx := context.Background()
	open := func() *Sink {
		s, err := newSink(cfg("connection_url", u, "table_name", "dst", "column_mapping", "auto_map", "write_mode", "overwrite"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := connectortest.WritePagesOpen(ctx, s, &connector.Page{Records: []connector.Record{rec("id", 9, "v", "new")}}); err != nil {
			t.Fatal(err)
		}
		return s.(*Sink)
	}
	q := "SELECT * FROM dst ORDER BY 1"
	s := open()
	if got := dump(t, u, q); got != "{\"id\":1,\"v\":\"old\"}\n{\"id\":2,\"v\":\"old\"}\n" {
		t.Fatalf("during overwrite:\n%s", got)
	}
	s.Close()
	if got := dump(t, u, q); !strings.Contains(got, "old") || count(t, db, "SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'dst\\_\\_%'") != 0 {
		t.Fatalf("abandoned overwrite:\n%s", got)
	}
	s = open()
	if err := s.CommitOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := dump(t, u, q); got != "{\"id\":9,\"v\":\"new\"}\n" {
		t.Fatalf("after overwrite:\n%s", got)
	}
}

func TestSinkJSONDefault(t *testing.T) {
	u, _ := testDB(t)
	if err := write(t, cfg("connection_url", u, "table_name", "docs", "create_table", true),
		[]connector.Record{rec("b", 1, "a", []any{"x"})}); err != nil {
		t.Fatal(err)
	}
	if got := dumpTable(t, u, "docs"); !strings.Contains(got, `"a":["x"]`) {
		t.Errorf("json: %s", got)
	}
}

func TestSinkCommitToken(t *testing.T) {
	u, db := testDB(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE tok (id BIGINT PRIMARY KEY)")
	snk, err := newSink(cfg("connection_url", u, "table_name", "tok", "column_mapping", "auto_map"))
	if err != nil {
		t.Fatal(err)
	}
	s := snk.(*Sink)
	if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	scope := "p::" + strings.Repeat("long", 80) // over 255: shortened
	if _, ok, err := s.LastCommittedToken(ctx, scope); ok || err != nil {
		t.Fatalf("fresh: ok=%v err=%v", ok, err)
	}
	if err := s.WriteIdempotent(ctx, &connector.Page{Records: []connector.Record{rec("id", 1)}}, scope, "00000000000000000001#1"); err != nil {
		t.Fatal(err)
	}
	err = s.WriteIdempotent(ctx, &connector.Page{Records: []connector.Record{rec("id", 2), rec("id", 1)}}, scope, "00000000000000000002#2")
	if err == nil {
		t.Fatal("duplicate key accepted")
	}
	tok, ok, err := s.LastCommittedToken(ctx, scope)
	if err != nil || !ok || tok != "00000000000000000001#1" {
		t.Fatalf("token %q ok=%v err=%v", tok, ok, err)
	}
	if n := count(t, db, "SELECT count(*) FROM tok"); n != 1 {
		t.Fatalf("rows = %d", n)
	}
}
