// Code generated from the seed (shared/seed/history-sql.rs, faucet-cli 1.13.0 DDL); DO NOT EDIT.

package sqlstore

// DDL is the seed's schema, verbatim and in order: every table, column, key
// and index of faucet-cli 1.13.0, all TEXT, valid unchanged on SQLite and
// Postgres. It runs at connect; IF NOT EXISTS makes it idempotent.
var DDL = []string{
	"CREATE TABLE IF NOT EXISTS faucet_serve_runs (run_id TEXT PRIMARY KEY,name TEXT,status TEXT NOT NULL,submitted_at TEXT NOT NULL,finished_at TEXT,idempotency_key TEXT,owner TEXT,lease_expires_at TEXT,cancel_requested TEXT,body TEXT NOT NULL)",
	"CREATE INDEX IF NOT EXISTS faucet_serve_runs_submitted_idx ON faucet_serve_runs (submitted_at)",
	"CREATE INDEX IF NOT EXISTS faucet_serve_runs_status_lease_idx ON faucet_serve_runs (status, lease_expires_at)",
	"CREATE INDEX IF NOT EXISTS faucet_serve_runs_pending_idx ON faucet_serve_runs (status, submitted_at)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_instances (instance_id TEXT PRIMARY KEY,started_at TEXT NOT NULL,last_heartbeat TEXT NOT NULL,listen TEXT,max_concurrent TEXT,in_flight TEXT)",
	"CREATE INDEX IF NOT EXISTS faucet_serve_instances_hb_idx ON faucet_serve_instances (last_heartbeat)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_instance_caps (instance_id TEXT PRIMARY KEY,state_format TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_idem (key TEXT PRIMARY KEY,run_id TEXT NOT NULL,fingerprint TEXT NOT NULL,claimed_at TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_shards (run_id TEXT NOT NULL,shard_id TEXT NOT NULL,descriptor TEXT NOT NULL,size_estimate TEXT,status TEXT NOT NULL,owner TEXT,lease_expires_at TEXT,attempt TEXT NOT NULL,finished_at TEXT,PRIMARY KEY (run_id, shard_id))",
	"CREATE INDEX IF NOT EXISTS faucet_serve_shards_claim_idx ON faucet_serve_shards (status, lease_expires_at)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_audit (id TEXT PRIMARY KEY,ts TEXT NOT NULL,principal TEXT NOT NULL,role TEXT NOT NULL,action TEXT NOT NULL,run_id TEXT,config_fingerprint TEXT,source_ip TEXT,result TEXT NOT NULL)",
	"CREATE INDEX IF NOT EXISTS faucet_serve_audit_ts_idx ON faucet_serve_audit (ts)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_audit_tenants (id TEXT PRIMARY KEY,tenant TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_run_logs (run_id TEXT NOT NULL,seq TEXT NOT NULL,ts TEXT NOT NULL,level TEXT NOT NULL,line TEXT NOT NULL,PRIMARY KEY (run_id, seq))",
	"CREATE INDEX IF NOT EXISTS faucet_serve_run_logs_ts_idx ON faucet_serve_run_logs (ts)",
	"CREATE TABLE IF NOT EXISTS faucet_catalog_datasets (id TEXT PRIMARY KEY,uri TEXT NOT NULL,kind TEXT NOT NULL,last_seen TEXT NOT NULL,body TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS faucet_catalog_schema_versions (dataset_id TEXT NOT NULL,version TEXT NOT NULL,recorded_at TEXT NOT NULL,body TEXT NOT NULL,PRIMARY KEY (dataset_id, version))",
	"CREATE TABLE IF NOT EXISTS faucet_catalog_edges (src_id TEXT NOT NULL,dst_id TEXT NOT NULL,last_seen TEXT NOT NULL,body TEXT NOT NULL,PRIMARY KEY (src_id, dst_id))",
	"CREATE TABLE IF NOT EXISTS faucet_catalog_stats (dataset_id TEXT NOT NULL,recorded_at TEXT NOT NULL,run_id TEXT NOT NULL,records TEXT NOT NULL,PRIMARY KEY (dataset_id, recorded_at))",
	"CREATE TABLE IF NOT EXISTS faucet_catalog_profiles (dataset_id TEXT NOT NULL,recorded_at TEXT NOT NULL,run_id TEXT NOT NULL,body TEXT NOT NULL,PRIMARY KEY (dataset_id, recorded_at))",
	"CREATE TABLE IF NOT EXISTS faucet_config_snapshots (pipeline TEXT PRIMARY KEY,recorded_at TEXT NOT NULL,faucet_version TEXT NOT NULL,body TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS faucet_templates (id TEXT NOT NULL,version TEXT NOT NULL,name TEXT,created_at TEXT NOT NULL,body TEXT NOT NULL,PRIMARY KEY (id, version))",
	"CREATE TABLE IF NOT EXISTS faucet_template_tags (id TEXT NOT NULL,tag TEXT NOT NULL,version TEXT NOT NULL,updated_at TEXT NOT NULL,PRIMARY KEY (id, tag))",
	"CREATE TABLE IF NOT EXISTS faucet_template_launches (id TEXT NOT NULL,seq TEXT NOT NULL,version TEXT NOT NULL,launched_at TEXT NOT NULL,launched_by TEXT,PRIMARY KEY (id, seq))",
	"CREATE TABLE IF NOT EXISTS faucet_template_deprecations (id TEXT PRIMARY KEY,deprecated_at TEXT NOT NULL,deprecated_by TEXT,reason TEXT)",
	"CREATE TABLE IF NOT EXISTS faucet_template_version_deprecations (id TEXT NOT NULL,version TEXT NOT NULL,deprecated_at TEXT NOT NULL,deprecated_by TEXT,reason TEXT,PRIMARY KEY (id, version))",
	"CREATE TABLE IF NOT EXISTS faucet_local_outputs (id TEXT PRIMARY KEY,path TEXT NOT NULL,dataset_id TEXT NOT NULL,pipeline TEXT NOT NULL,last_written_at TEXT NOT NULL,deleted_at TEXT,body TEXT NOT NULL)",
	"CREATE INDEX IF NOT EXISTS faucet_local_outputs_written_idx ON faucet_local_outputs (last_written_at)",
	"CREATE INDEX IF NOT EXISTS faucet_local_outputs_dataset_idx ON faucet_local_outputs (dataset_id)",
	"CREATE TABLE IF NOT EXISTS faucet_usage (run_id TEXT NOT NULL,row_id TEXT NOT NULL,pipeline TEXT NOT NULL,recorded_at TEXT NOT NULL,body TEXT NOT NULL,PRIMARY KEY (run_id, row_id))",
	"CREATE INDEX IF NOT EXISTS faucet_usage_recorded_idx ON faucet_usage (recorded_at)",
	"CREATE INDEX IF NOT EXISTS faucet_usage_pipeline_idx ON faucet_usage (pipeline, recorded_at)",
	"CREATE TABLE IF NOT EXISTS faucet_serve_changes (id TEXT PRIMARY KEY,kind TEXT NOT NULL,status TEXT NOT NULL,requester TEXT NOT NULL,created_at TEXT NOT NULL,expires_at TEXT NOT NULL,body TEXT NOT NULL)",
	"CREATE INDEX IF NOT EXISTS faucet_serve_changes_status_idx ON faucet_serve_changes (status, created_at)",
	"CREATE TABLE IF NOT EXISTS faucet_tenants (id TEXT PRIMARY KEY,updated_at TEXT NOT NULL,body TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS faucet_tenant_connections (tenant TEXT NOT NULL,name TEXT NOT NULL,status TEXT NOT NULL,updated_at TEXT NOT NULL,body TEXT NOT NULL,PRIMARY KEY (tenant, name))",
	"CREATE TABLE IF NOT EXISTS faucet_connect_sessions (state TEXT PRIMARY KEY,tenant TEXT NOT NULL,expires_at TEXT NOT NULL,body TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS faucet_tenant_runs (run_id TEXT PRIMARY KEY,tenant TEXT NOT NULL)",
	"CREATE INDEX IF NOT EXISTS faucet_tenant_runs_tenant_idx ON faucet_tenant_runs (tenant)",
	"CREATE TABLE IF NOT EXISTS faucet_tenant_state_refs (tenant TEXT NOT NULL,state_key TEXT NOT NULL,body TEXT NOT NULL,PRIMARY KEY (tenant, state_key))",
}
