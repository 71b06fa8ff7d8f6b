package historytest

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/faucet-hq/faucet/internal/history"
)

func init() {
	register("finalize_owned_first_wins_concurrently", func(e *env) {
		a, zombie, b := e.open("a"), e.open("a"), e.open("b")
		for i := 0; i < 10; i++ {
			ok(e.t, a.Upsert(e.ctx, run(fmt.Sprint("r", i), history.StatusRunning, base)))
		}
		var wins [10]atomic.Int32
		var statuses sync.Map
		parallel(6, func(w int) {
			h := []history.RunHistory{a, zombie, b}[w%3]
			st := []history.RunStatus{history.StatusCompleted, history.StatusFailed}[w%2]
			for i := 0; i < 10; i++ {
				rec := run(fmt.Sprint("r", i), st, base)
				won, err := h.FinalizeOwned(e.ctx, rec)
				if err != nil {
					e.t.Error(err)
				}
				if won {
					wins[i].Add(1)
					statuses.Store(i, st)
				}
			}
		})
		for i := range wins {
			eq(e.t, fmt.Sprint("finalizers of r", i), wins[i].Load(), int32(1))
			want, _ := statuses.Load(i)
			eq(e.t, "the winner's record stays", must(a.Get(e.ctx, fmt.Sprint("r", i)))(e.t).Status, want.(history.RunStatus))
		}
	})

	register("sharded_sweep_once_across_instances", func(e *env) {
		a, b := e.open("a"), e.open("b")
		for i := 0; i < 6; i++ {
			id := fmt.Sprint("p", i)
			ok(e.t, a.Upsert(e.ctx, run(id, history.StatusSharded, base)))
			must(a.InsertShards(e.ctx, id, []history.ShardInsert{{ShardID: "s", Descriptor: json.RawMessage(`{}`)}}))(e.t)
		}
		for {
			got := must(a.ClaimShards(e.ctx, 10))(e.t)
			if len(got) == 0 {
				break
			}
			for i, c := range got {
				must(a.FinalizeShard(e.ctx, c.RunID, c.ShardID, i%2 == 0))(e.t)
			}
		}
		var total atomic.Int32
		parallel(6, func(w int) {
			n, err := []history.RunHistory{a, b}[w%2].FinalizeCompletedShardedParents(e.ctx)
			if err != nil {
				e.t.Error(err)
			}
			total.Add(int32(n))
		})
		eq(e.t, "each parent finalized once", total.Load(), int32(6))
		for i := 0; i < 6; i++ {
			st := must(a.Get(e.ctx, fmt.Sprint("p", i)))(e.t).Status
			if !st.IsTerminal() {
				e.t.Fatalf("p%d still %s", i, st)
			}
		}
	})
}
