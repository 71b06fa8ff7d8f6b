package redis

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestListSink(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	k := r.key("out")
	recs := []connector.Record{rec("id", 1, "b", "x"), rec("id", 2, "b", nil), rec("id", 3)}
	cfg := connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List", "key": k}, "batch_size", 2)
	write(t, cfg, recs[:2], recs[2:])
	got := r.c.LRange(ctx, k, 0, -1).Val()
	if want := jsonOf(recs); !reflect.DeepEqual(got, want) {
		t.Errorf("list\n got %q\nwant %q", got, want)
	}
	// A key of another type is refused before anything is written.
	r.c.HSet(ctx, r.key("h"), "a", "1")
	snk, _ := newSink(connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List", "key": r.key("h")}))
	if err := snk.Open(ctx, connector.SinkOptions{}); err == nil || !strings.Contains(err.Error(), "holds a hash, not a list") {
		t.Errorf("Open on a hash: %v", err)
	}
	snk.Close()
}

func TestStreamSink(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	recs := []connector.Record{
		rec("name", "Alice", "age", 30, "tags", []any{"a"}, "gone", nil),
		{}, // no field: the whole record as _data
		rec("user", map[string]any{"id": 7, "plan": "pro"}, "name", "Bob"),
	}
	entries := func(k string) []string {
		var out []string
		for _, m := range r.c.XRange(ctx, k, "-", "+").Val() {
			raw := r.c.Do(ctx, "XRANGE", k, m.ID, m.ID).Val().([]any)[0].([]any)[1].([]any)
			parts := make([]string, len(raw))
			for i, x := range raw {
				parts[i] = x.(string)
			}
			out = append(out, strings.Join(parts, "|"))
		}
		return out
	}
	k := r.key("all-fields")
	write(t, connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "Stream", "key": k}), recs)
	want := []string{
		`name|Alice|age|30|tags|["a"]|gone|null`,
		`_data|{}`,
		`user|{"id":7,"plan":"pro"}|name|Bob`,
	}
	if got := entries(k); !reflect.DeepEqual(got, want) {
		t.Errorf("entries\n got %q\nwant %q", got, want)
	}
	// What the sink wrote, the source reads back as the same values.
	back := collect(t, connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Stream", "key": k}), nil)
	if f, _ := back.Records[0].Get("fields"); f.String() != `{"name":"Alice","age":30,"tags":["a"],"gone":null}` {
		t.Errorf("read back %s", f)
	}

	// With a fields mapping: entry fields in name order, missing or null
	// paths left out, nothing left means _data.
	k2 := r.key("mapped")
	write(t, connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{
		"type": "Stream", "key": k2, "fields": map[string]any{"uid": "user.id", "who": "name", "plan": "user.plan"},
	}), recs)
	want2 := []string{`who|Alice`, `_data|{}`, `plan|pro|uid|7|who|Bob`}
	if got := entries(k2); !reflect.DeepEqual(got, want2) {
		t.Errorf("mapped entries\n got %q\nwant %q", got, want2)
	}
}

func TestKeyValueSink(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	base := r.key("user:")
	recs := []connector.Record{
		rec("id", "u1", "plan", "pro"),
		rec("id", 42, "plan", "free"),
		rec("id", "u1", "plan", "team"), // last write wins
	}
	write(t, connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "KeyValue", "key_field": "id", "key_prefix": base}), recs)
	if got := r.c.Get(ctx, base+"u1").Val(); got != `{"id":"u1","plan":"team"}` {
		t.Errorf("u1 = %s", got)
	}
	if got := r.c.Get(ctx, base+"42").Val(); got != `{"id":42,"plan":"free"}` {
		t.Errorf("42 = %s", got)
	}
	if ttl := r.c.TTL(ctx, base+"42").Val(); ttl != -1 {
		t.Errorf("ttl without ttl: %v", ttl)
	}

	// A dotted key path, with a TTL.
	write(t, connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "key_value", "key_field": "user.id", "key_prefix": base, "ttl": 60}),
		[]connector.Record{rec("user", map[string]any{"id": "n1"})})
	if ttl := r.c.TTL(ctx, base+"n1").Val(); ttl <= 0 || ttl > 60*time.Second {
		t.Errorf("ttl = %v, want (0, 60s]", ttl)
	}

	// A record without the key fails its page, naming the record, and
	// nothing of the page is written.
	snk, _ := newSink(connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "KeyValue", "key_field": "id", "key_prefix": base + "bad:"}))
	if err := snk.Open(ctx, connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer snk.Close()
	err := snk.Write(ctx, &connector.Page{Records: []connector.Record{rec("id", "ok"), rec("id", nil), rec("x", 1)}})
	if err == nil || !strings.Contains(err.Error(), `record 2 of the page: key_field "id" is missing or null`) {
		t.Errorf("err = %v", err)
	}
	if n := r.c.Exists(ctx, base+"bad:ok").Val(); n != 0 {
		t.Error("a page with a bad record was partly written")
	}
}
