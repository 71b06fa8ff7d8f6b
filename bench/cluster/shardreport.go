package main

import (
	"fmt"
	"strings"
)

// reportSharded prints the sharded phase: per workload and cluster size the
// wall time and rows/s (median, range), the shards and how they spread over
// the instances in every repetition; then each size against the first one,
// paired per repetition.
func reportSharded(ws []workload, sizes []int, results [][][]shardResult, rows int64) {
	fmt.Printf("%d rows per run, shard: {count: %d}, %d repetitions (median, range in parentheses); --max-concurrent-runs %d, --cluster-poll-secs %d; postgres sink, COPY. Every run checked: the sink's count, sum(id) and sum(amount) equal the source's.\n\n",
		rows, *shardCount, *reps, *slots, *pollSecs)
	fmt.Println("| workload | instances | wall, submit→parent terminal | rows/s | shards (size estimates, last rep) | shards run per instance, each rep | load avg (1 min) |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for wi, w := range ws {
		for si, n := range sizes {
			rs := results[wi][si]
			var walls, rates, loads []float64
			var spreads []string
			shards := map[int]bool{}
			for _, r := range rs {
				walls = append(walls, r.wall.Seconds())
				rates = append(rates, r.rate)
				loads = append(loads, r.load)
				shards[r.shards] = true
				var per []string
				for _, k := range r.perInstance {
					per = append(per, fmt.Sprint(k))
				}
				spreads = append(spreads, strings.Join(per, "/"))
			}
			var ns []string
			for k := range shards {
				ns = append(ns, fmt.Sprint(k))
			}
			wl, rt, ld := spreadOf(walls), spreadOf(rates), spreadOf(loads)
			fmt.Printf("| %s | %d | %.2f s (%.2f–%.2f) | %.0f (%.0f–%.0f) | %s (%s) | %s | %.1f–%.1f |\n",
				w.name, n, wl.med, wl.lo, wl.hi, rt.med, rt.lo, rt.hi, strings.Join(ns, ", "), percents(rs[len(rs)-1].sizes),
				strings.Join(spreads, ", "), ld.lo, ld.hi)
		}
	}
	if len(sizes) < 2 {
		return
	}
	fmt.Println()
	fmt.Printf("Wall time against %d instance(s), paired per repetition (the runs went back to back):\n\n", sizes[0])
	fmt.Println("| workload | instances | wall ÷ wall(× " + fmt.Sprint(sizes[0]) + ") − 1, median (range) |")
	fmt.Println("|---|---|---|")
	for wi, w := range ws {
		for si := 1; si < len(sizes); si++ {
			var d []float64
			for i := range results[wi][si] {
				d = append(d, (results[wi][si][i].wall.Seconds()/results[wi][0][i].wall.Seconds()-1)*100)
			}
			fmt.Printf("| %s | %d | %s |\n", w.name, sizes[si], spreadOf(d).pct())
		}
	}
}
