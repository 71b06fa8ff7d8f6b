// Package historytest is the RunHistory conformance suite. Every backend runs
// the same cases through Run, with real concurrency (goroutines and several
// store instances with different instance ids over one database).
package historytest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// Backend opens store instances over one fresh, isolated database.
type Backend struct {
	// Open opens another instance on the shared database. Instances opened
	// with different InstanceIDs behave like separate serve processes.
	Open func(t *testing.T, opts history.Options) history.RunHistory
}

// Factory returns a Backend on a fresh database; cleanup is registered on t.
type Factory func(t *testing.T) Backend

// Clock is a controllable clock: real time plus an offset.
type Clock struct{ off atomic.Int64 }

// Now is time.Now plus the offset, in UTC.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.off.Load())).UTC() }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.off.Add(int64(d)) }

type env struct {
	t   *testing.T
	b   Backend
	clk *Clock
	ctx context.Context
}

func (e *env) open(id string) history.RunHistory {
	return e.b.Open(e.t, history.Options{InstanceID: id, Now: e.clk.Now, LeaseTTL: 30 * time.Second})
}

// openClock opens an instance with its own clock.
func (e *env) openClock(id string, clk *Clock) history.RunHistory {
	return e.b.Open(e.t, history.Options{InstanceID: id, Now: clk.Now, LeaseTTL: 30 * time.Second})
}

type testCase struct {
	name string
	fn   func(e *env)
}

var cases []testCase

func register(name string, fn func(e *env)) { cases = append(cases, testCase{name, fn}) }

// Run runs every conformance case against the backend from f.
func Run(t *testing.T, f Factory) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &env{t: t, b: f(t), clk: &Clock{}, ctx: context.Background()}
			c.fn(e)
		})
	}
}

// must checks a (value, error) pair: must(h.Get(ctx, id))(t).
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func sp(s string) *string { return &s }

// base is a fixed, microsecond-free instant so times compare exactly.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func run(id string, st history.RunStatus, submitted time.Time) history.RunRecord {
	r := history.NewQueuedRun(id, sp("pipe-"+id), map[string]string{"team": "data"}, nil, submitted)
	r.Status = st
	return r
}

func ids(runs []history.RunRecord) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.RunID
	}
	return out
}

func sameStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}
