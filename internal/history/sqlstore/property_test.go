package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/memory"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// frozenClock only moves when told, so both backends stamp identical times.
type frozenClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *frozenClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *frozenClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestPropertyMemoryMatchesSQLite applies random operation sequences to the
// memory backend and to SQLite (two instances each over one database) and
// requires every observable result to be identical.
func TestPropertyMemoryMatchesSQLite(t *testing.T) {
	seeds := 20
	if testing.Short() || raceEnabled {
		seeds = 6
	}
	if v := os.Getenv("FAUCET_PROPERTY_SEEDS"); v != "" {
		seeds, _ = strconv.Atoi(v)
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { propertyRun(t, int64(seed), 200) })
	}
}

func propertyRun(t *testing.T, seed int64, steps int) {
	ctx := context.Background()
	clk := &frozenClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	opt := func(id string) history.Options {
		return history.Options{InstanceID: id, Now: clk.Now, LeaseTTL: 30 * time.Second, IdemRetention: time.Hour}
	}
	mem := memory.New(opt("a"))
	mems := []history.RunHistory{mem, mem.Instance(opt("b"))}
	url := "sqlite:" + filepath.Join(t.TempDir(), "p.db")
	var sqls []history.RunHistory
	for _, id := range []string{"a", "b"} {
		s, err := sqlstore.OpenOptions(ctx, url, opt(id))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sqls = append(sqls, s)
	}
	rng := rand.New(rand.NewSource(seed))
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	runIDs := []string{"r1", "r2", "r3", "r4", "r5", "r6"}
	statuses := history.AllStatuses
	base := clk.Now()

	gen := func() op {
		id := pick(runIDs...)
		switch rng.Intn(29) {
		case 0, 1, 2:
			r := history.NewQueuedRun(id, history.Ptr(pick("x", "y")), map[string]string{"k": pick("1", "2")}, nil,
				base.Add(time.Duration(rng.Intn(4))*time.Second))
			r.Status = statuses[rng.Intn(len(statuses))]
			r.Attempt = uint32(rng.Intn(3))
			if r.Status.IsTerminal() && rng.Intn(2) == 0 {
				f := clk.Now().Add(-time.Duration(rng.Intn(3)) * time.Hour)
				r.FinishedAt = &f
			}
			return op{name: "upsert " + id, do: func(h history.RunHistory) (any, error) { return nil, h.Upsert(ctx, r) }}
		case 3:
			return op{name: "get " + id, do: func(h history.RunHistory) (any, error) { return h.Get(ctx, id) }}
		case 4, 5:
			f := history.ListFilter{Limit: rng.Intn(4)}
			if rng.Intn(2) == 0 {
				f.Status = []history.RunStatus{statuses[rng.Intn(len(statuses))], statuses[rng.Intn(len(statuses))]}
			}
			if rng.Intn(3) == 0 {
				f.Cursor = history.Ptr(id)
			}
			if rng.Intn(4) == 0 {
				f.Name = history.Ptr("x")
			}
			if rng.Intn(4) == 0 {
				f.Tenant = history.Ptr("t1")
			}
			return op{name: fmt.Sprintf("list %+v", f), do: func(h history.RunHistory) (any, error) { return h.List(ctx, f) }}
		case 6:
			k, fp, w := pick("k1", "k2"), pick("f1", "f2"), time.Duration(rng.Intn(3))*30*time.Minute
			return op{name: "claim " + k, do: func(h history.RunHistory) (any, error) { return h.ClaimIdempotency(ctx, k, fp, id, w) }}
		case 7:
			return op{name: "delete " + id, do: func(h history.RunHistory) (any, error) { return h.Delete(ctx, id) }}
		case 8:
			n := rng.Intn(3)
			return op{name: "claim_pending", do: func(h history.RunHistory) (any, error) { return h.ClaimPending(ctx, n) }}
		case 9:
			m := uint32(rng.Intn(3))
			return op{name: "reclaim", do: func(h history.RunHistory) (any, error) { return h.ReclaimOrphans(ctx, m) }}
		case 10:
			// Finalize the run as a runner would: its current record with a
			// new status (finalize never rewrites name or submitted_at, whose
			// columns it leaves alone, exactly as the seed's statement).
			st := pick3(rng, history.StatusCompleted, history.StatusFailed, history.StatusRunning)
			return op{name: "finalize " + id, do: func(h history.RunHistory) (any, error) {
				cur, err := h.Get(ctx, id)
				if err != nil || cur == nil {
					return nil, err
				}
				cur.Status = st
				cur.RecordsWritten = 42
				return h.FinalizeOwned(ctx, *cur)
			}}
		case 11:
			return op{name: "cancel_pending " + id, do: func(h history.RunHistory) (any, error) { return h.CancelPending(ctx, id) }}
		case 12:
			return op{name: "request_cancel " + id, do: func(h history.RunHistory) (any, error) {
				if err := h.RequestCancel(ctx, id); err != nil {
					return nil, err
				}
				return h.PendingCancellations(ctx)
			}}
		case 13:
			return op{name: "recover", do: func(h history.RunHistory) (any, error) { return h.RecoverOrphans(ctx) }}
		case 14:
			return op{name: "purge", do: func(h history.RunHistory) (any, error) { return h.PurgeExpired(ctx, time.Hour) }}
		case 15:
			d := time.Duration(rng.Intn(50)) * time.Minute
			return op{name: "advance", advance: d}
		case 16:
			tn := pick("t1", "t2")
			return op{name: "link " + id, do: func(h history.RunHistory) (any, error) { return nil, h.TenantRunLink(ctx, id, tn) }}
		case 17:
			sh := []history.ShardInsert{{ShardID: pick("s1", "s2"), Descriptor: json.RawMessage(`{"n":1}`), SizeEstimate: ptrU64(uint64(rng.Intn(3)))}}
			return op{name: "shards " + id, do: func(h history.RunHistory) (any, error) {
				n, err := h.InsertShards(ctx, id, sh)
				if err != nil {
					return nil, err
				}
				p, err := h.ShardProgress(ctx, id)
				return []any{n, p}, err
			}}
		case 18:
			return op{name: "claim_shards", do: func(h history.RunHistory) (any, error) { return h.ClaimShards(ctx, 2) }}
		case 19:
			sid, ok := pick("s1", "s2"), rng.Intn(2) == 0
			return op{name: "finalize_shard", do: func(h history.RunHistory) (any, error) {
				won, err := h.FinalizeShard(ctx, id, sid, ok)
				if err != nil {
					return nil, err
				}
				n, err := h.FinalizeCompletedShardedParents(ctx)
				return []any{won, n}, err
			}}
		case 20:
			tid, back := pick("ta", "tb"), rng.Intn(100)
			return op{name: "template " + tid, do: func(h history.RunHistory) (any, error) {
				r, err := h.TemplateRegister(ctx, history.TemplateDraft{ID: tid, Body: "b"})
				if err != nil {
					return nil, err
				}
				s, err := h.TemplateLaunch(ctx, tid, r.Version-uint32(back%int(r.Version)), nil)
				if err != nil {
					return nil, err
				}
				st, err := history.TemplateStateOf(ctx, h, tid)
				return []any{r.Version, s, st}, err
			}}
		case 22:
			uris := []string{"file:///a.csv", "postgres://db/t", "s3://b/k"}
			schemas := []string{`{"type":"object","properties":{"id":{"type":"integer"}}}`, `{"type":"object","properties":{"id":{"type":"number"},"n":{"type":"string"}}}`, ``}
			src, dst := uris[rng.Intn(3)], uris[rng.Intn(3)]
			sc := schemas[rng.Intn(3)]
			n := uint64(rng.Intn(100))
			u := history.CatalogUpdate{RunID: id, Pipeline: pick("p", "q"), Row: "default", RecordedAt: clk.Now().Add(time.Duration(rng.Intn(3)) * time.Second),
				Sources: []history.DatasetObservation{{URI: src, Kind: "k", Role: history.RoleSource, Schema: json.RawMessage(sc), Records: n}},
				Sink:    history.DatasetObservation{URI: dst, Kind: "k2", Role: history.RoleSink, Records: n}}
			return op{name: "catalog " + src + "->" + dst, do: func(h history.RunHistory) (any, error) {
				if err := h.CatalogRecord(ctx, u); err != nil {
					return nil, err
				}
				d, err := h.CatalogGetDataset(ctx, history.DatasetID(src))
				if err != nil {
					return nil, err
				}
				l, err := h.CatalogLineage(ctx, &u.Sources[0].URI, 2)
				return []any{d, l}, err
			}}
		case 23:
			f := history.CatalogListFilter{Limit: 1 + rng.Intn(3)}
			if rng.Intn(2) == 0 {
				f.Kind = history.Ptr("k")
			}
			return op{name: "catalog list", do: func(h history.RunHistory) (any, error) { return h.CatalogListDatasets(ctx, f) }}
		case 24:
			o := history.LocalOutputObservation{Path: pick("/o/1", "/o/2", "/o/3"), DatasetURI: "u", DatasetID: pick("d1", "d2"), Kind: "jsonl",
				Pipeline: pick("p", "q"), Row: "default", RunID: id, PreExisting: rng.Intn(2) == 0, Replaced: rng.Intn(2) == 0,
				ObservedAt: clk.Now().Add(time.Duration(rng.Intn(5)-2) * time.Minute)}
			del := rng.Intn(4) == 0
			f := history.LocalOutputFilter{IncludeDeleted: rng.Intn(2) == 0, Limit: rng.Intn(3)}
			return op{name: "output " + o.Path, do: func(h history.RunHistory) (any, error) {
				if err := h.LocalOutputRecord(ctx, o); err != nil {
					return nil, err
				}
				if del {
					if _, err := h.LocalOutputMarkDeleted(ctx, history.OutputID(o.Path), clk.Now(), 10); err != nil {
						return nil, err
					}
				}
				return h.LocalOutputList(ctx, f)
			}}
		case 25:
			c := history.ChangeRequest{ID: pick("c1", "c2", "c3"), Kind: history.ChangeRun, Status: history.ChangeStatus(pick("pending", "approved", "executed")),
				Requester: pick("ann", "ben"), CreatedAt: clk.Now().Add(-time.Duration(rng.Intn(3)) * time.Minute), UpdatedAt: clk.Now(), ExpiresAt: clk.Now().Add(time.Hour)}
			if rng.Intn(2) == 0 {
				c.Tenant = history.Ptr("t1")
			}
			f := history.ChangeListFilter{Limit: rng.Intn(3)}
			if rng.Intn(2) == 0 {
				f.Tenant = history.Ptr("t1")
			}
			return op{name: "change " + c.ID, do: func(h history.RunHistory) (any, error) {
				if err := h.ChangeUpsert(ctx, c); err != nil {
					return nil, err
				}
				return h.ChangeList(ctx, f)
			}}
		case 26:
			tid := pick("t1", "t2")
			del := rng.Intn(3) == 0
			return op{name: "tenant " + tid, do: func(h history.RunHistory) (any, error) {
				if del {
					ok, err := h.TenantDelete(ctx, tid)
					if err != nil {
						return nil, err
					}
					l, err := h.List(ctx, history.ListFilter{Limit: 10, Tenant: &tid})
					return []any{ok, l}, err
				}
				if err := h.TenantUpsert(ctx, history.TenantRecord{ID: tid, CreatedAt: clk.Now(), UpdatedAt: clk.Now()}); err != nil {
					return nil, err
				}
				if err := h.ConnectionUpsert(ctx, history.ConnectionRecord{Tenant: tid, Name: "c", CreatedAt: clk.Now(), UpdatedAt: clk.Now()}); err != nil {
					return nil, err
				}
				return h.TenantList(ctx)
			}}
		case 27:
			seqs := []uint64{uint64(rng.Intn(5)), uint64(rng.Intn(5))}
			if rng.Intn(5) == 0 {
				seqs = append(seqs, history.RunLogTruncatedSeq)
			}
			var after *uint64
			if rng.Intn(2) == 0 {
				a := uint64(rng.Intn(4))
				after = &a
			}
			return op{name: "logs " + id, do: func(h history.RunHistory) (any, error) {
				var lines []history.RunLogLine
				for _, sq := range seqs {
					lines = append(lines, history.RunLogLine{Seq: sq, TS: history.FormatTS(clk.Now()), Level: "info", Line: fmt.Sprint("l", sq)})
				}
				if err := h.RecordRunLogs(ctx, id, lines); err != nil {
					return nil, err
				}
				n, err := h.PurgeRunLogs(ctx, 40*time.Minute)
				if err != nil {
					return nil, err
				}
				p, err := h.ListRunLogs(ctx, id, after, 3)
				return []any{n, p}, err
			}}
		case 28:
			e := history.AuditEntry{ID: fmt.Sprint("a", rng.Int63()), Timestamp: clk.Now(), Principal: pick("p1", "p2"), Role: "admin", Action: pick("x", "y"), Result: "ok"}
			if rng.Intn(2) == 0 {
				e.Tenant = history.Ptr("t1")
			}
			f := history.AuditFilter{Limit: 1 + rng.Intn(3), Principal: nil}
			if rng.Intn(2) == 0 {
				f.Tenant = history.Ptr("t1")
			}
			return op{name: "audit", do: func(h history.RunHistory) (any, error) {
				if err := h.RecordAudit(ctx, e); err != nil {
					return nil, err
				}
				return h.ListAudit(ctx, f)
			}}
		default:
			u := history.UsageRecord{RunID: id, Row: pick("a", "b"), Pipeline: pick("p", "q"), RecordedAt: clk.Now()}
			return op{name: "usage", do: func(h history.RunHistory) (any, error) {
				if err := h.UsageRecord(ctx, u); err != nil {
					return nil, err
				}
				return h.UsageList(ctx, history.UsageFilter{Pipeline: history.Ptr("p")})
			}}
		}
	}
	var trace []string
	defer func() {
		if t.Failed() {
			for _, l := range trace {
				t.Log(l)
			}
		}
	}()
	for step := 0; step < steps; step++ {
		o := gen()
		inst := rng.Intn(2)
		trace = append(trace, fmt.Sprintf("%d: %s on %d", step, o.name, inst))
		if o.do == nil {
			clk.advance(o.advance)
			continue
		}
		mv, merr := o.do(mems[inst])
		sv, serr := o.do(sqls[inst])
		if (merr == nil) != (serr == nil) {
			t.Fatalf("step %d %s on %d: memory err %v, sqlite err %v", step, o.name, inst, merr, serr)
		}
		mj, _ := json.Marshal(mv)
		sj, _ := json.Marshal(sv)
		if string(mj) != string(sj) {
			t.Fatalf("step %d %s on instance %d:\nmemory %s\nsqlite %s", step, o.name, inst, mj, sj)
		}
		for _, id := range runIDs { // state after every step
			m, _ := mems[0].Get(ctx, id)
			s, _ := sqls[0].Get(ctx, id)
			mj, _ := json.Marshal(m)
			sj, _ := json.Marshal(s)
			if string(mj) != string(sj) {
				t.Fatalf("after step %d %s on %d, run %s:\nmemory %s\nsqlite %s", step, o.name, inst, id, mj, sj)
			}
		}
	}
	// Final state: every run reads identically.
	for _, id := range runIDs {
		m, _ := mems[0].Get(ctx, id)
		s, _ := sqls[0].Get(ctx, id)
		mj, _ := json.Marshal(m)
		sj, _ := json.Marshal(s)
		if string(mj) != string(sj) {
			t.Fatalf("final %s:\nmemory %s\nsqlite %s", id, mj, sj)
		}
	}
}

func pick3(rng *rand.Rand, xs ...history.RunStatus) history.RunStatus { return xs[rng.Intn(len(xs))] }

func ptrU64(n uint64) *uint64 { return &n }

type op struct {
	name    string
	do      func(h history.RunHistory) (any, error)
	advance time.Duration
}
