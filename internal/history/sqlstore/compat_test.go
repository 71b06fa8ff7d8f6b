package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// seedDDL reads testdata/seed_ddl.sql: the seed's DDL array extracted from
// shared/seed/history-sql.rs, one statement per ';'.
func seedDDL(t *testing.T) []string {
	b, err := os.ReadFile("testdata/seed_ddl.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range strings.Split(string(b), ";\n") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func TestDDLIsTheSeedsVerbatim(t *testing.T) {
	if !reflect.DeepEqual(seedDDL(t), sqlstore.DDL) {
		t.Fatal("sqlstore.DDL differs from testdata/seed_ddl.sql")
	}
	if len(sqlstore.DDL) != 40 {
		t.Fatalf("27 tables + 13 indexes expected, got %d statements", len(sqlstore.DDL))
	}
}

type rawDB struct {
	db *sql.DB
	d  sqlstore.Dialect
}

func (r rawDB) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if r.d == sqlstore.SQLite {
		for i := len(args); i >= 1; i-- {
			q = strings.ReplaceAll(q, fmt.Sprintf("$%d", i), fmt.Sprintf("?%d", i))
		}
	}
	if _, err := r.db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// schemaOf describes tables (columns with type/notnull/pk) and indexes as the
// database's own catalog reports them.
func schemaOf(t *testing.T, r rawDB) map[string][]string {
	out := map[string][]string{}
	q := func(query string, args ...any) [][]string {
		rows, err := r.db.Query(query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var res [][]string
		for rows.Next() {
			v := make([]sql.NullString, len(cols))
			p := make([]any, len(cols))
			for i := range v {
				p[i] = &v[i]
			}
			if err := rows.Scan(p...); err != nil {
				t.Fatal(err)
			}
			s := make([]string, len(v))
			for i := range v {
				s[i] = v[i].String
			}
			res = append(res, s)
		}
		return res
	}
	if r.d == sqlstore.SQLite {
		for _, tb := range q("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'faucet_%'") {
			for _, c := range q("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)", tb[0]) {
				out["table "+tb[0]] = append(out["table "+tb[0]], strings.Join(c, " "))
			}
		}
		for _, ix := range q("SELECT name, tbl_name FROM sqlite_master WHERE type='index' AND tbl_name LIKE 'faucet_%'") {
			for _, c := range q("SELECT seqno, name FROM pragma_index_info(?1)", ix[0]) {
				out["index "+ix[1]+"."+ix[0]] = append(out["index "+ix[1]+"."+ix[0]], strings.Join(c, " "))
			}
		}
	} else {
		for _, c := range q(`SELECT c.table_name, c.column_name, c.data_type, c.is_nullable,
			COALESCE((SELECT k.ordinal_position::text FROM information_schema.key_column_usage k
			  JOIN information_schema.table_constraints tc ON tc.constraint_name = k.constraint_name AND tc.table_schema = k.table_schema
			  WHERE tc.constraint_type = 'PRIMARY KEY' AND k.table_schema = c.table_schema AND k.table_name = c.table_name AND k.column_name = c.column_name), '0')
			FROM information_schema.columns c WHERE c.table_schema = current_schema() AND c.table_name LIKE 'faucet_%'
			ORDER BY c.table_name, c.ordinal_position`) {
			out["table "+c[0]] = append(out["table "+c[0]], strings.Join(c[1:], " "))
		}
		for _, ix := range q(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename LIKE 'faucet_%'`) {
			def := ix[2][strings.Index(ix[2], " USING "):]
			out["index "+ix[0]+"."+ix[1]] = []string{def}
		}
	}
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

type compatEnv struct {
	url string
	raw rawDB
}

func sqliteCompat(t *testing.T) (compatEnv, compatEnv) {
	mk := func(name string) compatEnv {
		p := filepath.Join(t.TempDir(), name)
		db, err := sql.Open("sqlite", "file:"+p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return compatEnv{url: "sqlite:" + p, raw: rawDB{db, sqlstore.SQLite}}
	}
	return mk("seed.db"), mk("ours.db")
}

func pgCompat(t *testing.T) (compatEnv, compatEnv) {
	mk := func() compatEnv {
		u := pgSchema(t)
		db, err := sql.Open("pgx", u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return compatEnv{url: u, raw: rawDB{db, sqlstore.Postgres}}
	}
	return mk(), mk()
}

func TestCompatSQLite(t *testing.T)   { compat(t, sqliteCompat) }
func TestCompatPostgres(t *testing.T) { compat(t, pgCompat) }

func compat(t *testing.T, mk func(t *testing.T) (compatEnv, compatEnv)) {
	seed, ours := mk(t)
	for _, s := range seedDDL(t) {
		seed.raw.exec(t, s)
	}
	// Tables our store creates match the seed's DDL column for column.
	st, err := sqlstore.OpenOptions(context.Background(), ours.url, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	want, got := schemaOf(t, seed.raw), schemaOf(t, ours.raw)
	tables := 0
	for k := range want {
		if strings.HasPrefix(k, "table ") {
			tables++
		}
	}
	if tables != 27 || len(want) < 40 {
		t.Fatalf("catalog lists %d tables, %d objects", tables, len(want))
	}
	if !reflect.DeepEqual(want, got) {
		for k := range want {
			if !reflect.DeepEqual(want[k], got[k]) {
				t.Errorf("%s: seed %v, ours %v", k, want[k], got[k])
			}
		}
		t.Fatalf("schema differs")
	}
	fillOriginalRows(t, seed.raw)
	h, err := sqlstore.OpenOptions(context.Background(), seed.url, history.Options{InstanceID: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	readOriginalRows(t, h)
}

// Bodies in the original's JSON shape (reference §2): chrono timestamps with
// variable fraction widths, null optionals, omitted later fields, and a field
// we do not know.
const (
	origRun1 = `{"run_id":"r-orig-1","name":"orders","labels":{"env":"prod"},"status":"completed",
"submitted_at":"2026-02-01T10:00:00Z","started_at":"2026-02-01T10:00:00.5Z","finished_at":"2026-02-01T10:00:03.123456789Z",
"elapsed_secs":2.623,"records_written":1200,"invocations":[{"row_id":"default","parent_record_key":null,"records_written":1200,
"duration_ms":2600,"error":null}],"error":null,"idempotency_key":"idem-1","attempt":0,"some_future_field":[1,2,3]}`
	origRun2 = `{"run_id":"r-orig-2","name":null,"labels":{},"status":"pending","submitted_at":"2026-02-01T11:00:00.250Z",
"started_at":null,"finished_at":null,"elapsed_secs":null,"records_written":0,"invocations":[],"error":null,
"idempotency_key":null,"config_body":"version: 1","config_format":"yaml","timeout_secs":60,"clock":"2026-02-01",
"callback":{"url":"https://hook","method":"POST","headers":{},"extra_fields":{},"on":["failed"]},"tenant":"acme"}`
	origTemplate = `{"id":"orders","version":1,"name":"Orders","description":null,"body":"source: ${env:DB}","format":"yaml",
"params":{"day":{"type":"string","required":true,"default":null,"secret":false,"description":null}},
"created_at":"2026-02-01T09:00:00.000001Z","created_by":"alice"}`
	origTenant = `{"id":"acme","name":"Acme","labels":{},"limits":{"max_concurrent_runs":2},"notifications":[],
"suspended":false,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-02T00:00:00Z","created_by":"root"}`
	origUsage = `{"run_id":"r-orig-1","pipeline":"orders","row":"default","source_kind":"postgres","sink_kind":"jsonl",
"dataset_id":null,"recorded_at":"2026-02-01T10:00:03Z","duration_ms":2600,"failed":false,"usage":{"records":1200,"bytes":52000},
"cost":{"currency":"USD","total":0.01,"lines":[{"item":"egress","quantity":1.0,"unit":"GB","rate":0.01,"amount":0.01}],"not_reported":[]},"tenant":"acme"}`
	origChange = `{"id":"018f0000-0000-7000-8000-000000000001","kind":"template_launch","status":"pending","requester":"bob",
"requester_role":"operator","reason":null,"payload":{"template":"orders"},"required_approvals":1,"approvals":[],
"created_at":"2026-02-01T08:00:00Z","updated_at":"2026-02-01T08:00:00Z","expires_at":"2026-02-02T08:00:00Z"}`
	origDataset = `{"id":"%s","uri":"postgres://db/public.orders","kind":"postgres","roles":["source"],
"first_seen":"2026-01-01T00:00:00Z","last_seen":"2026-02-01T10:00:03Z","last_success":"2026-02-01T10:00:03Z",
"last_run_id":"r-orig-1","pipeline":"orders","last_records":1200,"total_records":5000,"runs":4,"schema_versions":1,
"current_schema":{"type":"object","properties":{"id":{"type":"integer"}}},"current_schema_hash":"0123456789abcdef"}`
	origOutput = `{"id":"%s","path":"/data/out.jsonl","dataset_uri":"file:///data/out.jsonl","dataset_id":"abcd","kind":"jsonl",
"pipeline":"orders","row":"default","run_id":"r-orig-1","pre_existing":false,"retention_days":7,
"first_written_at":"2026-02-01T10:00:03Z","last_written_at":"2026-02-01T10:00:03Z","deleted_at":null,"deleted_bytes":null}`
)

func fillOriginalRows(t *testing.T, r rawDB) {
	r.exec(t, `INSERT INTO faucet_serve_runs (run_id,name,status,submitted_at,finished_at,idempotency_key,owner,lease_expires_at,body)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`, "r-orig-1", "orders", "completed", "2026-02-01T10:00:00.000000000Z",
		"2026-02-01T10:00:03.123456789Z", "idem-1", "rust-instance", "2026-02-01T10:00:33.000000000Z", origRun1)
	r.exec(t, `INSERT INTO faucet_serve_runs (run_id,name,status,submitted_at,body) VALUES ($1,$2,$3,$4,$5)`,
		"r-orig-2", nil, "pending", "2026-02-01T11:00:00.250000000Z", origRun2)
	r.exec(t, `INSERT INTO faucet_tenant_runs (run_id, tenant) VALUES ($1,$2)`, "r-orig-2", "acme")
	r.exec(t, `INSERT INTO faucet_serve_idem (key,run_id,fingerprint,claimed_at) VALUES ($1,$2,$3,$4)`,
		"idem-1", "r-orig-1", "sha256:abc", history.FormatTS(time.Now().Add(-time.Minute)))
	r.exec(t, `INSERT INTO faucet_serve_audit (id, ts, principal, role, action, run_id, config_fingerprint, source_ip, result)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`, "018f0000-0000-7000-8000-0000000000aa", "2026-02-01T10:00:00.000000000Z",
		"token", "admin", "run.submit", "r-orig-1", "sha256:abc", "10.0.0.1", "ok")
	r.exec(t, `INSERT INTO faucet_serve_audit_tenants (id, tenant) VALUES ($1,$2)`, "018f0000-0000-7000-8000-0000000000aa", "acme")
	r.exec(t, `INSERT INTO faucet_serve_run_logs (run_id, seq, ts, level, line) VALUES ($1,$2,$3,$4,$5)`,
		"r-orig-1", "00000000000000000001", "2026-02-01T10:00:01.000000000Z", "info", "started")
	r.exec(t, `INSERT INTO faucet_serve_run_logs (run_id, seq, ts, level, line) VALUES ($1,$2,$3,$4,$5)`,
		"r-orig-1", "18446744073709551615", "2026-02-01T10:00:02.000000000Z", "warn", "log truncated")
	r.exec(t, `INSERT INTO faucet_templates (id, version, name, created_at, body) VALUES ($1,$2,$3,$4,$5)`,
		"orders", "1", "Orders", "2026-02-01T09:00:00.000001000Z", origTemplate)
	r.exec(t, `INSERT INTO faucet_template_launches (id, seq, version, launched_at, launched_by) VALUES ($1,$2,$3,$4,$5)`,
		"orders", "1", "1", "2026-02-01T09:30:00.000000000Z", "alice")
	r.exec(t, `INSERT INTO faucet_template_tags (id, tag, version, updated_at) VALUES ($1,$2,$3,$4)`,
		"orders", "prod", "1", "2026-02-01T09:30:00.000000000Z")
	r.exec(t, `INSERT INTO faucet_tenants (id, updated_at, body) VALUES ($1,$2,$3)`, "acme", "2026-01-02T00:00:00.000000000Z", origTenant)
	r.exec(t, `INSERT INTO faucet_usage (run_id, row_id, pipeline, recorded_at, body) VALUES ($1,$2,$3,$4,$5)`,
		"r-orig-1", "default", "orders", "2026-02-01T10:00:03.000000000Z", origUsage)
	r.exec(t, `INSERT INTO faucet_serve_changes (id, kind, status, requester, created_at, expires_at, body) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
		"018f0000-0000-7000-8000-000000000001", "template_launch", "pending", "bob", "2026-02-01T08:00:00.000000000Z",
		"2026-02-02T08:00:00.000000000Z", origChange)
	dsID := history.DatasetID("postgres://db/public.orders")
	r.exec(t, `INSERT INTO faucet_catalog_datasets (id, uri, kind, last_seen, body) VALUES ($1,$2,$3,$4,$5)`,
		dsID, "postgres://db/public.orders", "postgres", "2026-02-01T10:00:03.000000000Z", fmt.Sprintf(origDataset, dsID))
	outID := history.OutputID("/data/out.jsonl")
	r.exec(t, `INSERT INTO faucet_local_outputs (id, path, dataset_id, pipeline, last_written_at, deleted_at, body) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
		outID, "/data/out.jsonl", "abcd", "orders", "2026-02-01T10:00:03.000000000Z", nil, fmt.Sprintf(origOutput, outID))
	r.exec(t, `INSERT INTO faucet_serve_instances (instance_id, started_at, last_heartbeat, listen, max_concurrent, in_flight) VALUES ($1,$2,$3,$4,$5,$6)`,
		"rust-instance", "2026-02-01T00:00:00.000000000Z", history.FormatTS(time.Now()), ":8080", "4", "1")
}

func readOriginalRows(t *testing.T, h *sqlstore.Store) {
	ctx := context.Background()
	r1, err := h.Get(ctx, "r-orig-1")
	if err != nil || r1 == nil {
		t.Fatalf("original run unreadable: %v", err)
	}
	if r1.Status != history.StatusCompleted || r1.RecordsWritten != 1200 || r1.Labels["env"] != "prod" ||
		r1.FinishedAt.Nanosecond() != 123456789 || len(r1.Invocations) != 1 || *r1.IdempotencyKey != "idem-1" {
		t.Fatalf("run fields: %+v", r1)
	}
	page, err := h.List(ctx, history.ListFilter{Limit: 10})
	if err != nil || len(page.Runs) != 2 || page.Runs[0].RunID != "r-orig-2" {
		t.Fatalf("list: %v %+v", err, page)
	}
	tn, _ := h.List(ctx, history.ListFilter{Limit: 10, Tenant: history.Ptr("acme")})
	if len(tn.Runs) != 1 || tn.Runs[0].Callback == nil || *tn.Runs[0].ConfigFormat != history.FormatYAML {
		t.Fatalf("tenant list: %+v", tn)
	}
	if c, err := h.ClaimIdempotency(ctx, "idem-1", "sha256:abc", "new", time.Hour); err != nil || c.RunID != "r-orig-1" {
		t.Fatalf("original claim must replay: %v %v", c, err)
	}
	// A cluster instance of ours claims the original's pending run.
	claimed, err := h.ClaimPending(ctx, 5)
	if err != nil || len(claimed) != 1 || claimed[0].RunID != "r-orig-2" || *claimed[0].TimeoutSecs != 60 {
		t.Fatalf("claim original pending: %v %+v", err, claimed)
	}
	aud, _ := h.ListAudit(ctx, history.AuditFilter{Limit: 5, Tenant: history.Ptr("acme")})
	if len(aud) != 1 || *aud[0].SourceIP != "10.0.0.1" {
		t.Fatalf("audit: %+v", aud)
	}
	logs, _ := h.ListRunLogs(ctx, "r-orig-1", nil, 10)
	if len(logs.Lines) != 1 || !logs.Truncated || logs.Lines[0].Seq != 1 {
		t.Fatalf("logs: %+v", logs)
	}
	tpl, err := h.TemplateGet(ctx, "orders", nil)
	if err != nil || tpl == nil || tpl.Kind != history.KindPipeline || !tpl.Params["day"].Required {
		t.Fatalf("template: %v %+v", err, tpl)
	}
	if v, err := h.TemplateRegister(ctx, history.TemplateDraft{ID: "orders", Body: "v2"}); err != nil || v.Version != 2 {
		t.Fatalf("register after the original's version: %v %+v", err, v)
	}
	st, _ := history.TemplateStateOf(ctx, h, "orders")
	if *st.Stable != 1 || st.Tags["prod"] != 1 || *st.Newest != 2 {
		t.Fatalf("state: %+v", st)
	}
	if ten, err := h.TenantGet(ctx, "acme"); err != nil || *ten.Limits.MaxConcurrentRuns != 2 {
		t.Fatalf("tenant: %v %+v", err, ten)
	}
	us, err := h.UsageList(ctx, history.UsageFilter{Tenant: history.Ptr("acme")})
	if err != nil || len(us) != 1 || us[0].Cost.Lines[0].Item != "egress" || !strings.Contains(string(us[0].Usage), "52000") {
		t.Fatalf("usage: %v %+v", err, us)
	}
	ch, err := h.ChangeList(ctx, history.ChangeListFilter{})
	if err != nil || len(ch) != 1 || ch[0].Kind != history.ChangeTemplateLaunch {
		t.Fatalf("changes: %v %+v", err, ch)
	}
	ds, err := h.CatalogGetDataset(ctx, history.DatasetID("postgres://db/public.orders"))
	if err != nil || ds == nil || ds.Runs != 4 || ds.TotalRecords != 5000 {
		t.Fatalf("catalog: %v %+v", err, ds)
	}
	lo, err := h.LocalOutputList(ctx, history.LocalOutputFilter{})
	if err != nil || len(lo) != 1 || *lo[0].RetentionDays != 7 {
		t.Fatalf("outputs: %v %+v", err, lo)
	}
	live, err := h.LiveInstances(ctx, time.Hour)
	if err != nil || len(live) != 1 || live[0].StateFormat != 0 || live[0].MaxConcurrent != 4 {
		t.Fatalf("member without caps reads state format 0: %v %+v", err, live)
	}
	// What we write, the original decodes: no null collections, same names.
	var body string
	if err := h.DB().QueryRow(map[sqlstore.Dialect]string{sqlstore.SQLite: "SELECT body FROM faucet_serve_runs WHERE run_id=?1",
		sqlstore.Postgres: "SELECT body FROM faucet_serve_runs WHERE run_id=$1"}[h.Dialect()], "r-orig-2").Scan(&body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"status":"running"`, `"labels":{}`, `"invocations":[]`, `"name":null`, `"tenant":"acme"`, `"timeout_secs":60`} {
		if !strings.Contains(body, want) {
			t.Errorf("rewritten body lacks %s: %s", want, body)
		}
	}
}
