package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
)

func same(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestListingContinuation: 5,000 objects listed 100 keys per request are
// all read, once each, in key order.
func TestListingContinuation(t *testing.T) {
	f := newFakeS3(t, "many")
	const n = 5000
	var want []string
	for i := 0; i < n; i++ {
		f.put(t, "many", fmt.Sprintf("day/obj-%05d.jsonl", i), fmt.Appendf(nil, "{\"n\":%d}\n", i))
		want = append(want, fmt.Sprintf(`{"n":%d}`, i))
	}
	f.put(t, "many", "other/obj.jsonl", []byte(`{"n":-1}`+"\n")) // outside the prefix
	got := readAll(t, f.cfg(t, "many", "prefix", "day/", "list_max_keys", 100), nil)
	same(t, "records", got, want)
	// gofakes3 reports a full last page as truncated, so one more
	// (empty) page may be asked for.
	if l := f.lists.Load(); l < n/100 || l > n/100+1 {
		t.Errorf("%d ListObjectsV2 requests, want %d", l, n/100)
	}
}

func TestSourceSelection(t *testing.T) {
	f := newFakeS3(t, "sel")
	f.put(t, "sel", "logs/2024-01/a.jsonl", []byte(`{"k":"a"}`))
	f.put(t, "sel", "logs/2024-01/b.jsonl.gz", gz(t, []byte(`{"k":"b"}`+"\n")))
	f.put(t, "sel", "logs/2024-02/c.jsonl", []byte(`{"k":"c"}`+"\n"))
	f.put(t, "sel", "logs/2024-02/sub/d.jsonl", []byte(`{"k":"d"}`+"\n"))
	f.put(t, "sel", "logs/2024-02/", nil) // a folder marker
	f.put(t, "sel", "logs/readme.txt", []byte("not data"))
	tests := []struct {
		name string
		kv   []any
		want []string
		err  string
	}{
		{"prefix", []any{"prefix", "logs/2024-0"}, []string{`{"k":"a"}`, `{"k":"b"}`, `{"k":"c"}`, `{"k":"d"}`}, ""},
		{"glob does not cross /", []any{"glob", "logs/*/*.jsonl*"}, []string{`{"k":"a"}`, `{"k":"b"}`, `{"k":"c"}`}, ""},
		{"max_objects", []any{"prefix", "logs/2024", "max_objects", 2}, []string{`{"k":"a"}`, `{"k":"b"}`}, ""},
		{"file_format of faucet-cli 1.x", []any{"prefix", "logs/2024-02/c", "file_format", "json_lines"}, []string{`{"k":"c"}`}, ""},
		{"format by extension must agree", []any{"prefix", "logs/"}, nil, `s3: cannot tell the format of s3://sel/logs/readme.txt from its extension: set format`},
		{"empty prefix", []any{"prefix", "nothing/"}, nil, `s3: no object in s3://sel/nothing/`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tryReadAll(f.cfg(t, "sel", tt.kv...), nil)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			same(t, "records", got, tt.want)
		})
	}
}

func TestSourceMixedFormatsRefused(t *testing.T) {
	f := newFakeS3(t, "mix")
	f.put(t, "mix", "a.jsonl", []byte(`{"a":1}`))
	f.put(t, "mix", "b.csv", []byte("a\n1\n"))
	_, err := tryReadAll(f.cfg(t, "mix"), nil)
	if err == nil || err.Error() != "s3: s3://mix/a.jsonl is jsonl but s3://mix/b.csv is csv: narrow prefix/glob or set format" {
		t.Fatal(err)
	}
}

func TestSourceCompression(t *testing.T) {
	f := newFakeS3(t, "comp")
	data := []byte("{\"x\":1}\n{\"x\":2}\n")
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb)
	zw.Write(data)
	zw.Close()
	f.put(t, "comp", "a.jsonl.gz", gz(t, data))
	f.put(t, "comp", "b.jsonl.zst", zb.Bytes())
	f.put(t, "comp", "c.jsonl", data)
	f.put(t, "comp", "d.data", gz(t, data)) // no telling suffix
	got := readAll(t, f.cfg(t, "comp", "glob", "*.jsonl*"), nil)
	same(t, "auto", got, []string{`{"x":1}`, `{"x":2}`, `{"x":1}`, `{"x":2}`, `{"x":1}`, `{"x":2}`})
	got = readAll(t, f.cfg(t, "comp", "prefix", "d.", "format", "jsonl", "compression", "gzip"), nil)
	same(t, "forced gzip", got, []string{`{"x":1}`, `{"x":2}`})
	_, err := tryReadAll(f.cfg(t, "comp", "prefix", "c.", "compression", "gzip"), nil)
	if err == nil || !strings.Contains(err.Error(), "s3://comp/c.jsonl: gzip: invalid header") {
		t.Errorf("plain object read as gzip: %v", err)
	}
}

func TestSourceCSVAndJSON(t *testing.T) {
	f := newFakeS3(t, "fmt")
	f.put(t, "fmt", "t/1.csv", []byte("id;name\n1;a\n2;b\n"))
	f.put(t, "fmt", "t/2.csv", []byte("id;name\n3;c\n"))
	got := readAll(t, f.cfg(t, "fmt", "prefix", "t/", "delimiter", ";"), nil)
	same(t, "csv", got, []string{`{"id":"1","name":"a"}`, `{"id":"2","name":"b"}`, `{"id":"3","name":"c"}`})
	f.put(t, "fmt", "j/1.json", []byte(`{"data":{"items":[{"a":1},{"a":2}]}}`))
	f.put(t, "fmt", "j/2.json", []byte(`{"data":{"items":[{"a":3}]}}`))
	got = readAll(t, f.cfg(t, "fmt", "prefix", "j/", "records_path", "data.items"), nil)
	same(t, "json", got, []string{`{"a":1}`, `{"a":2}`, `{"a":3}`})
	// A bad record names its object and line.
	f.put(t, "fmt", "bad/1.jsonl", []byte("{\"a\":1}\nnot json\n"))
	_, err := tryReadAll(f.cfg(t, "fmt", "prefix", "bad/"), nil)
	if err == nil || err.Error() != "s3://fmt/bad/1.jsonl:2: jsonl: invalid JSON at column 1: invalid literal, expected null" {
		t.Fatalf("bad line: %v", err)
	}
}

// TestShards: the shards of an enumeration cover every object exactly
// once, and a key's shard is FNV-1a-64(key) mod shards.
func TestShards(t *testing.T) {
	f := newFakeS3(t, "sh")
	const n = 300
	for i := 0; i < n; i++ {
		f.put(t, "sh", fmt.Sprintf("p/%04d.jsonl", i), fmt.Appendf(nil, "{\"i\":%d}\n", i))
	}
	c := f.cfg(t, "sh", "prefix", "p/", "list_max_keys", 50)
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := src.(*Source).EnumerateShards(context.Background(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 4 {
		t.Fatalf("%d shards, want 4", len(specs))
	}
	seen := map[string]int{}
	for _, sp := range specs {
		var d keyshard.Shard
		if err := json.Unmarshal(sp.Descriptor, &d); err != nil {
			t.Fatal(err)
		}
		recs := readAll(t, c, &sp)
		size := int64(0) // each object is its one record and a newline
		for _, r := range recs {
			size += int64(len(r)) + 1
		}
		if len(recs) == 0 || sp.SizeEstimate == nil || *sp.SizeEstimate != size {
			t.Errorf("shard %s: %d records, %d bytes, size estimate %v", sp.ID, len(recs), size, sp.SizeEstimate)
		}
		for _, r := range recs {
			seen[r]++
			var v struct{ I int }
			json.Unmarshal([]byte(r), &v)
			h := fnv.New64a()
			h.Write(fmt.Appendf(nil, "p/%04d.jsonl", v.I))
			if int(h.Sum64()%4) != d.Index {
				t.Errorf("record %s in shard %d", r, d.Index)
			}
		}
	}
	for i := 0; i < n; i++ {
		if k := fmt.Sprintf(`{"i":%d}`, i); seen[k] != 1 {
			t.Errorf("%s read %d times", k, seen[k])
		}
	}
	// A shard that owns no object reads nothing (not an error).
	f2 := newFakeS3(t, "one")
	f2.put(t, "one", "x.jsonl", []byte(`{"a":1}`))
	h := fnv.New64a()
	h.Write([]byte("x.jsonl"))
	other := (h.Sum64()%1000 + 1) % 1000 // an index x.jsonl does not hash to
	empty := connector.ShardSpec{ID: "7", Descriptor: fmt.Appendf(nil, `{"shards":1000,"index":%d}`, other)}
	if got := readAll(t, f2.cfg(t, "one"), &empty); len(got) != 0 {
		t.Errorf("empty shard read %q", got)
	}
	for _, bad := range []string{`{"shards":2,"index":2}`, `{"shards":2,"index":0,"x":1}`, `[1]`} {
		if err := src.(*Source).ApplyShard(connector.ShardSpec{ID: "1", Descriptor: json.RawMessage(bad)}); err == nil {
			t.Errorf("ApplyShard(%s) accepted", bad)
		}
	}
	specs, _ = src.(*Source).EnumerateShards(context.Background(), 1)
	if len(specs) != 1 || specs[0].ID != "0" {
		t.Errorf("target 1: %v", specs)
	}
}

// TestCredentialsAndMissingBucket: refusals name the bucket and what to
// fix; no secret appears in any error or check result.
func TestCredentialsAndMissingBucket(t *testing.T) {
	f := newFakeS3(t, "data")
	f.put(t, "data", "a.jsonl", []byte(`{"a":1}`))
	noSecret := func(t *testing.T, s string) {
		t.Helper()
		for _, secret := range []string{testSecret, testToken} {
			if strings.Contains(s, secret) {
				t.Errorf("a secret leaked: %s", s)
			}
		}
	}
	bad := []any{"access_key_id", "AKIAWRONG", "session_token", testToken}
	_, err := tryReadAll(f.cfg(t, "data", bad...), nil)
	if err == nil || !strings.Contains(err.Error(), `the credentials were rejected for bucket "data" (InvalidAccessKeyId)`) {
		t.Errorf("bad credentials: %v", err)
	}
	noSecret(t, fmt.Sprint(err))
	_, err = tryReadAll(f.cfg(t, "nope"), nil)
	if err == nil || !strings.Contains(err.Error(), `bucket "nope" does not exist`) {
		t.Errorf("missing bucket: %v", err)
	}

	check := func(c connector.Config, sink bool) string {
		var res []connector.CheckResult
		if sink {
			s, err := newSink(c)
			if err != nil {
				t.Fatal(err)
			}
			res = s.(*Sink).Check(context.Background())
		} else {
			s, err := newSource(c)
			if err != nil {
				t.Fatal(err)
			}
			res = s.(*Source).Check(context.Background())
		}
		var parts []string
		for _, r := range res {
			switch {
			case r.Err != nil:
				parts = append(parts, r.Name+": "+r.Err.Error())
			case r.Skipped != "":
				parts = append(parts, r.Name+": skipped")
			default:
				parts = append(parts, r.Name+": ok")
			}
		}
		s := strings.Join(parts, "; ")
		noSecret(t, s)
		return s
	}
	for _, tt := range []struct {
		c    connector.Config
		sink bool
		want string
	}{
		{f.cfg(t, "data"), false, "bucket: ok; list: ok"},
		{f.cfg(t, "data", "prefix", "zzz/"), false, "bucket: ok; list: s3: no object in s3://data/zzz/"},
		{f.cfg(t, "nope"), false, `bucket: s3: bucket "nope" does not exist; list: skipped`},
		{f.cfg(t, "data", bad...), false, `bucket: s3: bucket "data": credentials rejected or access denied (403); list: skipped`},
		{f.cfg(t, "data"), true, "bucket: ok"},
		{f.cfg(t, "nope"), true, `bucket: s3: bucket "nope" does not exist`},
	} {
		if got := check(tt.c, tt.sink); got != tt.want {
			t.Errorf("check:\n got %s\nwant %s", got, tt.want)
		}
	}

	// The sink: refusals come at the first upload and name the bucket.
	for _, tt := range []struct {
		c    connector.Config
		want string
	}{
		{f.cfg(t, "data", bad...), `the credentials were rejected for bucket "data"`},
		{f.cfg(t, "nope"), `bucket "nope" does not exist`},
	} {
		s, _ := newSink(tt.c)
		ctx := context.Background()
		if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		s.Write(ctx, &connector.Page{Records: []connector.Record{{Fields: []connector.Field{{Key: "a", Value: connector.Int(1)}}}}})
		err := s.Flush(ctx)
		if err == nil || !strings.Contains(err.Error(), tt.want) || connector.IsRetryable(err) {
			t.Errorf("sink flush: %v (retryable %v), want %s", err, connector.IsRetryable(err), tt.want)
		}
		noSecret(t, fmt.Sprint(err))
		s.Close()
	}
}
