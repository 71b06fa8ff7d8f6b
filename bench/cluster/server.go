package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/bench/internal/serveproc"
)

// server is one `faucet serve` subprocess.
type server = serveproc.Server

// start launches `faucet serve` (with --cluster if asked) against history
// and returns once it answers /readyz 200.
func start(bin, dir, history string, cluster bool, tag string) *server {
	args := []string{"--history", history,
		"--max-concurrent-runs", strconv.Itoa(*slots), "--shutdown-grace-secs", "10"}
	if cluster {
		args = append(args, "--cluster", "--cluster-poll-secs", strconv.Itoa(*pollSecs))
	}
	return serveproc.Start(bin, dir, tag, args...)
}

// waitMembers waits until every instance's /readyz counts all of them as
// live cluster members.
func waitMembers(ss []*server) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		all := true
		for _, s := range ss {
			code, data, err := do("GET", s.Base+"/readyz", nil)
			var b struct {
				Cluster struct {
					Enabled   bool `json:"enabled"`
					Instances int  `json:"instances"`
				} `json:"cluster"`
			}
			if err != nil || code != http.StatusOK || json.Unmarshal(data, &b) != nil || !b.Cluster.Enabled || b.Cluster.Instances != len(ss) {
				all = false
			}
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			ss[0].Fail(fmt.Errorf("%d cluster members not all live after 60s", len(ss)))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// claimedPerInstance reads faucet_serve_runs_claimed_total of every instance.
func claimedPerInstance(ss []*server) []int {
	return counterPerInstance(ss, "faucet_serve_runs_claimed_total")
}

// counterPerInstance reads the counter name (summed over its labels) of
// every instance.
func counterPerInstance(ss []*server, name string) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		code, data, err := do("GET", s.Base+"/metrics", nil)
		if err != nil || code != http.StatusOK {
			s.Fail(fmt.Errorf("GET /metrics: %d %v", code, err))
		}
		for _, line := range strings.Split(string(data), "\n") {
			series, value, ok := strings.Cut(line, " ")
			if !ok || (series != name && !strings.HasPrefix(series, name+"{")) {
				continue
			}
			if v, err := strconv.ParseFloat(value, 64); err == nil {
				out[i] += int(v)
			}
		}
	}
	return out
}
