// Package fallback is the degraded-mode RunHistory wrapper.
//
// It forwards every call to the primary (SQL) store. Only an unreachable
// database trips it (a refused, dropped or timed-out connection, a server
// shutting down): each forwarded call is first retried up to three times
// (50 ms, x4 backoff) while the failure is Unreachable, then the wrapper
// degrades. Any other error goes back to the caller untouched, so a
// constraint violation or a lost template race never degrades the store
// (the 1.13 wrapper tripped on any error; this follows the later design).
//
// While degraded, run records (with their single-instance lease renewal and
// orphan recovery), run logs, audit, catalog, local outputs and usage
// recording continue in an in-memory store (nothing is buffered or
// replayed: what is written there stays there). Idempotent claims and the
// strict calls (leases and cluster dispatch, shards, membership, templates,
// tenants, connections, sessions, change requests, usage deletion) answer a
// Degraded error, which the server maps to 503: memory cannot coordinate
// peers, and a claim served from memory could admit a duplicate run.
//
// Probe (or a Run loop) asks the primary a cheap question and returns to it
// when it answers; when the store started degraded the probe reconnects.
package fallback

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/memory"
)

// ProbeRunID is the run id the recovery probe reads.
const ProbeRunID = "__faucet_history_recovery_probe__"

// Retry policy for unreachable failures before degrading.
const (
	unreachableAttempts = 3
	unreachableBase     = 50 * time.Millisecond
)

// Connector (re)opens the primary store; used when starting degraded.
type Connector func(ctx context.Context) (history.RunHistory, error)

// Store is the fallback wrapper.
type Store struct {
	mu       sync.Mutex
	primary  history.RunHistory
	connect  Connector
	mem      *memory.Store
	degraded atomic.Bool
	onChange atomic.Pointer[func(degraded bool)]
	label    string
}

var _ history.RunHistory = (*Store)(nil)

// Healthy wraps a connected primary.
func Healthy(primary history.RunHistory, opts history.Options, label string) *Store {
	return &Store{primary: primary, mem: memory.New(opts), label: label}
}

// DegradedAtStartup starts without a primary; Probe uses connect to reach it.
func DegradedAtStartup(connect Connector, opts history.Options, label string) *Store {
	s := &Store{connect: connect, mem: memory.New(opts), label: label}
	s.degraded.Store(true)
	return s
}

// Connect opens the primary with connect; on failure it starts degraded and
// returns the connect error alongside (for the startup log).
func Connect(ctx context.Context, connect Connector, opts history.Options, label string) (*Store, error) {
	p, err := connect(ctx)
	if err != nil {
		return DegradedAtStartup(connect, opts, label), err
	}
	s := Healthy(p, opts, label)
	s.connect = connect
	return s, nil
}

// Degraded reports whether calls are being served in degraded mode.
func (s *Store) Degraded() bool { return s.degraded.Load() }

// Label names the primary backend ("postgres", "sqlite").
func (s *Store) Label() string { return s.label }

// Close closes the primary, if any.
func (s *Store) Close() error {
	s.mu.Lock()
	p := s.primary
	s.mu.Unlock()
	if p != nil {
		return p.Close()
	}
	return nil
}

// OnChange registers fn to be called with the new flag whenever it flips
// (wire the faucet_serve_history_degraded gauge and /readyz here).
func (s *Store) OnChange(fn func(degraded bool)) { s.onChange.Store(&fn) }

func (s *Store) setDegraded(v bool) {
	if s.degraded.Swap(v) != v {
		if fn := s.onChange.Load(); fn != nil {
			(*fn)(v)
		}
	}
}

func (s *Store) current() history.RunHistory {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.primary
}

// Probe checks the primary (reconnecting if it never connected) and clears
// the degraded flag when it answers. It reports whether the store is healthy.
func (s *Store) Probe(ctx context.Context) bool {
	if !s.Degraded() {
		return true
	}
	p := s.current()
	if p == nil {
		if s.connect == nil {
			return false
		}
		np, err := s.connect(ctx)
		if err != nil {
			return false
		}
		s.mu.Lock()
		s.primary, p = np, np
		s.mu.Unlock()
	}
	if _, err := p.Get(ctx, ProbeRunID); err != nil {
		return false
	}
	s.setDegraded(false)
	return true
}

// Run probes every interval until ctx ends (the lease tick can call Probe
// instead).
func (s *Store) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Probe(ctx)
		}
	}
}

func degradedErr(op string) error {
	return history.Degraded("run history is degraded (database unreachable): %s unavailable; retry later", op)
}

// forward runs fn on the primary, retrying unreachable failures, and trips
// the wrapper when they persist. It reports ok=false when the caller must
// take the degraded path.
func forward[T any](ctx context.Context, s *Store, fn func(h history.RunHistory) (T, error)) (T, bool, error) {
	var zero T
	p := s.current()
	if p == nil || s.Degraded() {
		return zero, false, nil
	}
	delay := unreachableBase
	var err error
	for attempt := 1; attempt <= unreachableAttempts; attempt++ {
		var v T
		v, err = fn(p)
		if err == nil || !history.IsUnreachable(err) {
			return v, true, err
		}
		if attempt < unreachableAttempts {
			select {
			case <-ctx.Done():
				return zero, true, err
			case <-time.After(delay):
			}
			delay *= 4
		}
	}
	s.setDegraded(true)
	return zero, false, nil
}

// soft: degrade to memory.
func soft[T any](ctx context.Context, s *Store, fn func(h history.RunHistory) (T, error)) (T, error) {
	if v, ok, err := forward(ctx, s, fn); ok {
		return v, err
	}
	return fn(s.mem)
}

// strict: degrade to a Degraded error.
func strict[T any](ctx context.Context, s *Store, op string, fn func(h history.RunHistory) (T, error)) (T, error) {
	if v, ok, err := forward(ctx, s, fn); ok {
		return v, err
	}
	var zero T
	return zero, degradedErr(op)
}

type none struct{}

func unit(err error) (none, error) { return none{}, err }

// FinalizeOwned forwards to the primary; while degraded, a run memory has
// never seen (it was written to the database before the trip) is stored as
// given (the seed's default finalize), otherwise memory's fenced finalize
// applies.
func (s *Store) FinalizeOwned(ctx context.Context, rec history.RunRecord) (bool, error) {
	if v, ok, err := forward(ctx, s, func(h history.RunHistory) (bool, error) { return h.FinalizeOwned(ctx, rec) }); ok {
		return v, err
	}
	if cur, err := s.mem.Get(ctx, rec.RunID); err != nil {
		return false, err
	} else if cur == nil {
		if rec.Status.IsTerminal() && rec.FinishedAt == nil {
			now := time.Now().UTC()
			rec.FinishedAt = &now
		}
		return true, s.mem.Upsert(ctx, rec)
	}
	return s.mem.FinalizeOwned(ctx, rec)
}
