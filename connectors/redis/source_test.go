package redis

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestListSource(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	k := r.key("jobs")
	r.c.RPush(ctx, k, `{"id":1,"b":2,"a":3}`, `"quoted"`, `plain text`, `42`, `[1,2]`, `{"id":2}`)
	cfg := func(kv ...any) connector.Config {
		return connectortest.Cfg(t, append([]any{"url", r.url, "source_type", map[string]any{"type": "List", "key": k}}, kv...)...)
	}
	want := []string{
		`{"id":1,"b":2,"a":3}`, // an object is the record, key order kept
		`{"value":"quoted"}`,   // JSON that is not an object is wrapped
		`{"value":"plain text"}`,
		`{"value":42}`,
		`{"value":[1,2]}`,
		`{"id":2}`,
	}
	for _, tc := range []struct {
		name  string
		cfg   connector.Config
		want  []string
		pages int
	}{
		{"pages of 4", cfg("batch_size", 4), want, 2},
		{"one page", cfg("batch_size", 0), want, 1},
		{"max_records", cfg("batch_size", 4, "max_records", 5), want[:5], 2},
		{"max_records 0", cfg("max_records", 0), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := collect(t, tc.cfg, nil)
			if got := jsonOf(res.Records); !reflect.DeepEqual(got, tc.want) && len(tc.want)+len(got) > 0 {
				t.Errorf("records\n got %q\nwant %q", got, tc.want)
			}
			if res.Pages != tc.pages || res.Bookmark != nil {
				t.Errorf("pages %d bookmark %v, want %d pages and no bookmark", res.Pages, res.Bookmark, tc.pages)
			}
		})
	}
	// LRANGE leaves the list as it was: a second read sees the same.
	if n := r.c.LLen(ctx, k).Val(); n != int64(len(want)) {
		t.Errorf("list length after reading: %d, want %d", n, len(want))
	}
	// A key that does not exist reads as empty; a key of another type is
	// refused at Open, naming it.
	if res := collect(t, connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "list", "key": r.key("nothing")}), nil); len(res.Records) != 0 {
		t.Errorf("missing key read %d records", len(res.Records))
	}
	r.c.Set(ctx, r.key("str"), "x", 0)
	src, _ := newSource(connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": r.key("str")}))
	err := src.Open(ctx, connector.SourceOptions{})
	if err == nil || !strings.Contains(err.Error(), `key "`+r.key("str")+`" holds a string, not a list`) {
		t.Errorf("Open of a string key: %v", err)
	}
	src.Close()
}

func TestStreamSource(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	k := r.key("events")
	r.c.Do(ctx, "XADD", k, "5-1", "z", "last", "a", `{"n":1}`, "num", "7")
	r.c.Do(ctx, "XADD", k, "5-2", "only", "x")
	r.c.Do(ctx, "XADD", k, "6-0", "b", "null")
	cfg := connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Stream", "key": k}, "batch_size", 2)
	res := collect(t, cfg, nil)
	want := []string{
		`{"id":"5-1","fields":{"z":"last","a":{"n":1},"num":7}}`, // field order as written
		`{"id":"5-2","fields":{"only":"x"}}`,
		`{"id":"6-0","fields":{"b":null}}`,
	}
	if got := jsonOf(res.Records); !reflect.DeepEqual(got, want) {
		t.Fatalf("records\n got %q\nwant %q", got, want)
	}
	if got := []string{res.Bookmarks[0].AsString(), res.Bookmarks[1].AsString()}; res.Pages != 2 || !reflect.DeepEqual(got, []string{"5-2", "6-0"}) {
		t.Fatalf("pages %d bookmarks %v", res.Pages, res.Bookmarks)
	}
	// Resuming after 5-2 reads only what followed; new entries are read
	// by the next run.
	bm := connector.String("5-2")
	if got := jsonOf(collect(t, cfg, &bm).Records); !reflect.DeepEqual(got, want[2:]) {
		t.Errorf("after 5-2: %q", got)
	}
	r.c.Do(ctx, "XADD", k, "7-0", "c", "1")
	last := connector.String("6-0")
	if got := jsonOf(collect(t, cfg, &last).Records); !reflect.DeepEqual(got, []string{`{"id":"7-0","fields":{"c":1}}`}) {
		t.Errorf("after 6-0: %q", got)
	}
	// max_records stops inside a page; its bookmark is the last entry read.
	capped := collect(t, connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Stream", "key": k}, "max_records", 1), nil)
	if len(capped.Records) != 1 || capped.Bookmark == nil || capped.Bookmark.AsString() != "5-1" {
		t.Errorf("max_records 1: %d records, bookmark %v", len(capped.Records), capped.Bookmark)
	}
	// A bookmark that is not an entry id (state of another source) is an
	// error telling what to do, not a silent restart.
	src, _ := newSource(cfg)
	bad := connector.Int(17)
	err := src.Open(ctx, connector.SourceOptions{StartBookmark: &bad})
	if err == nil || !strings.Contains(err.Error(), "saved bookmark 17 is not a stream entry id") {
		t.Errorf("Open with bookmark 17: %v", err)
	}
	src.Close()
}

func TestStreamID(t *testing.T) {
	for _, tc := range []struct {
		in, next string
		more     bool
	}{
		{"0-0", "0-1", true},
		{"1526919030474-55", "1526919030474-56", true},
		{"5-18446744073709551615", "6-0", true},
		{"18446744073709551615-18446744073709551615", "18446744073709551615-18446744073709551615", false},
	} {
		id, ok := parseStreamID(tc.in)
		if !ok {
			t.Fatalf("parse %q failed", tc.in)
		}
		next, more := id.next()
		if next.String() != tc.next || more != tc.more {
			t.Errorf("next(%s) = %s, %v; want %s, %v", tc.in, next, more, tc.next, tc.more)
		}
	}
	for _, bad := range []string{"", "5", "5-", "-1", "a-b", "1-2-3", "18446744073709551616-0"} {
		if _, ok := parseStreamID(bad); ok {
			t.Errorf("%q parsed as an id", bad)
		}
	}
}

func TestKeysSource(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	base := r.key("k:")
	r.c.Set(ctx, base+"str", `{"a":1}`, 0)
	r.c.Set(ctx, base+"text", `hello`, 0)
	r.c.HSet(ctx, base+"hash", "z", "1", "a", "two")
	r.c.RPush(ctx, base+"list", "b", "3")
	r.c.SAdd(ctx, base+"set", "y", "x")
	r.c.ZAdd(ctx, base+"zset", redisZ(2.5, "m2"), redisZ(1, "m1"))
	r.c.Do(ctx, "XADD", base+"stream", "1-1", "f", "v")
	r.c.Set(ctx, r.key("other"), "not matched", 0)

	res := collect(t, connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Keys", "pattern": base + "*"}, "batch_size", 3), nil)
	got := map[string]string{}
	for _, rec := range res.Records {
		k, _ := rec.Get("key")
		v, _ := rec.Get("value")
		got[strings.TrimPrefix(k.AsString(), base)] = v.String()
	}
	want := map[string]string{
		"str":  `{"a":1}`,
		"text": `"hello"`,
		"hash": `{"z":1,"a":"two"}`,
		"list": `["b",3]`,
		"set":  `["x","y"]`,
		"zset": `[{"member":"m1","score":1},{"member":"m2","score":2.5}]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values\n got %v\nwant %v", got, want)
	}
	if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), base+"stream") || !strings.Contains(res.Failed[0].Error(), "holds a stream") {
		t.Errorf("failed records: %v", res.Failed)
	}
	// max_records counts across pages, failed records included.
	capped := collect(t, connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Keys", "pattern": base + "*"}, "batch_size", 2, "max_records", 3), nil)
	if n := len(capped.Records) + len(capped.Failed); n != 3 {
		t.Errorf("max_records 3 read %d", n)
	}
}
