package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// result is one configuration's measured phase.
type result struct {
	done, failed     int
	rate             float64       // completed runs per second of the phase
	start50, start95 time.Duration // server-side submitted_at → started_at
	exec50           time.Duration // server-side started_at → finished_at
	total50          time.Duration // client-side submit → terminal seen
	perInstance      []int         // runs each instance claimed (cluster) or ran (single)
}

// throughput warms every instance with one untimed run, then submits -runs
// runs round-robin over ss (run i to instance i mod n) from -clients
// goroutines; each polls its run on the instance it submitted to until it is
// terminal, then submits the next.
func throughput(ss []*server, dir, in, tag string) result {
	cfg := func(i int) string {
		out := filepath.Join(dir, "out", fmt.Sprintf("%s-%d.jsonl", tag, i))
		return fmt.Sprintf("version: 1\nname: bench_cluster\npipeline:\n  source:\n    type: csv\n    config: {path: %q}\n  sink:\n    type: jsonl\n    config: {path: %q}\n", in, out)
	}
	for k, s := range ss {
		if o, err := submitAndWait(s.Base, cfg(-1-k), time.Now().Add(60*time.Second)); err != nil || o.status != "completed" {
			s.Fail(fmt.Errorf("warm-up run: status %q, %v", o.status, err))
		}
	}
	before := claimedPerInstance(ss)
	var next, done, failed atomic.Int64
	outs := make([]outcome, *nRuns)
	deadline := time.Now().Add(*phaseLimit)
	var wg sync.WaitGroup
	t0 := time.Now()
	for g := 0; g < *clients; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= *nRuns || time.Now().After(deadline) {
					return
				}
				o, err := submitAndWait(ss[i%len(ss)].Base, cfg(i), deadline)
				if err != nil {
					fmt.Fprintf(os.Stderr, "run %d: %v\n", i, err)
					failed.Add(1)
					continue
				}
				if o.status != "completed" {
					failed.Add(1)
				}
				outs[i] = o
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	r := result{done: int(done.Load()), failed: int(failed.Load()), rate: float64(done.Load()) / el.Seconds()}
	var starts, execs, totals []time.Duration
	for _, o := range outs {
		if o.status != "" {
			starts = append(starts, o.start)
			execs = append(execs, o.exec)
			totals = append(totals, o.total)
		}
	}
	r.start50, r.start95 = percentile(starts, 50), percentile(starts, 95)
	r.exec50 = percentile(execs, 50)
	r.total50 = percentile(totals, 50)
	after := claimedPerInstance(ss)
	r.perInstance = make([]int, len(ss))
	for i := range after {
		r.perInstance[i] = after[i] - before[i]
	}
	return r
}

// outcome is one run as the client saw it.
type outcome struct {
	id     string
	status string
	start  time.Duration // started_at - submitted_at (server clocks, same host)
	exec   time.Duration // finished_at - started_at
	total  time.Duration // client: POST sent → terminal status read
}

// submitAndWait posts one run and polls it until terminal or the deadline.
func submitAndWait(base, config string, deadline time.Time) (outcome, error) {
	body, _ := json.Marshal(map[string]string{"config": config})
	t0 := time.Now()
	var sub struct {
		RunID string `json:"run_id"`
	}
	for attempt := 0; ; attempt++ {
		code, data, err := do("POST", base+"/v1/runs", body)
		if err != nil {
			return outcome{}, err
		}
		if code == http.StatusTooManyRequests && attempt < 200 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if code != http.StatusAccepted {
			return outcome{}, fmt.Errorf("submit: HTTP %d: %s", code, data)
		}
		if err := json.Unmarshal(data, &sub); err != nil {
			return outcome{}, err
		}
		break
	}
	for time.Now().Before(deadline) {
		code, data, err := do("GET", base+"/v1/runs/"+sub.RunID, nil)
		if err != nil {
			return outcome{}, err
		}
		if code != http.StatusOK {
			return outcome{}, fmt.Errorf("get %s: HTTP %d: %s", sub.RunID, code, data)
		}
		var rec struct {
			Status      string     `json:"status"`
			Error       *string    `json:"error"`
			SubmittedAt time.Time  `json:"submitted_at"`
			StartedAt   *time.Time `json:"started_at"`
			FinishedAt  *time.Time `json:"finished_at"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			return outcome{}, err
		}
		switch rec.Status {
		case "completed", "failed", "cancelled":
			o := outcome{id: sub.RunID, status: rec.Status, total: time.Since(t0)}
			if rec.Status != "completed" && rec.Error != nil {
				fmt.Fprintf(os.Stderr, "run %s %s: %s\n", sub.RunID, rec.Status, *rec.Error)
			}
			if rec.StartedAt != nil {
				o.start = rec.StartedAt.Sub(rec.SubmittedAt)
				if rec.FinishedAt != nil {
					o.exec = rec.FinishedAt.Sub(*rec.StartedAt)
				}
			}
			return o, nil
		}
		time.Sleep(*poll)
	}
	return outcome{}, fmt.Errorf("run %s not terminal by the deadline", sub.RunID)
}
