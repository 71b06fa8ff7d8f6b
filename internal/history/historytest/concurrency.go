package historytest

import (
	"fmt"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// parallel runs n goroutines and waits.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			fn(i)
		}(i)
	}
	close(start)
	wg.Wait()
}

func init() {
	register("concurrent_idempotency_claims", func(e *env) {
		a, b := e.open("a"), e.open("b")
		stores := []history.RunHistory{a, b}
		const n = 16
		claims := make([]history.Claim, n)
		errs := make([]error, n)
		fp := func(i int) string {
			if i%2 == 0 {
				return "same"
			}
			return fmt.Sprint("other-", i)
		}
		parallel(n, func(i int) {
			claims[i], errs[i] = stores[i%2].ClaimIdempotency(e.ctx, "key", fp(i), fmt.Sprint("run-", i), time.Hour)
		})
		fresh := -1
		for i, c := range claims {
			ok(e.t, errs[i])
			if c.Kind == history.ClaimFresh {
				if fresh >= 0 {
					e.t.Fatalf("two fresh claims: %d and %d", fresh, i)
				}
				fresh = i
			}
		}
		if fresh < 0 {
			e.t.Fatal("no fresh claim")
		}
		for i, c := range claims {
			if i == fresh {
				continue
			}
			switch {
			case fp(i) == fp(fresh):
				eq(e.t, fmt.Sprint("claim ", i), c, history.Claim{Kind: history.ClaimReplay, RunID: fmt.Sprint("run-", fresh)})
			default:
				eq(e.t, fmt.Sprint("claim ", i), c.Kind, history.ClaimConflict)
			}
		}
		// Expired: exactly one claimant takes it over.
		e.clk.Advance(2 * time.Hour)
		parallel(n, func(i int) {
			claims[i], errs[i] = stores[i%2].ClaimIdempotency(e.ctx, "key", fmt.Sprint("new-", i), fmt.Sprint("again-", i), time.Hour)
		})
		freshN := 0
		for i, c := range claims {
			ok(e.t, errs[i])
			if c.Kind == history.ClaimFresh {
				freshN++
			} else if c.Kind != history.ClaimConflict {
				e.t.Fatalf("claim %d: %v (distinct fingerprints can only conflict)", i, c)
			}
		}
		eq(e.t, "exactly one takeover", freshN, 1)
	})

	register("two_instances_claim_pending_once", func(e *env) {
		a, b := e.open("a"), e.open("b")
		const total = 200
		for i := 0; i < total; i++ {
			ok(e.t, a.Upsert(e.ctx, run(fmt.Sprintf("p%03d", i), history.StatusPending, base.Add(time.Duration(i)*time.Millisecond))))
		}
		var mu sync.Mutex
		seen := map[string]string{}
		var errs []error
		parallel(8, func(w int) {
			h, who := a, "a"
			if w%2 == 1 {
				h, who = b, "b"
			}
			for {
				got, err := h.ClaimPending(e.ctx, 7)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				for _, r := range got {
					if prev, dup := seen[r.RunID]; dup {
						errs = append(errs, fmt.Errorf("%s claimed twice (%s, %s)", r.RunID, prev, who))
					}
					seen[r.RunID] = who
				}
				mu.Unlock()
				if len(got) == 0 {
					return
				}
			}
		})
		for _, err := range errs {
			e.t.Error(err)
		}
		eq(e.t, "every run claimed", len(seen), total)
		st := []history.RunStatus{history.StatusPending}
		eq(e.t, "none pending", len(must(a.List(e.ctx, history.ListFilter{Status: st, Limit: 1000}))(e.t).Runs), 0)
	})

	register("cancel_pending_races_claim", func(e *env) {
		a, b := e.open("a"), e.open("b")
		const total = 40
		for i := 0; i < total; i++ {
			ok(e.t, a.Upsert(e.ctx, run(fmt.Sprintf("p%02d", i), history.StatusPending, base.Add(time.Duration(i)*time.Millisecond))))
		}
		cancelled := make([]bool, total)
		claimed := map[string]bool{}
		var mu sync.Mutex
		parallel(2, func(w int) {
			if w == 0 {
				for i := 0; i < total; i++ {
					c, err := b.CancelPending(e.ctx, fmt.Sprintf("p%02d", i))
					if err != nil {
						e.t.Error(err)
					}
					cancelled[i] = c
				}
				return
			}
			for {
				got, err := a.ClaimPending(e.ctx, 3)
				if err != nil {
					e.t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, r := range got {
					claimed[r.RunID] = true
				}
				mu.Unlock()
			}
		})
		for i := 0; i < total; i++ {
			id := fmt.Sprintf("p%02d", i)
			if cancelled[i] == claimed[id] {
				e.t.Fatalf("%s: cancelled=%v claimed=%v (exactly one must win)", id, cancelled[i], claimed[id])
			}
			want := history.StatusRunning
			if cancelled[i] {
				want = history.StatusCancelled
			}
			eq(e.t, id, must(a.Get(e.ctx, id))(e.t).Status, want)
		}
	})

	register("sharded_parent_finalized_once", func(e *env) {
		a, b := e.open("a"), e.open("b")
		for i := 0; i < 10; i++ {
			ok(e.t, a.Upsert(e.ctx, run(fmt.Sprint("s", i), history.StatusSharded, base)))
		}
		wins := make([]int, 10)
		var mu sync.Mutex
		parallel(8, func(w int) {
			h := []history.RunHistory{a, b}[w%2]
			for i := 0; i < 10; i++ {
				won, err := h.FinalizeShardedParent(e.ctx, fmt.Sprint("s", i), history.StatusCompleted, base.Add(time.Minute), nil)
				if err != nil {
					e.t.Error(err)
				}
				if won {
					mu.Lock()
					wins[i]++
					mu.Unlock()
				}
			}
		})
		for i, w := range wins {
			eq(e.t, fmt.Sprint("winners of s", i), w, 1)
		}
	})

	register("concurrent_template_register", func(e *env) {
		a, b := e.open("a"), e.open("b")
		const n = 8
		vers := make([]uint32, n)
		parallel(n, func(i int) {
			h := []history.RunHistory{a, b}[i%2]
			r, err := h.TemplateRegister(e.ctx, history.TemplateDraft{ID: "tpl", Body: fmt.Sprint("body ", i)})
			if err != nil {
				e.t.Errorf("register %d: %v", i, err)
				return
			}
			vers[i] = r.Version
		})
		seen := map[uint32]bool{}
		for _, v := range vers {
			if seen[v] || v < 1 || v > n {
				e.t.Fatalf("versions not distinct and consecutive: %v", vers)
			}
			seen[v] = true
		}
		eq(e.t, "stored", len(must(a.TemplateVersions(e.ctx, "tpl"))(e.t)), n)
		// Concurrent launches get distinct seqs.
		seqs := make([]uint32, n)
		parallel(n, func(i int) {
			h := []history.RunHistory{a, b}[i%2]
			s, err := h.TemplateLaunch(e.ctx, "tpl", uint32(i+1), nil)
			if err != nil {
				e.t.Errorf("launch %d: %v", i, err)
				return
			}
			if s != nil {
				seqs[i] = *s
			}
		})
		ls := must(a.TemplateLaunches(e.ctx, "tpl"))(e.t)
		got := map[uint32]bool{}
		for _, l := range ls {
			if got[l.Seq] {
				e.t.Fatalf("duplicate launch seq %d", l.Seq)
			}
			got[l.Seq] = true
		}
		if len(ls) < 1 {
			e.t.Fatal("no launches")
		}
	})

	register("pagination_stable_under_inserts", func(e *env) {
		h := e.open("a")
		for i := 0; i < 60; i++ {
			ok(e.t, h.Upsert(e.ctx, run(fmt.Sprintf("r%03d", i), history.StatusCompleted, base.Add(time.Duration(i/3)*time.Second))))
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				if err := h.Upsert(e.ctx, run(fmt.Sprintf("new%04d", i), history.StatusQueued, base.Add(time.Hour+time.Duration(i)*time.Millisecond))); err != nil {
					e.t.Error(err)
					return
				}
			}
		}()
		first := must(h.List(e.ctx, history.ListFilter{Limit: 1, Status: []history.RunStatus{history.StatusCompleted}}))(e.t)
		seen := ids(first.Runs)
		cur := first.NextCursor
		for cur != nil {
			p := must(h.List(e.ctx, history.ListFilter{Limit: 7, Cursor: cur}))(e.t)
			for _, r := range p.Runs {
				if r.Status != history.StatusCompleted {
					e.t.Fatalf("a run inserted after the cursor appeared in later pages: %s", r.RunID)
				}
			}
			seen = append(seen, ids(p.Runs)...)
			cur = p.NextCursor
		}
		close(done)
		wg.Wait()
		eq(e.t, "every original run once", len(seen), 60)
		uniq := map[string]bool{}
		for _, id := range seen {
			uniq[id] = true
		}
		eq(e.t, "no duplicates", len(uniq), 60)
	})

	register("connect_session_taken_once", func(e *env) {
		a, b := e.open("a"), e.open("b")
		now := e.clk.Now()
		ok(e.t, a.ConnectSessionPut(e.ctx, history.ConnectSession{State: "st", Tenant: "acme", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}))
		var mu sync.Mutex
		got := 0
		parallel(16, func(i int) {
			s, err := []history.RunHistory{a, b}[i%2].ConnectSessionTake(e.ctx, "st")
			if err != nil {
				e.t.Error(err)
				return
			}
			if s != nil {
				mu.Lock()
				got++
				mu.Unlock()
			}
		})
		eq(e.t, "handed out once", got, 1)
	})
}
