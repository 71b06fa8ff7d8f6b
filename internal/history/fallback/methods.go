// The forwarding methods, one per RunHistory method. The policy (soft =
// served from memory while degraded, strict = Degraded error) is the table in
// fallback.go's package comment.

package fallback

import (
	"context"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// ClaimIdempotency is refused (Degraded) while degraded.
func (fb *Store) ClaimIdempotency(ctx context.Context, key, fingerprint, runID string, window time.Duration) (history.Claim, error) {
	return strict(ctx, fb, "ClaimIdempotency", func(h history.RunHistory) (history.Claim, error) {
		return h.ClaimIdempotency(ctx, key, fingerprint, runID, window)
	})
}

// Upsert is served from memory while degraded.
func (fb *Store) Upsert(ctx context.Context, rec history.RunRecord) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.Upsert(ctx, rec)) })
	return err
}

// Get is served from memory while degraded.
func (fb *Store) Get(ctx context.Context, runID string) (*history.RunRecord, error) {
	return soft(ctx, fb, func(h history.RunHistory) (*history.RunRecord, error) { return h.Get(ctx, runID) })
}

// List is served from memory while degraded.
func (fb *Store) List(ctx context.Context, f history.ListFilter) (history.ListPage, error) {
	return soft(ctx, fb, func(h history.RunHistory) (history.ListPage, error) { return h.List(ctx, f) })
}

// Delete is served from memory while degraded.
func (fb *Store) Delete(ctx context.Context, runID string) (history.DeleteOutcome, error) {
	return soft(ctx, fb, func(h history.RunHistory) (history.DeleteOutcome, error) { return h.Delete(ctx, runID) })
}

// PurgeExpired is served from memory while degraded.
func (fb *Store) PurgeExpired(ctx context.Context, retain time.Duration) (int, error) {
	return soft(ctx, fb, func(h history.RunHistory) (int, error) { return h.PurgeExpired(ctx, retain) })
}

// ReleaseIdempotency is served from memory while degraded.
func (fb *Store) ReleaseIdempotency(ctx context.Context, runID string) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.ReleaseIdempotency(ctx, runID)) })
	return err
}

// RecoverOrphans is served from memory while degraded.
func (fb *Store) RecoverOrphans(ctx context.Context) (int, error) {
	return soft(ctx, fb, func(h history.RunHistory) (int, error) { return h.RecoverOrphans(ctx) })
}

// RenewLeases is served from memory while degraded: the runs memory holds
// are this instance's, and RecoverOrphans (also memory) must see their
// leases renewed or it would fail them.
func (fb *Store) RenewLeases(ctx context.Context) (int, error) {
	return soft(ctx, fb, func(h history.RunHistory) (int, error) { return h.RenewLeases(ctx) })
}

// ClaimPending is refused (Degraded) while degraded.
func (fb *Store) ClaimPending(ctx context.Context, limit int) ([]history.RunRecord, error) {
	return strict(ctx, fb, "ClaimPending", func(h history.RunHistory) ([]history.RunRecord, error) { return h.ClaimPending(ctx, limit) })
}

// ReclaimOrphans is refused (Degraded) while degraded.
func (fb *Store) ReclaimOrphans(ctx context.Context, maxAttempts uint32) (history.ReclaimReport, error) {
	return strict(ctx, fb, "ReclaimOrphans", func(h history.RunHistory) (history.ReclaimReport, error) { return h.ReclaimOrphans(ctx, maxAttempts) })
}

// FinalizeShardedParent is refused (Degraded) while degraded.
func (fb *Store) FinalizeShardedParent(ctx context.Context, runID string, status history.RunStatus, finishedAt time.Time, errMsg *string) (bool, error) {
	return strict(ctx, fb, "FinalizeShardedParent", func(h history.RunHistory) (bool, error) {
		return h.FinalizeShardedParent(ctx, runID, status, finishedAt, errMsg)
	})
}

// CancelPending is refused (Degraded) while degraded.
func (fb *Store) CancelPending(ctx context.Context, runID string) (bool, error) {
	return strict(ctx, fb, "CancelPending", func(h history.RunHistory) (bool, error) { return h.CancelPending(ctx, runID) })
}

// RequestCancel is refused (Degraded) while degraded.
func (fb *Store) RequestCancel(ctx context.Context, runID string) error {
	_, err := strict(ctx, fb, "RequestCancel", func(h history.RunHistory) (none, error) { return unit(h.RequestCancel(ctx, runID)) })
	return err
}

// PendingCancellations is refused (Degraded) while degraded.
func (fb *Store) PendingCancellations(ctx context.Context) ([]string, error) {
	return strict(ctx, fb, "PendingCancellations", func(h history.RunHistory) ([]string, error) { return h.PendingCancellations(ctx) })
}

// HeartbeatInstance is refused (Degraded) while degraded.
func (fb *Store) HeartbeatInstance(ctx context.Context, beat history.InstanceHeartbeat) error {
	_, err := strict(ctx, fb, "HeartbeatInstance", func(h history.RunHistory) (none, error) { return unit(h.HeartbeatInstance(ctx, beat)) })
	return err
}

// LiveInstances is refused (Degraded) while degraded.
func (fb *Store) LiveInstances(ctx context.Context, ttl time.Duration) ([]history.InstanceRecord, error) {
	return strict(ctx, fb, "LiveInstances", func(h history.RunHistory) ([]history.InstanceRecord, error) { return h.LiveInstances(ctx, ttl) })
}

// InsertShards is refused (Degraded) while degraded.
func (fb *Store) InsertShards(ctx context.Context, runID string, shards []history.ShardInsert) (int, error) {
	return strict(ctx, fb, "InsertShards", func(h history.RunHistory) (int, error) { return h.InsertShards(ctx, runID, shards) })
}

// ClaimShards is refused (Degraded) while degraded.
func (fb *Store) ClaimShards(ctx context.Context, limit int) ([]history.ClaimedShard, error) {
	return strict(ctx, fb, "ClaimShards", func(h history.RunHistory) ([]history.ClaimedShard, error) { return h.ClaimShards(ctx, limit) })
}

// RenewShardLeases is refused (Degraded) while degraded.
func (fb *Store) RenewShardLeases(ctx context.Context) (int, error) {
	return strict(ctx, fb, "RenewShardLeases", func(h history.RunHistory) (int, error) { return h.RenewShardLeases(ctx) })
}

// RenewShardLease is refused (Degraded) while degraded.
func (fb *Store) RenewShardLease(ctx context.Context, runID, shardID string) (bool, error) {
	return strict(ctx, fb, "RenewShardLease", func(h history.RunHistory) (bool, error) { return h.RenewShardLease(ctx, runID, shardID) })
}

// ReclaimShards is refused (Degraded) while degraded.
func (fb *Store) ReclaimShards(ctx context.Context, maxAttempts uint32) (history.ReclaimReport, error) {
	return strict(ctx, fb, "ReclaimShards", func(h history.RunHistory) (history.ReclaimReport, error) { return h.ReclaimShards(ctx, maxAttempts) })
}

// FinalizeShard is refused (Degraded) while degraded.
func (fb *Store) FinalizeShard(ctx context.Context, runID, shardID string, success bool) (bool, error) {
	return strict(ctx, fb, "FinalizeShard", func(h history.RunHistory) (bool, error) { return h.FinalizeShard(ctx, runID, shardID, success) })
}

// ShardProgress is refused (Degraded) while degraded.
func (fb *Store) ShardProgress(ctx context.Context, runID string) (history.ShardProgress, error) {
	return strict(ctx, fb, "history.ShardProgress", func(h history.RunHistory) (history.ShardProgress, error) { return h.ShardProgress(ctx, runID) })
}

// PendingShardCancellations is refused (Degraded) while degraded.
func (fb *Store) PendingShardCancellations(ctx context.Context) ([]string, error) {
	return strict(ctx, fb, "PendingShardCancellations", func(h history.RunHistory) ([]string, error) { return h.PendingShardCancellations(ctx) })
}

// FinalizeCompletedShardedParents is refused (Degraded) while degraded.
func (fb *Store) FinalizeCompletedShardedParents(ctx context.Context) (int, error) {
	return strict(ctx, fb, "FinalizeCompletedShardedParents", func(h history.RunHistory) (int, error) { return h.FinalizeCompletedShardedParents(ctx) })
}

// RecordAudit is served from memory while degraded.
func (fb *Store) RecordAudit(ctx context.Context, e history.AuditEntry) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.RecordAudit(ctx, e)) })
	return err
}

// ListAudit is served from memory while degraded.
func (fb *Store) ListAudit(ctx context.Context, f history.AuditFilter) ([]history.AuditEntry, error) {
	return soft(ctx, fb, func(h history.RunHistory) ([]history.AuditEntry, error) { return h.ListAudit(ctx, f) })
}

// RecordRunLogs is served from memory while degraded.
func (fb *Store) RecordRunLogs(ctx context.Context, runID string, lines []history.RunLogLine) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.RecordRunLogs(ctx, runID, lines)) })
	return err
}

// ListRunLogs is served from memory while degraded.
func (fb *Store) ListRunLogs(ctx context.Context, runID string, afterSeq *uint64, limit int) (history.RunLogPage, error) {
	return soft(ctx, fb, func(h history.RunHistory) (history.RunLogPage, error) {
		return h.ListRunLogs(ctx, runID, afterSeq, limit)
	})
}

// PurgeRunLogs is served from memory while degraded.
func (fb *Store) PurgeRunLogs(ctx context.Context, olderThan time.Duration) (int, error) {
	return soft(ctx, fb, func(h history.RunHistory) (int, error) { return h.PurgeRunLogs(ctx, olderThan) })
}

// CatalogRecord is served from memory while degraded.
func (fb *Store) CatalogRecord(ctx context.Context, u history.CatalogUpdate) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.CatalogRecord(ctx, u)) })
	return err
}

// CatalogAnnotate is served from memory while degraded.
func (fb *Store) CatalogAnnotate(ctx context.Context, datasetID string, a history.CatalogAnnotation) (bool, error) {
	return soft(ctx, fb, func(h history.RunHistory) (bool, error) { return h.CatalogAnnotate(ctx, datasetID, a) })
}

// CatalogListDatasets is served from memory while degraded.
func (fb *Store) CatalogListDatasets(ctx context.Context, f history.CatalogListFilter) (history.CatalogDatasetPage, error) {
	return soft(ctx, fb, func(h history.RunHistory) (history.CatalogDatasetPage, error) { return h.CatalogListDatasets(ctx, f) })
}

// CatalogGetDataset is served from memory while degraded.
func (fb *Store) CatalogGetDataset(ctx context.Context, id string) (*history.CatalogDatasetDetail, error) {
	return soft(ctx, fb, func(h history.RunHistory) (*history.CatalogDatasetDetail, error) { return h.CatalogGetDataset(ctx, id) })
}

// CatalogRecordProfile is served from memory while degraded.
func (fb *Store) CatalogRecordProfile(ctx context.Context, datasetID string, rec history.CatalogProfileRecord) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.CatalogRecordProfile(ctx, datasetID, rec)) })
	return err
}

// CatalogProfileHistory is served from memory while degraded.
func (fb *Store) CatalogProfileHistory(ctx context.Context, datasetID string, limit int) ([]history.CatalogProfileRecord, error) {
	return soft(ctx, fb, func(h history.RunHistory) ([]history.CatalogProfileRecord, error) {
		return h.CatalogProfileHistory(ctx, datasetID, limit)
	})
}

// CatalogLineage is served from memory while degraded.
func (fb *Store) CatalogLineage(ctx context.Context, root *string, depth uint32) ([]history.CatalogLineageEdge, error) {
	return soft(ctx, fb, func(h history.RunHistory) ([]history.CatalogLineageEdge, error) {
		return h.CatalogLineage(ctx, root, depth)
	})
}

// CatalogRecordConfigSnapshot is served from memory while degraded.
func (fb *Store) CatalogRecordConfigSnapshot(ctx context.Context, s history.ConfigSnapshot) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.CatalogRecordConfigSnapshot(ctx, s)) })
	return err
}

// CatalogLastConfigSnapshot is served from memory while degraded.
func (fb *Store) CatalogLastConfigSnapshot(ctx context.Context, pipeline string) (*history.ConfigSnapshot, error) {
	return soft(ctx, fb, func(h history.RunHistory) (*history.ConfigSnapshot, error) {
		return h.CatalogLastConfigSnapshot(ctx, pipeline)
	})
}

// LocalOutputRecord is served from memory while degraded.
func (fb *Store) LocalOutputRecord(ctx context.Context, obs history.LocalOutputObservation) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.LocalOutputRecord(ctx, obs)) })
	return err
}

// LocalOutputList is served from memory while degraded.
func (fb *Store) LocalOutputList(ctx context.Context, f history.LocalOutputFilter) ([]history.LocalOutputRecord, error) {
	return soft(ctx, fb, func(h history.RunHistory) ([]history.LocalOutputRecord, error) { return h.LocalOutputList(ctx, f) })
}

// LocalOutputGet is served from memory while degraded.
func (fb *Store) LocalOutputGet(ctx context.Context, id string) (*history.LocalOutputRecord, error) {
	return soft(ctx, fb, func(h history.RunHistory) (*history.LocalOutputRecord, error) { return h.LocalOutputGet(ctx, id) })
}

// LocalOutputMarkDeleted is served from memory while degraded.
func (fb *Store) LocalOutputMarkDeleted(ctx context.Context, id string, at time.Time, bytes uint64) (bool, error) {
	return soft(ctx, fb, func(h history.RunHistory) (bool, error) { return h.LocalOutputMarkDeleted(ctx, id, at, bytes) })
}

// TenantUpsert is refused (Degraded) while degraded.
func (fb *Store) TenantUpsert(ctx context.Context, t history.TenantRecord) error {
	_, err := strict(ctx, fb, "TenantUpsert", func(h history.RunHistory) (none, error) { return unit(h.TenantUpsert(ctx, t)) })
	return err
}

// TenantGet is refused (Degraded) while degraded.
func (fb *Store) TenantGet(ctx context.Context, id string) (*history.TenantRecord, error) {
	return strict(ctx, fb, "TenantGet", func(h history.RunHistory) (*history.TenantRecord, error) { return h.TenantGet(ctx, id) })
}

// TenantList is refused (Degraded) while degraded.
func (fb *Store) TenantList(ctx context.Context) ([]history.TenantRecord, error) {
	return strict(ctx, fb, "TenantList", func(h history.RunHistory) ([]history.TenantRecord, error) { return h.TenantList(ctx) })
}

// TenantDelete is refused (Degraded) while degraded.
func (fb *Store) TenantDelete(ctx context.Context, id string) (bool, error) {
	return strict(ctx, fb, "TenantDelete", func(h history.RunHistory) (bool, error) { return h.TenantDelete(ctx, id) })
}

// ConnectionUpsert is refused (Degraded) while degraded.
func (fb *Store) ConnectionUpsert(ctx context.Context, c history.ConnectionRecord) error {
	_, err := strict(ctx, fb, "ConnectionUpsert", func(h history.RunHistory) (none, error) { return unit(h.ConnectionUpsert(ctx, c)) })
	return err
}

// ConnectionGet is refused (Degraded) while degraded.
func (fb *Store) ConnectionGet(ctx context.Context, tenant, name string) (*history.ConnectionRecord, error) {
	return strict(ctx, fb, "ConnectionGet", func(h history.RunHistory) (*history.ConnectionRecord, error) {
		return h.ConnectionGet(ctx, tenant, name)
	})
}

// ConnectionList is refused (Degraded) while degraded.
func (fb *Store) ConnectionList(ctx context.Context, tenant string) ([]history.ConnectionRecord, error) {
	return strict(ctx, fb, "ConnectionList", func(h history.RunHistory) ([]history.ConnectionRecord, error) { return h.ConnectionList(ctx, tenant) })
}

// ConnectionDelete is refused (Degraded) while degraded.
func (fb *Store) ConnectionDelete(ctx context.Context, tenant, name string) (bool, error) {
	return strict(ctx, fb, "ConnectionDelete", func(h history.RunHistory) (bool, error) { return h.ConnectionDelete(ctx, tenant, name) })
}

// ConnectSessionPut is refused (Degraded) while degraded.
func (fb *Store) ConnectSessionPut(ctx context.Context, s history.ConnectSession) error {
	_, err := strict(ctx, fb, "ConnectSessionPut", func(h history.RunHistory) (none, error) { return unit(h.ConnectSessionPut(ctx, s)) })
	return err
}

// ConnectSessionTake is refused (Degraded) while degraded.
func (fb *Store) ConnectSessionTake(ctx context.Context, state string) (*history.ConnectSession, error) {
	return strict(ctx, fb, "ConnectSessionTake", func(h history.RunHistory) (*history.ConnectSession, error) { return h.ConnectSessionTake(ctx, state) })
}

// TenantRunLink is refused (Degraded) while degraded.
func (fb *Store) TenantRunLink(ctx context.Context, runID, tenant string) error {
	_, err := strict(ctx, fb, "TenantRunLink", func(h history.RunHistory) (none, error) { return unit(h.TenantRunLink(ctx, runID, tenant)) })
	return err
}

// TenantStateRefAdd is refused (Degraded) while degraded.
func (fb *Store) TenantStateRefAdd(ctx context.Context, r history.TenantStateRef) error {
	_, err := strict(ctx, fb, "TenantStateRefAdd", func(h history.RunHistory) (none, error) { return unit(h.TenantStateRefAdd(ctx, r)) })
	return err
}

// TenantStateRefs is refused (Degraded) while degraded.
func (fb *Store) TenantStateRefs(ctx context.Context, tenant string) ([]history.TenantStateRef, error) {
	return strict(ctx, fb, "TenantStateRefs", func(h history.RunHistory) ([]history.TenantStateRef, error) { return h.TenantStateRefs(ctx, tenant) })
}

// ChangeUpsert is refused (Degraded) while degraded.
func (fb *Store) ChangeUpsert(ctx context.Context, c history.ChangeRequest) error {
	_, err := strict(ctx, fb, "ChangeUpsert", func(h history.RunHistory) (none, error) { return unit(h.ChangeUpsert(ctx, c)) })
	return err
}

// ChangeGet is refused (Degraded) while degraded.
func (fb *Store) ChangeGet(ctx context.Context, id string) (*history.ChangeRequest, error) {
	return strict(ctx, fb, "ChangeGet", func(h history.RunHistory) (*history.ChangeRequest, error) { return h.ChangeGet(ctx, id) })
}

// ChangeList is refused (Degraded) while degraded.
func (fb *Store) ChangeList(ctx context.Context, f history.ChangeListFilter) ([]history.ChangeRequest, error) {
	return strict(ctx, fb, "ChangeList", func(h history.RunHistory) ([]history.ChangeRequest, error) { return h.ChangeList(ctx, f) })
}

// ChangeDelete is refused (Degraded) while degraded.
func (fb *Store) ChangeDelete(ctx context.Context, id string) (bool, error) {
	return strict(ctx, fb, "ChangeDelete", func(h history.RunHistory) (bool, error) { return h.ChangeDelete(ctx, id) })
}

// UsageRecord is served from memory while degraded.
func (fb *Store) UsageRecord(ctx context.Context, r history.UsageRecord) error {
	_, err := soft(ctx, fb, func(h history.RunHistory) (none, error) { return unit(h.UsageRecord(ctx, r)) })
	return err
}

// UsageList is served from memory while degraded.
func (fb *Store) UsageList(ctx context.Context, f history.UsageFilter) ([]history.UsageRecord, error) {
	return soft(ctx, fb, func(h history.RunHistory) ([]history.UsageRecord, error) { return h.UsageList(ctx, f) })
}

// UsageDeleteRuns is refused (Degraded) while degraded.
func (fb *Store) UsageDeleteRuns(ctx context.Context, runIDs []string) (int, error) {
	return strict(ctx, fb, "UsageDeleteRuns", func(h history.RunHistory) (int, error) { return h.UsageDeleteRuns(ctx, runIDs) })
}

// TemplateRegister is refused (Degraded) while degraded.
func (fb *Store) TemplateRegister(ctx context.Context, d history.TemplateDraft) (history.TemplateRecord, error) {
	return strict(ctx, fb, "TemplateRegister", func(h history.RunHistory) (history.TemplateRecord, error) { return h.TemplateRegister(ctx, d) })
}

// TemplateGet is refused (Degraded) while degraded.
func (fb *Store) TemplateGet(ctx context.Context, id string, version *uint32) (*history.TemplateRecord, error) {
	return strict(ctx, fb, "TemplateGet", func(h history.RunHistory) (*history.TemplateRecord, error) { return h.TemplateGet(ctx, id, version) })
}

// TemplateList is refused (Degraded) while degraded.
func (fb *Store) TemplateList(ctx context.Context) ([]history.TemplateSummary, error) {
	return strict(ctx, fb, "TemplateList", func(h history.RunHistory) ([]history.TemplateSummary, error) { return h.TemplateList(ctx) })
}

// TemplateVersions is refused (Degraded) while degraded.
func (fb *Store) TemplateVersions(ctx context.Context, id string) ([]uint32, error) {
	return strict(ctx, fb, "TemplateVersions", func(h history.RunHistory) ([]uint32, error) { return h.TemplateVersions(ctx, id) })
}

// TemplateDelete is refused (Degraded) while degraded.
func (fb *Store) TemplateDelete(ctx context.Context, id string, version *uint32) (int, error) {
	return strict(ctx, fb, "TemplateDelete", func(h history.RunHistory) (int, error) { return h.TemplateDelete(ctx, id, version) })
}

// TemplateSetTag is refused (Degraded) while degraded.
func (fb *Store) TemplateSetTag(ctx context.Context, id, tag string, version uint32) error {
	_, err := strict(ctx, fb, "TemplateSetTag", func(h history.RunHistory) (none, error) { return unit(h.TemplateSetTag(ctx, id, tag, version)) })
	return err
}

// TemplateTags is refused (Degraded) while degraded.
func (fb *Store) TemplateTags(ctx context.Context, id string) (map[string]uint32, error) {
	return strict(ctx, fb, "TemplateTags", func(h history.RunHistory) (map[string]uint32, error) { return h.TemplateTags(ctx, id) })
}

// TemplateDeleteTag is refused (Degraded) while degraded.
func (fb *Store) TemplateDeleteTag(ctx context.Context, id, tag string) (bool, error) {
	return strict(ctx, fb, "TemplateDeleteTag", func(h history.RunHistory) (bool, error) { return h.TemplateDeleteTag(ctx, id, tag) })
}

// TemplateLaunch is refused (Degraded) while degraded.
func (fb *Store) TemplateLaunch(ctx context.Context, id string, version uint32, by *string) (*uint32, error) {
	return strict(ctx, fb, "TemplateLaunch", func(h history.RunHistory) (*uint32, error) { return h.TemplateLaunch(ctx, id, version, by) })
}

// TemplateLaunches is refused (Degraded) while degraded.
func (fb *Store) TemplateLaunches(ctx context.Context, id string) ([]history.LaunchRecord, error) {
	return strict(ctx, fb, "TemplateLaunches", func(h history.RunHistory) ([]history.LaunchRecord, error) { return h.TemplateLaunches(ctx, id) })
}

// TemplateSetDeprecation is refused (Degraded) while degraded.
func (fb *Store) TemplateSetDeprecation(ctx context.Context, id string, rec *history.DeprecationRecord) error {
	_, err := strict(ctx, fb, "TemplateSetDeprecation", func(h history.RunHistory) (none, error) { return unit(h.TemplateSetDeprecation(ctx, id, rec)) })
	return err
}

// TemplateDeprecation is refused (Degraded) while degraded.
func (fb *Store) TemplateDeprecation(ctx context.Context, id string) (*history.DeprecationRecord, error) {
	return strict(ctx, fb, "TemplateDeprecation", func(h history.RunHistory) (*history.DeprecationRecord, error) { return h.TemplateDeprecation(ctx, id) })
}

// TemplateSetVersionDeprecation is refused (Degraded) while degraded.
func (fb *Store) TemplateSetVersionDeprecation(ctx context.Context, id string, version uint32, rec *history.DeprecationRecord) error {
	_, err := strict(ctx, fb, "TemplateSetVersionDeprecation", func(h history.RunHistory) (none, error) {
		return unit(h.TemplateSetVersionDeprecation(ctx, id, version, rec))
	})
	return err
}

// TemplateVersionDeprecations is refused (Degraded) while degraded.
func (fb *Store) TemplateVersionDeprecations(ctx context.Context, id string) ([]history.VersionDeprecation, error) {
	return strict(ctx, fb, "TemplateVersionDeprecations", func(h history.RunHistory) ([]history.VersionDeprecation, error) {
		return h.TemplateVersionDeprecations(ctx, id)
	})
}
