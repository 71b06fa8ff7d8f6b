package fallback

import (
	"context"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// Strict returns the view of the store that cluster mode (`faucet serve
// --cluster`) uses as its run history. It is the same store (same primary,
// same degraded flag, same probe), but run records and leases never fall
// back to memory: while degraded, Upsert, Get, List, Delete, PurgeExpired,
// ReleaseIdempotency, RecoverOrphans, RenewLeases and FinalizeOwned answer a
// Degraded error (HTTP 503) like the calls that were strict already.
//
// In a cluster the database is the only place where a run's state and its
// owner are decided: a pending run written to memory would never be claimed
// by a peer, and a terminal write accepted by memory would let this instance
// believe it finalized a run (and fire its callback) while the row is still
// running and about to be reclaimed and run again elsewhere. Everything else
// (run logs, audit, catalog, usage) keeps the soft policy.
func (s *Store) Strict() history.RunHistory { return strictView{s} }

type strictView struct{ *Store }

// Upsert is refused while degraded.
func (v strictView) Upsert(ctx context.Context, rec history.RunRecord) error {
	_, err := strict(ctx, v.Store, "Upsert", func(h history.RunHistory) (none, error) { return unit(h.Upsert(ctx, rec)) })
	return err
}

// Get is refused while degraded.
func (v strictView) Get(ctx context.Context, runID string) (*history.RunRecord, error) {
	return strict(ctx, v.Store, "Get", func(h history.RunHistory) (*history.RunRecord, error) { return h.Get(ctx, runID) })
}

// List is refused while degraded.
func (v strictView) List(ctx context.Context, f history.ListFilter) (history.ListPage, error) {
	return strict(ctx, v.Store, "List", func(h history.RunHistory) (history.ListPage, error) { return h.List(ctx, f) })
}

// Delete is refused while degraded.
func (v strictView) Delete(ctx context.Context, runID string) (history.DeleteOutcome, error) {
	return strict(ctx, v.Store, "Delete", func(h history.RunHistory) (history.DeleteOutcome, error) { return h.Delete(ctx, runID) })
}

// PurgeExpired is refused while degraded.
func (v strictView) PurgeExpired(ctx context.Context, retain time.Duration) (int, error) {
	return strict(ctx, v.Store, "PurgeExpired", func(h history.RunHistory) (int, error) { return h.PurgeExpired(ctx, retain) })
}

// ReleaseIdempotency is refused while degraded.
func (v strictView) ReleaseIdempotency(ctx context.Context, runID string) error {
	_, err := strict(ctx, v.Store, "ReleaseIdempotency", func(h history.RunHistory) (none, error) {
		return unit(h.ReleaseIdempotency(ctx, runID))
	})
	return err
}

// RecoverOrphans is refused while degraded.
func (v strictView) RecoverOrphans(ctx context.Context) (int, error) {
	return strict(ctx, v.Store, "RecoverOrphans", func(h history.RunHistory) (int, error) { return h.RecoverOrphans(ctx) })
}

// RenewLeases is refused while degraded.
func (v strictView) RenewLeases(ctx context.Context) (int, error) {
	return strict(ctx, v.Store, "RenewLeases", func(h history.RunHistory) (int, error) { return h.RenewLeases(ctx) })
}

// FinalizeOwned is refused while degraded: the fenced write must reach the
// database or not happen.
func (v strictView) FinalizeOwned(ctx context.Context, rec history.RunRecord) (bool, error) {
	return strict(ctx, v.Store, "FinalizeOwned", func(h history.RunHistory) (bool, error) { return h.FinalizeOwned(ctx, rec) })
}
