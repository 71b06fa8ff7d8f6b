package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// percentile returns the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p+99)/100 - 1
	return s[max(i, 0)]
}

// spread is the median and range of repeated measurements.
type spread struct{ med, lo, hi float64 }

func spreadOf(xs []float64) spread {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{med, s[0], s[n-1]}
}

func (s spread) rate() string { return fmt.Sprintf("%.1f (%.1f–%.1f)", s.med, s.lo, s.hi) }

func (s spread) ms() string { return fmt.Sprintf("%.1f ms (%.1f–%.1f)", s.med, s.lo, s.hi) }

func (s spread) msPrec() string { return fmt.Sprintf("%.2f ms (%.2f … %.2f)", s.med, s.lo, s.hi) }

func (s spread) pct() string { return fmt.Sprintf("%+.1f%% (%+.1f … %+.1f)", s.med, s.lo, s.hi) }

func msOf(rs []result, f func(result) time.Duration) spread {
	var xs []float64
	for _, r := range rs {
		xs = append(xs, float64(f(r))/float64(time.Millisecond))
	}
	return spreadOf(xs)
}

// report prints the tables: per configuration, then the coordination
// overhead of a 1-instance cluster over the plain single instance.
func report(cfgs []config, results [][]result) {
	fmt.Printf("%d runs per configuration and repetition, %d repetitions (median, range in parentheses); %d clients, --max-concurrent-runs %d, --cluster-poll-secs %d; csv→jsonl, 3 rows.\n\n",
		*nRuns, *reps, *clients, *slots, *pollSecs)
	fmt.Println("| setup | runs/s | submit→start p50 | submit→start p95 | started→finished p50 | client submit→done p50 | runs claimed per instance (last rep) | failed |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for ci, c := range cfgs {
		rs := results[ci]
		var rates []float64
		failed := 0
		for _, r := range rs {
			rates = append(rates, r.rate)
			failed += r.failed
		}
		per := make([]string, 0, len(rs[len(rs)-1].perInstance))
		for _, n := range rs[len(rs)-1].perInstance {
			per = append(per, fmt.Sprint(n))
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %d |\n", c.name, spreadOf(rates).rate(),
			msOf(rs, func(r result) time.Duration { return r.start50 }).ms(),
			msOf(rs, func(r result) time.Duration { return r.start95 }).ms(),
			msOf(rs, func(r result) time.Duration { return r.exec50 }).ms(),
			msOf(rs, func(r result) time.Duration { return r.total50 }).ms(),
			strings.Join(per, " / "), failed)
	}
	single, one := -1, -1
	for ci, c := range cfgs {
		if !c.cluster && c.n == 1 {
			single = ci
		}
		if c.cluster && c.n == 1 && one < 0 {
			one = ci
		}
	}
	if single < 0 || one < 0 {
		return
	}
	// Paired by repetition: run i of both setups ran back to back.
	var perRun, perRunMs, start, exec, total []float64
	for i := range results[single] {
		s, c := results[single][i], results[one][i]
		perRun = append(perRun, (s.rate/c.rate-1)*100)
		perRunMs = append(perRunMs, (1/c.rate-1/s.rate)*1000)
		start = append(start, float64(c.start50-s.start50)/float64(time.Millisecond))
		exec = append(exec, float64(c.exec50-s.exec50)/float64(time.Millisecond))
		total = append(total, (float64(c.total50)/float64(s.total50)-1)*100)
	}
	fmt.Println()
	fmt.Println("Coordination overhead, cluster × 1 against the plain single instance (paired per repetition):")
	fmt.Println()
	fmt.Println("| measure | median (range) |")
	fmt.Println("|---|---|")
	fmt.Printf("| time per completed run (1/runs/s), cluster ÷ single − 1 | %s |\n", spreadOf(perRun).pct())
	fmt.Printf("| time per completed run, cluster − single | %s |\n", spreadOf(perRunMs).msPrec())
	fmt.Printf("| client submit→done p50, cluster ÷ single − 1 | %s |\n", spreadOf(total).pct())
	fmt.Printf("| submit→start p50, cluster − single | %s |\n", spreadOf(start).ms())
	fmt.Printf("| started→finished p50, cluster − single | %s |\n", spreadOf(exec).ms())
}
