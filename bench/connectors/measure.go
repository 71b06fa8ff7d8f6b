package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// result is one case over all its runs.
type result struct {
	name, what string
	rows       int64
	walls      []float64 // seconds, one per run
	cpu        []float64 // the child's user+sys seconds, one per run
	rssKB      []int64   // the child's peak RSS, one per run
	anonKB     []int64   // the child's sampled peak RssAnon, one per run
	fileKB     []int64   // the child's sampled peak RssFile, one per run
	serverCPU  float64   // this process's CPU seconds during the runs (the fake server), per run
	otherLoad  float64   // % of all cores other processes used during the runs; -1: runs too short to tell
	check      string
	err        string
}

func (r *result) median() float64 { return quantile(r.walls, 0.5) }

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := q * float64(len(s)-1)
	lo := int(i)
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (i-float64(lo))*(s[lo+1]-s[lo])
}

func minmax(xs []float64) (float64, float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[0], s[len(s)-1]
}

// timed runs argv once under GNU time (/usr/bin/time): wall seconds, the
// child's CPU seconds and peak RSS in KiB (exact), and the sampled peaks
// of the child's anonymous and file-backed RSS (sampleRSS).
func timed(env []string, argv ...string) (wall, cpu float64, rssKB int64, split rssSample, stderr string, err error) {
	tf := filepath.Join(os.TempDir(), fmt.Sprintf("bench-connectors-time-%d", os.Getpid()))
	defer os.Remove(tf)
	cmd := exec.Command("/usr/bin/time", append([]string{"-o", tf, "-f", "%M %U %S"}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	var eb bytes.Buffer
	cmd.Stderr = &eb
	t0 := time.Now()
	if err = cmd.Start(); err != nil {
		return 0, 0, 0, split, "", err
	}
	stop, peaks := make(chan struct{}), make(chan rssSample, 1)
	go sampleRSS(cmd.Process.Pid, stop, peaks)
	err = cmd.Wait()
	wall = time.Since(t0).Seconds()
	close(stop)
	split = <-peaks
	stderr = eb.String()
	if f := os.Getenv("BENCH_CHILD_STDERR"); f != "" { // e.g. with GODEBUG=gctrace=1
		_ = os.WriteFile(f, eb.Bytes(), 0o644)
	}
	if err != nil {
		return wall, 0, 0, split, stderr, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, lastLine(stderr))
	}
	b, rerr := os.ReadFile(tf)
	if rerr != nil {
		return wall, 0, 0, split, stderr, rerr
	}
	f := strings.Fields(lastLine(string(b)))
	if len(f) != 3 {
		return wall, 0, 0, split, stderr, fmt.Errorf("unexpected GNU time output %q", b)
	}
	rssKB, _ = strconv.ParseInt(f[0], 10, 64)
	u, _ := strconv.ParseFloat(f[1], 64)
	s, _ := strconv.ParseFloat(f[2], 64)
	return wall, u + s, rssKB, split, stderr, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// busyTicks is the whole machine's busy CPU time from /proc/stat, in
// clock ticks (100 per second on Linux).
func busyTicks() int64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	var sum int64
	for i, x := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest time is already in user
			break
		}
		n, _ := strconv.ParseInt(x, 10, 64)
		sum += n
	}
	return sum
}

// selfCPU is this process's user+sys seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// run measures a case: before each of runs runs, prepare (untimed); the
// timed argv; after the last run, check (untimed) gives the output check.
func run(name, what string, rows int64, runs int, prepare func() error, env []string, argv []string, check func() string) *result {
	r := &result{name: name, what: what, rows: rows}
	fmt.Fprintf(os.Stderr, "== %s: %s\n", name, strings.Join(argv, " "))
	var busy int64
	var self, span float64
	ncpu := float64(runtime.NumCPU())
	for i := 0; i < runs; i++ {
		if prepare != nil {
			if err := prepare(); err != nil {
				r.err = "prepare: " + err.Error()
				return r
			}
		}
		b0, s0, t0 := busyTicks(), selfCPU(), time.Now()
		wall, cpu, rss, split, _, err := timed(env, argv...)
		busy += busyTicks() - b0
		self += selfCPU() - s0
		span += time.Since(t0).Seconds()
		if err != nil {
			r.err = err.Error()
			return r
		}
		r.walls, r.cpu, r.rssKB = append(r.walls, wall), append(r.cpu, cpu), append(r.rssKB, rss)
		r.anonKB, r.fileKB = append(r.anonKB, split.anonKB), append(r.fileKB, split.fileKB)
		fmt.Fprintf(os.Stderr, "   run %d: %.3f s, %.2f CPU s, %.1f MiB (anon %.1f, file %.1f)\n", i+1, wall, cpu,
			float64(rss)/1024, float64(split.anonKB)/1024, float64(split.fileKB)/1024)
	}
	var child float64
	for _, c := range r.cpu {
		child += c
	}
	r.serverCPU = self / float64(runs)
	r.otherLoad = -1 // too short to tell
	if span >= 1 {
		r.otherLoad = max(0, (float64(busy)/100-child-self)/(span*ncpu)*100)
	}
	if check != nil {
		r.check = check()
	}
	return r
}
