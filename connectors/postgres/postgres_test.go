package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

const typesDDL = `(id int PRIMARY KEY, n numeric(38,10), ts timestamptz, tsn timestamp, d date, u uuid,
	jb jsonb, j json, b bytea, ia int[], ta text[], ok boolean, f double precision, r real, s smallint,
	iv interval, t text, e text)`

func TestSourceTypes(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "SET TIME ZONE 'Asia/Kolkata'")
	mustExec(t, conn, "CREATE TABLE "+schema+".ty "+typesDDL)
	mustExec(t, conn, `INSERT INTO `+schema+`.ty VALUES
		(1, 1234567890123456789012345678.0123456789, '2024-05-01 10:00:00.123456+05:30', '2024-05-01 10:00:00', '2024-05-01',
		 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"z":1,"a":[1,{"b":null}]}', '{"z":1,"a":2}', '\x00ff', '{1,NULL,3}', '{"a b","c\"d"}',
		 true, 'NaN', 1.5, 7, '1 day 2 hours', 'héllo 🎉', ''),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)
	got := dump(t, url, "SELECT * FROM "+schema+".ty ORDER BY id")
	want := `{"id":1,"n":"1234567890123456789012345678.0123456789","ts":"2024-05-01T04:30:00.123456Z","tsn":"2024-05-01T10:00:00","d":"2024-05-01","u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","jb":{"a":[1,{"b":null}],"z":1},"j":{"z":1,"a":2},"b":"AP8=","ia":[1,null,3],"ta":["a b","c\"d"],"ok":true,"f":"NaN","r":1.5,"s":7,"iv":"1 day 02:00:00","t":"héllo 🎉","e":""}
{"id":2,"n":null,"ts":null,"tsn":null,"d":null,"u":null,"jb":null,"j":null,"b":null,"ia":null,"ta":null,"ok":null,"f":null,"r":null,"s":null,"iv":null,"t":null,"e":null}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The same rows written back, through COPY and through INSERT, read back equal.
	for _, method := range []string{"copy", "insert"} {
		dst := schema + ".ty_" + method
		mustExec(t, conn, "CREATE TABLE "+dst+" "+typesDDL)
		recs := collect(t, cfg("connection_url", url, "query", "SELECT * FROM "+schema+".ty ORDER BY id"), nil).Records
		err := write(t, cfg("connection_url", url, "schema", schema, "table_name", "ty_"+method, "column_mapping", "auto_map", "write_method", method), recs)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if back := dump(t, url, "SELECT * FROM "+dst+" ORDER BY id"); back != want {
			t.Errorf("%s round trip:\n%s", method, back)
		}
	}
}

func TestSourceIncrementalQueryParams(t *testing.T) {
	url, conn, schema := testDB(t)
	fixture(t, conn, schema, 30)
	c := cfg("connection_url", url, "query", "SELECT id, name FROM "+schema+".t WHERE id <= $1", "params", []any{25},
		"replication_key", "id", "batch_size", 10)
	res := collect(t, c, nil)
	if len(res.Records) != 25 || res.Pages != 3 || res.Bookmark.AsInt() != 25 {
		t.Fatalf("records %d pages %d bookmark %v", len(res.Records), res.Pages, res.Bookmark)
	}
	mustExec(t, conn, "UPDATE "+schema+".t SET id = id + 100 WHERE id = 30") // not visible: > 25 filtered by param
	mustExec(t, conn, "INSERT INTO "+schema+".t VALUES (0, 'early', 0)")     // below the bookmark
	again := collect(t, c, res.Bookmark)
	if len(again.Records) != 0 {
		t.Fatalf("rerun read %d records", len(again.Records))
	}
	// timestamptz keys: the bookmark is RFC 3339 text and compares as a timestamp.
	mustExec(t, conn, "CREATE TABLE "+schema+".ev (at timestamptz, v int)")
	mustExec(t, conn, "INSERT INTO "+schema+".ev VALUES ('2024-01-01 00:00:00Z', 1), ('2024-01-01 00:00:00.5Z', 2), ('2024-01-01 00:00:01Z', 3)")
	ec := cfg("connection_url", url, "table", "ev", "schema", schema, "replication_key", "at", "batch_size", 1)
	first := collect(t, ec, nil)
	mid := first.Bookmarks[0]
	rest := collect(t, ec, &mid)
	if len(rest.Records) != 2 || first.Bookmark.AsString() != "2024-01-01T00:00:01Z" {
		t.Fatalf("resumed %d records, final bookmark %v", len(rest.Records), first.Bookmark)
	}
}

func TestSourceErrorsRedacted(t *testing.T) {
	_, _, _ = testDB(t)
	c := cfg("connection_url", "postgres://postgres:sekret-pw@127.0.0.1:1/test?connect_timeout=2", "table", "t")
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	err = src.Open(context.Background(), connector.SourceOptions{})
	src.Close()
	if err == nil || strings.Contains(err.Error(), "sekret-pw") {
		t.Fatalf("err = %v", err)
	}
	if uri := src.(*Source).DatasetURI(); strings.Contains(uri, "sekret") {
		t.Errorf("dataset URI shows the password: %s", uri)
	}
}

func TestSinkModes(t *testing.T) {
	url, _, schema := testDB(t)
	base := []any{"connection_url", url, "schema", schema, "table_name", "dst", "column_mapping", "auto_map"}
	with := func(kv ...any) connector.Config { return cfg(append(append([]any{}, base...), kv...)...) }
	q := "SELECT * FROM " + schema + ".dst ORDER BY 1"

	// upsert with a delete marker, creating the table (primary key on id).
	up := with("create_table", true, "write_mode", "upsert", "key", []any{"id"},
		"delete_marker", map[string]any{"field": "op", "values": []any{"d"}})
	if err := write(t, up,
		[]connector.Record{rec("id", 1, "v", "a", "op", "u"), rec("id", 2, "v", "b", "op", "u"), rec("id", 1, "v", "a2", "op", "u")},
		[]connector.Record{rec("id", 2, "op", "d"), rec("id", 3, "v", "c", "op", "u")}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, url, q); got != "{\"id\":1,\"v\":\"a2\"}\n{\"id\":3,\"v\":\"c\"}\n" {
		t.Fatalf("after upsert:\n%s", got)
	}
	if err := write(t, with("write_mode", "delete", "key", []any{"id"}), []connector.Record{rec("id", 3)}); err != nil {
		t.Fatal(err)
	}
	// A field that is not a column: an error naming it, unless evolve_schema.
	err := write(t, with(), []connector.Record{rec("id", 5, "extra", true)})
	if err == nil || !strings.Contains(err.Error(), `field "extra"`) {
		t.Fatalf("unknown field: %v", err)
	}
	if err := write(t, with("evolve_schema", true), []connector.Record{rec("id", 5, "extra", true)}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, url, q); got != "{\"id\":1,\"v\":\"a2\",\"extra\":null}\n{\"id\":5,\"v\":null,\"extra\":true}\n" {
		t.Fatalf("after evolve:\n%s", got)
	}
	// A value the column cannot take: the error names the table and column.
	err = write(t, with(), []connector.Record{rec("id", "not a number")})
	if err == nil || !strings.Contains(err.Error(), "dst") || !strings.Contains(err.Error(), "id") {
		t.Fatalf("bad value: %v", err)
	}
	// A missing key.
	err = write(t, with("write_mode", "upsert", "key", []any{"id"}), []connector.Record{rec("v", "x")})
	if err == nil || !strings.Contains(err.Error(), `key column "id"`) {
		t.Fatalf("missing key: %v", err)
	}
}

func TestSinkOverwrite(t *testing.T) {
	url, conn, schema := testDB(t)
	mustExec(t, conn, "CREATE TABLE "+schema+".dst (id bigint PRIMARY KEY, v text DEFAULT 'dflt')")
	mustExec(t, conn, "INSERT INTO "+schema+".dst VALUES (1, 'old'), (2, 'old')")
	ctx := context.Background()
	open := func() *Sink {
		s, err := newSink(cfg("connection_url", url, "schema", schema, "table_name", "dst", "column_mapping", "auto_map", "write_mode", "overwrite"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := connectortest.WritePagesOpen(ctx, s, &connector.Page{Records: []connector.Record{rec("id", 9), rec("id", 10, "v", "new")}}); err != nil {
			t.Fatal(err)
		}
		return s.(*Sink)
	}
	q := "SELECT * FROM " + schema + ".dst ORDER BY 1"
	s := open()
	if got := dump(t, url, q); got != "{\"id\":1,\"v\":\"old\"}\n{\"id\":2,\"v\":\"old\"}\n" {
		t.Fatalf("readers saw a changed table during the overwrite:\n%s", got)
	}
	s.Close() // not committed: abandoned
	if got := dump(t, url, q); !strings.Contains(got, "old") || count(t, conn, "SELECT count(*) FROM pg_tables WHERE tablename = 'dst__faucet_ovw'") != 0 {
		t.Fatalf("abandoned overwrite:\n%s", got)
	}
	s = open()
	if err := s.CommitOverwrite(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := dump(t, url, q); got != "{\"id\":9,\"v\":null}\n{\"id\":10,\"v\":\"new\"}\n" {
		t.Fatalf("after overwrite:\n%s", got)
	}
}

func TestSinkJSONBDefaultAndBindLimit(t *testing.T) {
	url, conn, schema := testDB(t)
	// faucet-cli 1.x default mapping: one jsonb column "data".
	if err := write(t, cfg("connection_url", url, "schema", schema, "table_name", "docs", "create_table", true),
		[]connector.Record{rec("b", 1, "a", []any{"x"})}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, url, "SELECT data FROM "+schema+".docs"); got != "{\"data\":{\"a\":[\"x\"],\"b\":1}}\n" {
		t.Errorf("jsonb: %s", got)
	}
	// 70 columns x 1000 rows through INSERT: over the 65535 parameter limit.
	var recs []connector.Record
	for i := 0; i < 1000; i++ {
		r := rec("id", i)
		for c := 0; c < 69; c++ {
			r.Set("c"+string(rune('a'+c/26))+string(rune('a'+c%26)), connector.Int(int64(c)))
		}
		recs = append(recs, r)
	}
	if err := write(t, cfg("connection_url", url, "schema", schema, "table_name", "wide", "create_table", true, "column_mapping", "auto_map",
		"write_method", "insert", "batch_size", 0), recs); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count(*) FROM "+schema+".wide"); n != 1000 {
		t.Errorf("rows = %d", n)
	}
}

func TestSinkCommitToken(t *testing.T) {
	url, conn, schema := testDB(t)
	ctx := context.Background()
	for _, method := range []string{"copy", "insert"} {
		table := "tok_" + method
		snk, err := newSink(cfg("connection_url", url, "schema", schema, "table_name", table, "column_mapping", "auto_map",
			"create_table", true, "write_method", method))
		if err != nil {
			t.Fatal(err)
		}
		s := snk.(*Sink)
		if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		scope := "p::" + method
		if _, ok, err := s.LastCommittedToken(ctx, scope); ok || err != nil {
			t.Fatalf("fresh: ok=%v err=%v", ok, err)
		}
		if err := s.WriteIdempotent(ctx, &connector.Page{Records: []connector.Record{rec("id", 1)}}, scope, "00000000000000000001#1"); err != nil {
			t.Fatal(err)
		}
		err = s.WriteIdempotent(ctx, &connector.Page{Records: []connector.Record{rec("id", 2), rec("id", "x")}}, scope, "00000000000000000002#2")
		if err == nil {
			t.Fatalf("%s: bad page accepted", method)
		}
		tok, ok, err := s.LastCommittedToken(ctx, scope)
		if err != nil || !ok || tok != "00000000000000000001#1" {
			t.Fatalf("%s: token %q ok=%v err=%v", method, tok, ok, err)
		}
		if n := count(t, conn, "SELECT count(*) FROM "+schema+"."+table); n != 1 {
			t.Fatalf("%s: rows = %d", method, n)
		}
		s.Close()
	}
}
