package redis

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

func TestWriteIdempotent(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	k := r.key("eo")
	scope := r.prefix + "scope"
	open := func() *Sink {
		// batch_size 1 must not split a page under exactly-once.
		snk, err := newSink(connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "List", "key": k}, "batch_size", 1))
		if err != nil {
			t.Fatal(err)
		}
		if err := snk.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { snk.Close() })
		return snk.(*Sink)
	}
	page := func(ids ...int) *connector.Page {
		p := &connector.Page{}
		for _, id := range ids {
			p.Records = append(p.Records, rec("id", id))
		}
		return p
	}
	list := func() []string { return r.c.LRange(ctx, k, 0, -1).Val() }
	token := func() string { return r.c.Get(ctx, tokenKey(scope)).Val() }

	s := open()
	if tok, ok, err := s.LastCommittedToken(ctx, scope); ok || err != nil || tok != "" {
		t.Fatalf("fresh scope: %q %v %v", tok, ok, err)
	}
	steps := []struct {
		page  *connector.Page
		token string
		want  []string
	}{
		{page(1, 2, 3), "00000000000000000001#3", []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}},
		// The same token again (a retry after a lost reply) writes nothing.
		{page(1, 2, 3), "00000000000000000001#3", []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}},
		{page(4), "00000000000000000002#4", []string{`{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`}},
		// An empty page only moves the token.
		{page(), "00000000000000000003#4", []string{`{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4}`}},
	}
	for i, st := range steps {
		if err := s.WriteIdempotent(ctx, st.page, scope, st.token); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if got := list(); !reflect.DeepEqual(got, st.want) {
			t.Fatalf("step %d: list %q, want %q", i+1, got, st.want)
		}
		if got := token(); got != st.token {
			t.Fatalf("step %d: token %q, want %q", i+1, got, st.token)
		}
	}
	// A new sink reads the token back.
	if tok, ok, err := open().LastCommittedToken(ctx, scope); !ok || err != nil || tok != "00000000000000000003#4" {
		t.Fatalf("reopened: %q %v %v", tok, ok, err)
	}

	// The server forgets the token (a restart without persistence): the
	// next page is refused with a fatal error, and nothing is written.
	r.c.Del(ctx, tokenKey(scope))
	err := s.WriteIdempotent(ctx, page(5), scope, "00000000000000000004#5")
	if !connector.IsFatal(err) || !strings.Contains(err.Error(), "the server lost committed pages") {
		t.Fatalf("after the token vanished: %v", err)
	}
	if n := len(list()); n != 4 || token() != "" {
		t.Fatalf("written after the loss: %d records, token %q", n, token())
	}
	// Another writer moving the token is refused the same way.
	s2 := open()
	s2.LastCommittedToken(ctx, scope)
	r.c.Set(ctx, tokenKey(scope), "00000000000000000009#9", 0)
	if err := s2.WriteIdempotent(ctx, page(5), scope, "00000000000000000001#5"); !connector.IsFatal(err) {
		t.Fatalf("token moved by someone else: %v", err)
	}
}

// A bad record fails the exactly-once page before MULTI: neither rows nor
// token are written.
func TestWriteIdempotentBadRecord(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	scope := r.prefix + "scope"
	snk, _ := newSink(connectortest.Cfg(t, "url", r.url, "sink_type", map[string]any{"type": "KeyValue", "key_field": "id", "key_prefix": r.key("kv:")}))
	if err := snk.Open(ctx, connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer snk.Close()
	s := snk.(*Sink)
	s.LastCommittedToken(ctx, scope)
	err := s.WriteIdempotent(ctx, &connector.Page{Records: []connector.Record{rec("id", "a"), rec("x", 1)}}, scope, "00000000000000000001#1")
	if err == nil || !strings.Contains(err.Error(), `record 2 of the page: key_field "id" is missing`) {
		t.Fatalf("err = %v", err)
	}
	if r.c.Exists(ctx, r.key("kv:a"), tokenKey(scope)).Val() != 0 {
		t.Fatal("a failed page left rows or a token behind")
	}
}
