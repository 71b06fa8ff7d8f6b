package http

import (
	"context"
	"encoding/json"
	"io"
	nethttp "net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// fakeClock records waits instead of sleeping.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// endpoint is a fake receiving API: decide answers each request (nil:
// 200 and the records count as received).
type endpoint struct {
	srv      *httptest.Server
	mu       sync.Mutex
	received []int64   // ids accepted, in arrival order
	bodies   [][]int64 // ids of each accepted request
	requests int
	headers  nethttp.Header // of the last request
	decide   func(ids []int64, attempt int, r *nethttp.Request) (status int, header map[string]string)
	attempts map[string]int // per body
}

func newEndpoint(t *testing.T, decide func(ids []int64, attempt int, r *nethttp.Request) (int, map[string]string)) *endpoint {
	e := &endpoint{decide: decide, attempts: map[string]int{}}
	e.srv = httptest.NewServer(nethttp.HandlerFunc(e.handle))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) handle(w nethttp.ResponseWriter, r *nethttp.Request) {
	body, _ := io.ReadAll(r.Body)
	var ids []int64
	var one struct{ ID int64 }
	var many []struct{ ID int64 }
	if json.Unmarshal(body, &many) == nil {
		for _, m := range many {
			ids = append(ids, m.ID)
		}
	} else if json.Unmarshal(body, &one) == nil {
		ids = []int64{one.ID}
	} else {
		nethttp.Error(w, "not JSON", nethttp.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.requests++
	e.headers = r.Header.Clone()
	e.attempts[string(body)]++
	attempt := e.attempts[string(body)]
	e.mu.Unlock()
	if e.decide != nil {
		if status, hdr := e.decide(ids, attempt, r); status != 0 {
			for k, v := range hdr {
				w.Header().Set(k, v)
			}
			nethttp.Error(w, `{"error":"refused by the test"}`, status)
			return
		}
	}
	e.mu.Lock()
	e.received = append(e.received, ids...)
	e.bodies = append(e.bodies, ids)
	e.mu.Unlock()
	w.WriteHeader(nethttp.StatusCreated)
}

// got returns the accepted ids, sorted.
func (e *endpoint) got() []int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := append([]int64(nil), e.received...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (e *endpoint) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.received)
}

func (e *endpoint) nRequests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests
}

// openSink builds and opens a sink from alternating config keys and values.
func openSink(t *testing.T, clock *fakeClock, kv ...any) *Sink {
	t.Helper()
	s, err := newSink(connectortest.Cfg(t, kv...))
	if err != nil {
		t.Fatal(err)
	}
	snk := s.(*Sink)
	if clock != nil {
		snk.client.Clock = clock
	}
	if err := snk.Open(context.Background(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snk.Close() })
	return snk
}

// page returns a page of records 1..n (connectortest's mixed records).
func page(n int) *connector.Page { return &connector.Page{Records: connectortest.Records(n)} }

func seq(from, to int) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, int64(i))
	}
	return out
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// without returns ids minus drop.
func without(ids []int64, drop func(int64) bool) []int64 {
	var out []int64
	for _, id := range ids {
		if !drop(id) {
			out = append(out, id)
		}
	}
	return out
}

// failedIDs lists the ids of a page's refused records.
func failedIDs(p *connector.Page) []int64 {
	var out []int64
	for _, f := range p.Failed {
		v, _ := f.Record.Get("id")
		out = append(out, v.AsInt())
	}
	return out
}
