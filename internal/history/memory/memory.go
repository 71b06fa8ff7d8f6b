// Package memory is the in-memory RunHistory: the semantic reference every
// other backend is checked against, and the store behind `--history memory`
// and the degraded fallback. Everything is lost on restart.
//
// One mutex serializes every operation, which makes each method atomic; the
// observable semantics (filters, orderings, guards, caps, thresholds) mirror
// the SQL statements in sqlstore exactly, including the cluster, shard and
// tenant-link methods the original left inert in memory, so the two backends
// can be compared operation by operation.
package memory

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

type runRow struct {
	rec             history.RunRecord
	owner           *string
	lease           *string // fixed-width timestamp, as in the SQL column
	cancelRequested *string
}

type idemRow struct {
	runID, fingerprint, claimedAt string
}

type shardRow struct {
	runID, shardID string
	descriptor     json.RawMessage
	size           *uint64
	status         string
	owner          *string
	lease          *string
	attempt        uint32
	finishedAt     *string
}

type instanceRow struct {
	startedAt, lastHeartbeat string
	listen                   *string
	maxConcurrent, inFlight  uint32
}

// Store is the in-memory backend: an instance view (its own instance id,
// lease TTL and clock) over shared state, so several instances can share one
// "database" the way serve instances share Postgres.
type Store struct {
	opts history.Options
	*state
}

type state struct {
	mu        sync.Mutex
	runs      map[string]*runRow
	idem      map[string]idemRow
	shards    map[[2]string]*shardRow
	instances map[string]instanceRow
	caps      map[string]uint32
	audit     []history.AuditEntry
	logs      map[string]map[uint64]history.RunLogLine
	tenantRun map[string]string

	datasets  map[string]history.CatalogDataset
	schemaVer map[string][]history.CatalogSchemaVersion
	stats     map[string][]history.CatalogStatsPoint
	edges     map[[2]string]history.CatalogLineageEdge
	profiles  map[string][]history.CatalogProfileRecord
	snapshots map[string]history.ConfigSnapshot

	outputs map[string]history.LocalOutputRecord
	usage   []history.UsageRecord
	changes map[string]history.ChangeRequest

	tenants     map[string]history.TenantRecord
	connections map[[2]string]history.ConnectionRecord
	sessions    map[string]history.ConnectSession
	stateRefs   map[[2]string]history.TenantStateRef

	templates   map[string]map[uint32]history.TemplateRecord
	tags        map[string]map[string]uint32
	launches    map[string][]history.LaunchRecord // oldest first
	deps        map[string]history.DeprecationRecord
	versionDeps map[string]map[uint32]history.DeprecationRecord
}

var _ history.RunHistory = (*Store)(nil)

// New returns an empty store.
func New(opts history.Options) *Store {
	return &Store{opts: opts.WithDefaults(), state: &state{
		runs:        map[string]*runRow{},
		idem:        map[string]idemRow{},
		shards:      map[[2]string]*shardRow{},
		instances:   map[string]instanceRow{},
		caps:        map[string]uint32{},
		logs:        map[string]map[uint64]history.RunLogLine{},
		tenantRun:   map[string]string{},
		datasets:    map[string]history.CatalogDataset{},
		schemaVer:   map[string][]history.CatalogSchemaVersion{},
		stats:       map[string][]history.CatalogStatsPoint{},
		edges:       map[[2]string]history.CatalogLineageEdge{},
		profiles:    map[string][]history.CatalogProfileRecord{},
		snapshots:   map[string]history.ConfigSnapshot{},
		outputs:     map[string]history.LocalOutputRecord{},
		changes:     map[string]history.ChangeRequest{},
		tenants:     map[string]history.TenantRecord{},
		connections: map[[2]string]history.ConnectionRecord{},
		sessions:    map[string]history.ConnectSession{},
		stateRefs:   map[[2]string]history.TenantStateRef{},
		templates:   map[string]map[uint32]history.TemplateRecord{},
		tags:        map[string]map[string]uint32{},
		launches:    map[string][]history.LaunchRecord{},
		deps:        map[string]history.DeprecationRecord{},
		versionDeps: map[string]map[uint32]history.DeprecationRecord{},
	}}
}

// Instance returns another instance over the same state with its own options
// (instance id, lease TTL, clock).
func (s *Store) Instance(opts history.Options) *Store {
	return &Store{opts: opts.WithDefaults(), state: s.state}
}

// InstanceID is this store's owner id.
func (s *Store) InstanceID() string { return s.opts.InstanceID }

// Degraded is always false for memory.
func (s *Store) Degraded() bool { return false }

// Close is a no-op.
func (s *Store) Close() error { return nil }

func (s *Store) now() time.Time { return s.opts.NowUTC() }

// roundTrip stores and returns values as the SQL backends would: through their
// JSON body, so both expose identical values and no caller aliases our state.
func roundTrip[T any](v T, what string) (T, error) {
	body, err := history.EncodeJSON(v, what)
	if err != nil {
		var zero T
		return zero, err
	}
	return history.DecodeJSON[T](body, what)
}

func strp(s string) *string { return &s }

// copyRun returns a deep copy, so callers never alias stored state.
func copyRun(r history.RunRecord) history.RunRecord {
	c, err := roundTrip(r, "run record")
	if err != nil {
		return r.Clone()
	}
	return c
}
