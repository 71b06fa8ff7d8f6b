package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// fakeClock records the waits of a client and advances its time by them
// instead of sleeping.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	// Whole seconds, so that HTTP dates (second resolution) are exact.
	return &fakeClock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

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

// item is record id of the fake APIs.
func item(id int) map[string]any { return map[string]any{"id": id, "name": fmt.Sprintf("item-%d", id)} }

// items are records from..to (inclusive; none when to < from).
func items(from, to int) []any {
	out := []any{}
	for id := from; id <= to; id++ {
		out = append(out, item(id))
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// hit is one request a fake API received.
type hit struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   string
	At     time.Time
}

// hits records the requests of a fake API.
type hits struct {
	mu   sync.Mutex
	list []hit
}

func (h *hits) add(r *http.Request) hit {
	body, _ := io.ReadAll(r.Body)
	x := hit{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: string(body), At: time.Now()}
	h.mu.Lock()
	h.list = append(h.list, x)
	h.mu.Unlock()
	return x
}

func (h *hits) all() []hit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hit(nil), h.list...)
}

func (h *hits) n() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.list)
}

// newSrc builds a source from alternating config keys and values.
func newSrc(t *testing.T, kv ...any) *Source {
	t.Helper()
	s, err := newSource(connectortest.Cfg(t, kv...))
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Source)
}

// logBuf collects log lines (safe for concurrent use).
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuf) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// drain reads every page of s as the engine would, from start, logging
// into log (may be nil).
func drain(ctx context.Context, s *Source, start *connector.Value, log *logBuf) (connectortest.Result, error) {
	var res connectortest.Result
	opts := connector.SourceOptions{StartBookmark: start}
	if log != nil {
		opts.Logger = log.logger()
	}
	if err := s.Open(ctx, opts); err != nil {
		return res, err
	}
	defer s.Close()
	for {
		p, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		res.Pages++
		res.Records = append(res.Records, p.Records...)
		res.Failed = append(res.Failed, p.Failed...)
		if p.Bookmark != nil {
			b := p.Bookmark.Detach()
			res.Bookmarks = append(res.Bookmarks, b)
			res.Bookmark = &b
		}
	}
}

// mustDrain is drain failing the test on error.
func mustDrain(t *testing.T, s *Source, start *connector.Value) connectortest.Result {
	t.Helper()
	res, err := drain(context.Background(), s, start, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// ids lists the "id" of each record.
func ids(recs []connector.Record) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		v, _ := r.Get("id")
		out[i] = v.AsInt()
	}
	return out
}

// seq is from..to.
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

// atoi reads an integer query parameter (0 when absent).
func atoi(q url.Values, key string) int {
	var n int
	fmt.Sscan(q.Get(key), &n)
	return n
}
