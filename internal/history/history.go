package history

import (
	"context"
	"time"
)

// RunHistory is the run-history store, grouped as the seed groups it. Every
// backend (memory, sqlstore, fallback) implements all of it; the conformance
// suite in historytest pins their agreement.
type RunHistory interface {
	Runs
	Leases
	Shards
	AuditLog
	RunLogs
	Catalog
	LocalOutputs
	Tenants
	Changes
	Usage
	Templates
	// Degraded reports whether the store is serving from its in-memory
	// fallback (drives /readyz and the degraded gauge).
	Degraded() bool
	// Close releases the store's resources.
	Close() error
}

// Runs: idempotency and run records.
type Runs interface {
	// ClaimIdempotency atomically claims key for runID; a prior claim at least
	// window old is expired and re-claimable.
	ClaimIdempotency(ctx context.Context, key, fingerprint, runID string, window time.Duration) (Claim, error)
	// Upsert inserts or fully replaces a record (SQL stamps owner and lease).
	Upsert(ctx context.Context, rec RunRecord) error
	Get(ctx context.Context, runID string) (*RunRecord, error)
	List(ctx context.Context, f ListFilter) (ListPage, error)
	// Delete removes a terminal run with its claims, tenant link and shards.
	Delete(ctx context.Context, runID string) (DeleteOutcome, error)
	// PurgeExpired removes terminal runs finished more than retain ago (plus
	// the best-effort sweeps) and returns how many runs went.
	PurgeExpired(ctx context.Context, retain time.Duration) (int, error)
	// ReleaseIdempotency deletes the claims pointing at runID (undo a Fresh
	// claim whose record write failed).
	ReleaseIdempotency(ctx context.Context, runID string) error
}

// Leases: ownership, orphan recovery, cluster dispatch and membership.
type Leases interface {
	RecoverOrphans(ctx context.Context) (int, error)
	RenewLeases(ctx context.Context) (int, error)
	ClaimPending(ctx context.Context, limit int) ([]RunRecord, error)
	ReclaimOrphans(ctx context.Context, maxAttempts uint32) (ReclaimReport, error)
	FinalizeOwned(ctx context.Context, rec RunRecord) (bool, error)
	FinalizeShardedParent(ctx context.Context, runID string, status RunStatus, finishedAt time.Time, errMsg *string) (bool, error)
	CancelPending(ctx context.Context, runID string) (bool, error)
	RequestCancel(ctx context.Context, runID string) error
	PendingCancellations(ctx context.Context) ([]string, error)
	HeartbeatInstance(ctx context.Context, beat InstanceHeartbeat) error
	LiveInstances(ctx context.Context, ttl time.Duration) ([]InstanceRecord, error)
}

// Shards: Mode B source shards.
type Shards interface {
	InsertShards(ctx context.Context, runID string, shards []ShardInsert) (int, error)
	ClaimShards(ctx context.Context, limit int) ([]ClaimedShard, error)
	RenewShardLeases(ctx context.Context) (int, error)
	// RenewShardLease extends one shard's lease, fenced on owner = me and
	// running; false means the shard is no longer this instance's.
	RenewShardLease(ctx context.Context, runID, shardID string) (bool, error)
	ReclaimShards(ctx context.Context, maxAttempts uint32) (ReclaimReport, error)
	FinalizeShard(ctx context.Context, runID, shardID string, success bool) (bool, error)
	ShardProgress(ctx context.Context, runID string) (ShardProgress, error)
	PendingShardCancellations(ctx context.Context) ([]string, error)
	FinalizeCompletedShardedParents(ctx context.Context) (int, error)
}

// AuditLog: RBAC audit records.
type AuditLog interface {
	RecordAudit(ctx context.Context, e AuditEntry) error
	ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
}

// RunLogs: persistent per-run log lines.
type RunLogs interface {
	RecordRunLogs(ctx context.Context, runID string, lines []RunLogLine) error
	ListRunLogs(ctx context.Context, runID string, afterSeq *uint64, limit int) (RunLogPage, error)
	PurgeRunLogs(ctx context.Context, olderThan time.Duration) (int, error)
}

// Catalog: the data-movement catalog and config snapshots (never purged).
type Catalog interface {
	CatalogRecord(ctx context.Context, u CatalogUpdate) error
	CatalogAnnotate(ctx context.Context, datasetID string, a CatalogAnnotation) (bool, error)
	CatalogListDatasets(ctx context.Context, f CatalogListFilter) (CatalogDatasetPage, error)
	CatalogGetDataset(ctx context.Context, id string) (*CatalogDatasetDetail, error)
	CatalogRecordProfile(ctx context.Context, datasetID string, rec CatalogProfileRecord) error
	CatalogProfileHistory(ctx context.Context, datasetID string, limit int) ([]CatalogProfileRecord, error)
	CatalogLineage(ctx context.Context, root *string, depth uint32) ([]CatalogLineageEdge, error)
	CatalogRecordConfigSnapshot(ctx context.Context, s ConfigSnapshot) error
	CatalogLastConfigSnapshot(ctx context.Context, pipeline string) (*ConfigSnapshot, error)
}

// LocalOutputs: the local sink output ledger (never purged).
type LocalOutputs interface {
	LocalOutputRecord(ctx context.Context, obs LocalOutputObservation) error
	LocalOutputList(ctx context.Context, f LocalOutputFilter) ([]LocalOutputRecord, error)
	LocalOutputGet(ctx context.Context, id string) (*LocalOutputRecord, error)
	LocalOutputMarkDeleted(ctx context.Context, id string, at time.Time, bytes uint64) (bool, error)
}

// Tenants: tenants, connections, connect sessions, run links, state refs.
type Tenants interface {
	TenantUpsert(ctx context.Context, t TenantRecord) error
	TenantGet(ctx context.Context, id string) (*TenantRecord, error)
	TenantList(ctx context.Context) ([]TenantRecord, error)
	TenantDelete(ctx context.Context, id string) (bool, error)
	ConnectionUpsert(ctx context.Context, c ConnectionRecord) error
	ConnectionGet(ctx context.Context, tenant, name string) (*ConnectionRecord, error)
	ConnectionList(ctx context.Context, tenant string) ([]ConnectionRecord, error)
	ConnectionDelete(ctx context.Context, tenant, name string) (bool, error)
	ConnectSessionPut(ctx context.Context, s ConnectSession) error
	ConnectSessionTake(ctx context.Context, state string) (*ConnectSession, error)
	TenantRunLink(ctx context.Context, runID, tenant string) error
	TenantStateRefAdd(ctx context.Context, r TenantStateRef) error
	TenantStateRefs(ctx context.Context, tenant string) ([]TenantStateRef, error)
}

// Changes: change requests (never purged).
type Changes interface {
	ChangeUpsert(ctx context.Context, c ChangeRequest) error
	ChangeGet(ctx context.Context, id string) (*ChangeRequest, error)
	ChangeList(ctx context.Context, f ChangeListFilter) ([]ChangeRequest, error)
	ChangeDelete(ctx context.Context, id string) (bool, error)
}

// Usage: cost and usage accounting (append-only, never purged).
type Usage interface {
	UsageRecord(ctx context.Context, r UsageRecord) error
	UsageList(ctx context.Context, f UsageFilter) ([]UsageRecord, error)
	UsageDeleteRuns(ctx context.Context, runIDs []string) (int, error)
}

// Templates: the pipeline-template registry.
type Templates interface {
	TemplateRegister(ctx context.Context, d TemplateDraft) (TemplateRecord, error)
	TemplateGet(ctx context.Context, id string, version *uint32) (*TemplateRecord, error)
	TemplateList(ctx context.Context) ([]TemplateSummary, error)
	TemplateVersions(ctx context.Context, id string) ([]uint32, error)
	TemplateDelete(ctx context.Context, id string, version *uint32) (int, error)
	TemplateSetTag(ctx context.Context, id, tag string, version uint32) error
	TemplateTags(ctx context.Context, id string) (map[string]uint32, error)
	TemplateDeleteTag(ctx context.Context, id, tag string) (bool, error)
	TemplateLaunch(ctx context.Context, id string, version uint32, by *string) (*uint32, error)
	TemplateLaunches(ctx context.Context, id string) ([]LaunchRecord, error)
	TemplateSetDeprecation(ctx context.Context, id string, rec *DeprecationRecord) error
	TemplateDeprecation(ctx context.Context, id string) (*DeprecationRecord, error)
	TemplateSetVersionDeprecation(ctx context.Context, id string, version uint32, rec *DeprecationRecord) error
	TemplateVersionDeprecations(ctx context.Context, id string) ([]VersionDeprecation, error)
}

// TemplateStateOf assembles a template's derived state from the primitive
// reads (the seed's provided template_state).
func TemplateStateOf(ctx context.Context, h Templates, id string) (TemplateState, error) {
	versions, err := h.TemplateVersions(ctx, id)
	if err != nil {
		return TemplateState{}, err
	}
	launches, err := h.TemplateLaunches(ctx, id)
	if err != nil {
		return TemplateState{}, err
	}
	tags, err := h.TemplateTags(ctx, id)
	if err != nil {
		return TemplateState{}, err
	}
	dep, err := h.TemplateDeprecation(ctx, id)
	if err != nil {
		return TemplateState{}, err
	}
	vd, err := h.TemplateVersionDeprecations(ctx, id)
	if err != nil {
		return TemplateState{}, err
	}
	return AssembleTemplateState(versions, launches, tags, dep, vd), nil
}
