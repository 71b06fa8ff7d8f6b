package sqlstore

// pgStmts holds every fixed statement of the history store in its Postgres
// form; newStmts renders them per dialect once at connect. The texts follow
// the seed's statements one for one (same tables, predicates, guards and
// orderings); callers never build SQL of their own except the three filtered
// listings in queries.go.
var pgStmts = stmts{
	upsert: "INSERT INTO faucet_serve_runs " +
		"(run_id,name,status,submitted_at,finished_at,idempotency_key,owner,lease_expires_at,body) " +
		"VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) " +
		"ON CONFLICT (run_id) DO UPDATE SET " +
		"name=excluded.name,status=excluded.status,submitted_at=excluded.submitted_at," +
		"finished_at=excluded.finished_at,idempotency_key=excluded.idempotency_key," +
		"owner=excluded.owner,lease_expires_at=excluded.lease_expires_at," +
		"body=excluded.body",
	selectBody:      "SELECT body FROM faucet_serve_runs WHERE run_id=$1",
	selectStatus:    "SELECT status FROM faucet_serve_runs WHERE run_id=$1",
	selectSubmitted: "SELECT submitted_at FROM faucet_serve_runs WHERE run_id=$1",
	deleteRun:       "DELETE FROM faucet_serve_runs WHERE run_id=$1",
	// list is the seed's statement, used for the first page. listAfter is the
	// same statement with its keyset clause made sargable (submitted_at <= c
	// bounds an index range): written as (? IS NULL OR ...), neither SQLite
	// nor Postgres turns the cursor into a range, so a page deep in the
	// history scanned every newer run. Same binds, same rows; plan_test.go
	// pins the plan.
	list: "SELECT run_id, body FROM faucet_serve_runs " +
		"WHERE ($1::text IS NULL OR position(',' || status || ',' in $2::text) > 0) " +
		"AND ($3::text IS NULL OR name = $4::text) " +
		"AND ($5::text IS NULL OR submitted_at >= $6::text) " +
		"AND ($7::text IS NULL OR submitted_at <= $8::text) " +
		"AND ($9::text IS NULL OR (submitted_at < $10::text " +
		"OR (submitted_at = $11::text AND run_id < $12::text))) " +
		"AND ($13::text IS NULL OR run_id IN " +
		"(SELECT run_id FROM faucet_tenant_runs WHERE tenant = $14::text)) " +
		"ORDER BY submitted_at DESC, run_id DESC LIMIT $15",
	listAfter: "SELECT run_id, body FROM faucet_serve_runs " +
		"WHERE ($1::text IS NULL OR position(',' || status || ',' in $2::text) > 0) " +
		"AND ($3::text IS NULL OR name = $4::text) " +
		"AND ($5::text IS NULL OR submitted_at >= $6::text) " +
		"AND ($7::text IS NULL OR submitted_at <= $8::text) " +
		"AND (submitted_at <= $9::text AND (submitted_at < $10::text " +
		"OR (submitted_at = $11::text AND run_id < $12::text))) " +
		"AND ($13::text IS NULL OR run_id IN " +
		"(SELECT run_id FROM faucet_tenant_runs WHERE tenant = $14::text)) " +
		"ORDER BY submitted_at DESC, run_id DESC LIMIT $15",
	purgeRuns: "DELETE FROM faucet_serve_runs " +
		"WHERE status IN ('completed','failed','cancelled') " +
		"AND finished_at IS NOT NULL AND finished_at < $1",
	purgeIdem: "DELETE FROM faucet_serve_idem WHERE claimed_at < $1",
	selectOrphans: "SELECT run_id, body FROM faucet_serve_runs " +
		"WHERE status IN ('queued','running') " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $1)",
	// recoverOne fails one orphan, guarded on still-orphaned. The seed wrote
	// it with a plain upsert after the select, which could overwrite a run
	// whose owner renewed its lease in between; the guard closes that race
	// while stamping the same columns the upsert would.
	recoverOne: "UPDATE faucet_serve_runs " +
		"SET status = 'failed', finished_at = $1, owner = $2, lease_expires_at = $3, body = $4 " +
		"WHERE run_id = $5 AND status IN ('queued','running') " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $6)",
	renewLeases: "UPDATE faucet_serve_runs SET lease_expires_at = $1 " +
		"WHERE owner = $2 AND status IN ('queued','running')",
	insertIdem: "INSERT INTO faucet_serve_idem (key,run_id,fingerprint,claimed_at) " +
		"VALUES ($1,$2,$3,$4) ON CONFLICT (key) DO NOTHING",
	selectIdem: "SELECT run_id,fingerprint,claimed_at FROM faucet_serve_idem WHERE key=$1",
	takeoverIdem: "UPDATE faucet_serve_idem " +
		"SET run_id=$1,fingerprint=$2,claimed_at=$3 WHERE key=$4 AND claimed_at=$5",
	deleteIdemByRun: "DELETE FROM faucet_serve_idem WHERE run_id=$1",
	selectPending: "SELECT run_id, body FROM faucet_serve_runs " +
		"WHERE status = 'pending' ORDER BY submitted_at ASC, run_id ASC LIMIT $1",
	claimOne: "UPDATE faucet_serve_runs " +
		"SET owner = $1, status = 'running', lease_expires_at = $2, body = $3 " +
		"WHERE run_id = $4 AND status = 'pending'",
	reclaimSelect: "SELECT run_id, body FROM faucet_serve_runs " +
		"WHERE status = 'running' " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $1)",
	reclaimRequeue: "UPDATE faucet_serve_runs " +
		"SET status = 'pending', owner = NULL, lease_expires_at = NULL, " +
		"body = $1 " +
		"WHERE run_id = $2 AND status = 'running' " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $3)",
	reclaimFail: "UPDATE faucet_serve_runs " +
		"SET status = 'failed', finished_at = $1, body = $2, owner = NULL " +
		"WHERE run_id = $3 AND status = 'running' " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $4)",
	finalizeOwned: "UPDATE faucet_serve_runs " +
		"SET status = $1, finished_at = $2, lease_expires_at = $3, body = $4 " +
		"WHERE run_id = $5 AND owner = $6 " +
		"AND status NOT IN ('completed','failed','cancelled')",
	cancelPending: "UPDATE faucet_serve_runs " +
		"SET status = 'cancelled', finished_at = $1, body = $2 " +
		"WHERE run_id = $3 AND status = 'pending'",
	requestCancel: "UPDATE faucet_serve_runs " +
		"SET cancel_requested = $1 WHERE run_id = $2 AND status IN ('running','sharded')",
	pendingCancellations: "SELECT run_id FROM faucet_serve_runs " +
		"WHERE status = 'running' AND owner = $1 AND cancel_requested IS NOT NULL ORDER BY run_id",
	heartbeatInstance: "INSERT INTO faucet_serve_instances " +
		"(instance_id, started_at, last_heartbeat, listen, max_concurrent, in_flight) " +
		"VALUES ($1,$2,$3,$4,$5,$6) " +
		"ON CONFLICT (instance_id) DO UPDATE SET " +
		"last_heartbeat = excluded.last_heartbeat, listen = excluded.listen, " +
		"max_concurrent = excluded.max_concurrent, in_flight = excluded.in_flight",
	heartbeatCaps: "INSERT INTO faucet_serve_instance_caps (instance_id, state_format) " +
		"VALUES ($1,$2) ON CONFLICT (instance_id) DO UPDATE SET " +
		"state_format = excluded.state_format",
	liveInstances: "SELECT i.instance_id, i.started_at, i.last_heartbeat, i.listen, " +
		"i.max_concurrent, i.in_flight, c.state_format FROM faucet_serve_instances i " +
		"LEFT JOIN faucet_serve_instance_caps c ON c.instance_id = i.instance_id " +
		"WHERE i.last_heartbeat >= $1 ORDER BY i.instance_id",
	pruneInstances:    "DELETE FROM faucet_serve_instances WHERE last_heartbeat < $1",
	pruneInstanceCaps: "DELETE FROM faucet_serve_instance_caps WHERE instance_id NOT IN (SELECT instance_id FROM faucet_serve_instances)",
	insertShard: "INSERT INTO faucet_serve_shards " +
		"(run_id, shard_id, descriptor, size_estimate, status, attempt) " +
		"VALUES ($1,$2,$3,$4,'pending','0') " +
		"ON CONFLICT (run_id, shard_id) DO NOTHING",
	claimShardsSelect: "SELECT s.run_id, s.shard_id, s.descriptor, r.body " +
		"FROM faucet_serve_shards s JOIN faucet_serve_runs r ON r.run_id = s.run_id " +
		"WHERE s.status = 'pending' " +
		"ORDER BY CAST(COALESCE(s.size_estimate, '0') AS BIGINT) DESC, s.run_id, s.shard_id " +
		"LIMIT $1",
	claimShardOne: "UPDATE faucet_serve_shards " +
		"SET owner = $1, status = 'running', lease_expires_at = $2 " +
		"WHERE run_id = $3 AND shard_id = $4 AND status = 'pending'",
	renewShardLeases: "UPDATE faucet_serve_shards SET lease_expires_at = $1 " +
		"WHERE owner = $2 AND status = 'running'",
	renewShardLease: "UPDATE faucet_serve_shards SET lease_expires_at = $1 " +
		"WHERE run_id = $2 AND shard_id = $3 AND owner = $4 AND status = 'running'",
	reclaimShardsSelect: "SELECT run_id, shard_id, attempt FROM faucet_serve_shards " +
		"WHERE status = 'running' " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $1)",
	reclaimShardRequeue: "UPDATE faucet_serve_shards " +
		"SET status = 'pending', owner = NULL, lease_expires_at = NULL, attempt = $1 " +
		"WHERE run_id = $2 AND shard_id = $3 AND status = 'running' " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $4)",
	reclaimShardFail: "UPDATE faucet_serve_shards " +
		"SET status = 'failed', finished_at = $1, owner = NULL " +
		"WHERE run_id = $2 AND shard_id = $3 AND status = 'running' " +
		"AND (lease_expires_at IS NULL OR lease_expires_at < $4)",
	finalizeShard: "UPDATE faucet_serve_shards " +
		"SET status = $1, finished_at = $2 " +
		"WHERE run_id = $3 AND shard_id = $4 AND owner = $5 AND status = 'running'",
	shardProgress: "SELECT status, COUNT(*) AS n FROM faucet_serve_shards " +
		"WHERE run_id = $1 GROUP BY status",
	pendingShardCancellations: "SELECT DISTINCT s.run_id " +
		"FROM faucet_serve_shards s " +
		"JOIN faucet_serve_runs r ON r.run_id = s.run_id " +
		"WHERE s.owner = $1 AND s.status = 'running' " +
		"AND r.cancel_requested IS NOT NULL ORDER BY s.run_id",
	selectShardedParents: "SELECT run_id FROM faucet_serve_runs " +
		"WHERE status = 'sharded' ORDER BY run_id",
	finalizeShardedParent: "UPDATE faucet_serve_runs " +
		"SET status = $1, finished_at = $2, body = $3 " +
		"WHERE run_id = $4 AND status = 'sharded'",
	deleteShardsByRun: "DELETE FROM faucet_serve_shards WHERE run_id = $1",
	purgeOrphanShards: "DELETE FROM faucet_serve_shards " +
		"WHERE run_id NOT IN (SELECT run_id FROM faucet_serve_runs)",
	insertAudit: "INSERT INTO faucet_serve_audit " +
		"(id, ts, principal, role, action, run_id, config_fingerprint, source_ip, result) " +
		"VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)",
	listAudit: "SELECT a.id AS id, ts, principal, role, action, run_id, " +
		"config_fingerprint, source_ip, result, t.tenant AS tenant " +
		"FROM faucet_serve_audit a LEFT JOIN faucet_serve_audit_tenants t ON t.id = a.id " +
		"WHERE ($1::text IS NULL OR principal = $2::text) " +
		"AND ($3::text IS NULL OR action = $4::text) " +
		"AND ($5::text IS NULL OR ts >= $6::text) " +
		"AND ($7::text IS NULL OR ts <= $8::text) " +
		"AND ($9::text IS NULL OR t.tenant = $10::text) " +
		"ORDER BY a.ts DESC, a.id DESC LIMIT $11",
	purgeAudit: "DELETE FROM faucet_serve_audit WHERE ts < $1",
	insertAuditTenant: "INSERT INTO faucet_serve_audit_tenants (id, tenant) " +
		"VALUES ($1,$2) ON CONFLICT (id) DO NOTHING",
	purgeAuditTenants: "DELETE FROM faucet_serve_audit_tenants " +
		"WHERE id NOT IN (SELECT id FROM faucet_serve_audit)",
	insertRunLog: "INSERT INTO faucet_serve_run_logs " +
		"(run_id, seq, ts, level, line) VALUES ($1,$2,$3,$4,$5) " +
		"ON CONFLICT (run_id, seq) DO NOTHING",
	listRunLogs: "SELECT seq, ts, level, line FROM faucet_serve_run_logs " +
		"WHERE run_id = $1 AND seq <> $2 AND ($3::text IS NULL OR seq > $4::text) " +
		"ORDER BY seq ASC LIMIT $5",
	runLogTruncated: "SELECT 1 FROM faucet_serve_run_logs " +
		"WHERE run_id = $1 AND seq = $2 LIMIT 1",
	purgeRunLogs:         "DELETE FROM faucet_serve_run_logs WHERE ts < $1",
	catalogSelectDataset: "SELECT body FROM faucet_catalog_datasets WHERE id=$1",
	localOutputSelect:    "SELECT body FROM faucet_local_outputs WHERE id=$1",
	localOutputUpsert: "INSERT INTO faucet_local_outputs " +
		"(id, path, dataset_id, pipeline, last_written_at, deleted_at, body) " +
		"VALUES ($1,$2,$3,$4,$5,$6,$7) " +
		"ON CONFLICT (id) DO UPDATE SET path=excluded.path, " +
		"dataset_id=excluded.dataset_id, pipeline=excluded.pipeline, " +
		"last_written_at=excluded.last_written_at, deleted_at=excluded.deleted_at, " +
		"body=excluded.body",
	localOutputMarkDeleted: "UPDATE faucet_local_outputs " +
		"SET deleted_at=$2, body=$3 WHERE id=$1",
	usageInsert: "INSERT INTO faucet_usage " +
		"(run_id, row_id, pipeline, recorded_at, body) VALUES ($1,$2,$3,$4,$5) " +
		"ON CONFLICT (run_id, row_id) DO NOTHING",
	changeUpsert: "INSERT INTO faucet_serve_changes " +
		"(id, kind, status, requester, created_at, expires_at, body) " +
		"VALUES ($1,$2,$3,$4,$5,$6,$7) " +
		"ON CONFLICT (id) DO UPDATE SET kind=excluded.kind, status=excluded.status, " +
		"requester=excluded.requester, created_at=excluded.created_at, " +
		"expires_at=excluded.expires_at, body=excluded.body",
	changeSelect:   "SELECT body FROM faucet_serve_changes WHERE id=$1",
	changeDelete:   "DELETE FROM faucet_serve_changes WHERE id=$1",
	usageDeleteRun: "DELETE FROM faucet_usage WHERE run_id=$1",
	tenantUpsert: "INSERT INTO faucet_tenants (id, updated_at, body) " +
		"VALUES ($1,$2,$3) " +
		"ON CONFLICT (id) DO UPDATE SET updated_at=excluded.updated_at, body=excluded.body",
	tenantSelect:            "SELECT body FROM faucet_tenants WHERE id=$1",
	tenantList:              "SELECT body FROM faucet_tenants ORDER BY id",
	tenantDelete:            "DELETE FROM faucet_tenants WHERE id=$1",
	tenantDeleteConnections: "DELETE FROM faucet_tenant_connections WHERE tenant=$1",
	tenantDeleteSessions:    "DELETE FROM faucet_connect_sessions WHERE tenant=$1",
	tenantDeleteRuns:        "DELETE FROM faucet_tenant_runs WHERE tenant=$1",
	tenantDeleteStateRefs:   "DELETE FROM faucet_tenant_state_refs WHERE tenant=$1",
	connectionUpsert: "INSERT INTO faucet_tenant_connections " +
		"(tenant, name, status, updated_at, body) VALUES ($1,$2,$3,$4,$5) " +
		"ON CONFLICT (tenant, name) DO UPDATE SET status=excluded.status, " +
		"updated_at=excluded.updated_at, body=excluded.body",
	connectionSelect: "SELECT body FROM faucet_tenant_connections " +
		"WHERE tenant=$1 AND name=$2",
	connectionList: "SELECT body FROM faucet_tenant_connections " +
		"WHERE tenant=$1 ORDER BY name",
	connectionDelete: "DELETE FROM faucet_tenant_connections " +
		"WHERE tenant=$1 AND name=$2",
	sessionInsert: "INSERT INTO faucet_connect_sessions (state, tenant, expires_at, body) " +
		"VALUES ($1,$2,$3,$4)",
	sessionPurge:    "DELETE FROM faucet_connect_sessions WHERE expires_at < $1",
	sessionTake:     "DELETE FROM faucet_connect_sessions WHERE state=$1 RETURNING body",
	tenantRunLink:   "INSERT INTO faucet_tenant_runs (run_id, tenant) VALUES ($1,$2) ON CONFLICT (run_id) DO UPDATE SET tenant=excluded.tenant",
	tenantRunDelete: "DELETE FROM faucet_tenant_runs WHERE run_id=$1",
	purgeOrphanTenantRuns: "DELETE FROM faucet_tenant_runs " +
		"WHERE run_id NOT IN (SELECT run_id FROM faucet_serve_runs)",
	stateRefInsert: "INSERT INTO faucet_tenant_state_refs (tenant, state_key, body) " +
		"VALUES ($1,$2,$3) ON CONFLICT (tenant, state_key) DO NOTHING",
	stateRefSelect: "SELECT body FROM faucet_tenant_state_refs " +
		"WHERE tenant=$1 ORDER BY state_key",
	catalogUpsertDataset: "INSERT INTO faucet_catalog_datasets " +
		"(id, uri, kind, last_seen, body) VALUES ($1,$2,$3,$4,$5) " +
		"ON CONFLICT (id) DO UPDATE SET uri=excluded.uri, kind=excluded.kind, " +
		"last_seen=excluded.last_seen, body=excluded.body",
	catalogSelectDatasets: "SELECT body FROM faucet_catalog_datasets",
	catalogInsertSchemaVersion: "INSERT INTO faucet_catalog_schema_versions " +
		"(dataset_id, version, recorded_at, body) VALUES ($1,$2,$3,$4) " +
		"ON CONFLICT (dataset_id, version) DO NOTHING",
	catalogSelectSchemaVersions: "SELECT body FROM faucet_catalog_schema_versions " +
		"WHERE dataset_id=$1 ORDER BY CAST(version AS BIGINT) ASC",
	catalogUpsertEdge: "INSERT INTO faucet_catalog_edges " +
		"(src_id, dst_id, last_seen, body) VALUES ($1,$2,$3,$4) " +
		"ON CONFLICT (src_id, dst_id) DO UPDATE SET " +
		"last_seen=excluded.last_seen, body=excluded.body",
	catalogSelectEdges: "SELECT body FROM faucet_catalog_edges " +
		"ORDER BY last_seen DESC, src_id, dst_id",
	catalogInsertStat: "INSERT INTO faucet_catalog_stats " +
		"(dataset_id, recorded_at, run_id, records) VALUES ($1,$2,$3,$4) " +
		"ON CONFLICT (dataset_id, recorded_at) DO NOTHING",
	catalogSelectStats: "SELECT recorded_at, run_id, records " +
		"FROM faucet_catalog_stats WHERE dataset_id=$1 " +
		"ORDER BY recorded_at DESC LIMIT $2",
	catalogPruneStats: "DELETE FROM faucet_catalog_stats " +
		"WHERE dataset_id=$1 AND recorded_at NOT IN (" +
		"SELECT recorded_at FROM faucet_catalog_stats WHERE dataset_id=$2 " +
		"ORDER BY recorded_at DESC LIMIT $3)",
	catalogInsertProfile: "INSERT INTO faucet_catalog_profiles " +
		"(dataset_id, recorded_at, run_id, body) VALUES ($1,$2,$3,$4) " +
		"ON CONFLICT (dataset_id, recorded_at) DO NOTHING",
	catalogSelectProfiles: "SELECT body FROM faucet_catalog_profiles " +
		"WHERE dataset_id=$1 ORDER BY recorded_at DESC LIMIT $2",
	catalogPruneProfiles: "DELETE FROM faucet_catalog_profiles " +
		"WHERE dataset_id=$1 AND recorded_at NOT IN (" +
		"SELECT recorded_at FROM faucet_catalog_profiles WHERE dataset_id=$2 " +
		"ORDER BY recorded_at DESC LIMIT $3)",
	catalogUpsertConfigSnapshot: "INSERT INTO faucet_config_snapshots " +
		"(pipeline, recorded_at, faucet_version, body) VALUES ($1,$2,$3,$4) " +
		"ON CONFLICT (pipeline) DO UPDATE SET recorded_at=excluded.recorded_at, " +
		"faucet_version=excluded.faucet_version, body=excluded.body",
	catalogSelectConfigSnapshot: "SELECT body FROM faucet_config_snapshots WHERE pipeline=$1",
	templateMaxVersion: "SELECT COALESCE(MAX(CAST(version AS BIGINT)), 0) AS v " +
		"FROM faucet_templates WHERE id=$1",
	templateInsert: "INSERT INTO faucet_templates " +
		"(id, version, name, created_at, body) VALUES ($1,$2,$3,$4,$5)",
	templateSelectVersion: "SELECT body FROM faucet_templates WHERE id=$1 AND version=$2",
	templateSelectLatest: "SELECT body FROM faucet_templates WHERE id=$1 " +
		"ORDER BY CAST(version AS BIGINT) DESC LIMIT 1",
	templateSelectAll: "SELECT body FROM faucet_templates",
	templateVersions: "SELECT version FROM faucet_templates WHERE id=$1 " +
		"ORDER BY CAST(version AS BIGINT) DESC",
	templateDeleteVersion: "DELETE FROM faucet_templates WHERE id=$1 AND version=$2",
	templateDeleteAll:     "DELETE FROM faucet_templates WHERE id=$1",
	templateUpsertTag: "INSERT INTO faucet_template_tags " +
		"(id, tag, version, updated_at) VALUES ($1,$2,$3,$4) " +
		"ON CONFLICT (id, tag) DO UPDATE SET version=excluded.version, " +
		"updated_at=excluded.updated_at",
	templateSelectTags: "SELECT tag, version FROM faucet_template_tags " +
		"WHERE id=$1 ORDER BY tag",
	templateDeleteTag:            "DELETE FROM faucet_template_tags WHERE id=$1 AND tag=$2",
	templateDeleteTagsAll:        "DELETE FROM faucet_template_tags WHERE id=$1",
	templateDeleteTagsForVersion: "DELETE FROM faucet_template_tags WHERE id=$1 AND version=$2",
	templateMaxLaunchSeq: "SELECT COALESCE(MAX(CAST(seq AS BIGINT)), 0) AS v " +
		"FROM faucet_template_launches WHERE id=$1",
	templateInsertLaunch: "INSERT INTO faucet_template_launches " +
		"(id, seq, version, launched_at, launched_by) VALUES ($1,$2,$3,$4,$5)",
	templateSelectLaunches: "SELECT seq, version, launched_at, launched_by " +
		"FROM faucet_template_launches WHERE id=$1 ORDER BY CAST(seq AS BIGINT) DESC",
	templateDeleteLaunchesAll:        "DELETE FROM faucet_template_launches WHERE id=$1",
	templateDeleteLaunchesForVersion: "DELETE FROM faucet_template_launches WHERE id=$1 AND version=$2",
	templateUpsertDeprecation: "INSERT INTO faucet_template_deprecations " +
		"(id, deprecated_at, deprecated_by, reason) VALUES ($1,$2,$3,$4) " +
		"ON CONFLICT (id) DO UPDATE SET deprecated_at=excluded.deprecated_at, " +
		"deprecated_by=excluded.deprecated_by, reason=excluded.reason",
	templateSelectDeprecation: "SELECT deprecated_at, deprecated_by, reason " +
		"FROM faucet_template_deprecations WHERE id=$1",
	templateDeleteDeprecation: "DELETE FROM faucet_template_deprecations WHERE id=$1",
	templateUpsertVersionDeprecation: "INSERT INTO faucet_template_version_deprecations " +
		"(id, version, deprecated_at, deprecated_by, reason) VALUES ($1,$2,$3,$4,$5) " +
		"ON CONFLICT (id, version) DO UPDATE SET deprecated_at=excluded.deprecated_at, " +
		"deprecated_by=excluded.deprecated_by, reason=excluded.reason",
	templateSelectVersionDeprecations: "SELECT version, deprecated_at, deprecated_by, reason " +
		"FROM faucet_template_version_deprecations WHERE id=$1 " +
		"ORDER BY CAST(version AS BIGINT) DESC",
	templateDeleteVersionDeprecation:     "DELETE FROM faucet_template_version_deprecations WHERE id=$1 AND version=$2",
	templateDeleteVersionDeprecationsAll: "DELETE FROM faucet_template_version_deprecations WHERE id=$1",
}
