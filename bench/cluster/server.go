package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// server is one `faucet serve` subprocess.
type server struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port, from its "listening on" line
	log     string
	done    chan struct{}
	stopped bool
}

// start launches `faucet serve` (with --cluster if asked) on a kernel-chosen
// loopback port against history, and returns once it answers /readyz 200.
func start(bin, dir, history string, cluster bool, tag string) *server {
	args := []string{"serve", "--no-auth", "--no-env-file", "--no-ui",
		"--listen", "127.0.0.1:0", "--history", history,
		"--max-concurrent-runs", strconv.Itoa(*slots), "--shutdown-grace-secs", "10"}
	if cluster {
		args = append(args, "--cluster", "--cluster-poll-secs", strconv.Itoa(*pollSecs))
	}
	s := &server{log: filepath.Join(dir, "serve-"+tag+".log"), done: make(chan struct{})}
	lf, err := os.Create(s.log)
	check(err)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "FAUCET_DATA_DIR="+filepath.Join(dir, "data-"+tag))
	s.cmd.Stdout = io.Discard
	pipe, err := s.cmd.StderrPipe()
	check(err)
	check(s.cmd.Start())
	atExit(s.stop)
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(lf, line)
			if rest, ok := strings.CutPrefix(line, "faucet serve: listening on "); ok {
				select {
				case listening <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
		_ = s.cmd.Wait()
		lf.Close()
		close(s.done)
	}()
	select {
	case addr := <-listening:
		s.base = "http://" + strings.TrimPrefix(addr, "http://")
	case <-s.done:
		s.stopped = true
		s.fail(errors.New("server exited before listening"))
	case <-time.After(60 * time.Second):
		s.fail(errors.New("server not listening after 60s"))
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if code, _, err := do("GET", s.base+"/readyz", nil); err == nil && code == http.StatusOK {
			return s
		}
		if time.Now().After(deadline) {
			s.fail(errors.New("server not ready after 60s"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitMembers waits until every instance's /readyz counts all of them as
// live cluster members.
func waitMembers(ss []*server) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		all := true
		for _, s := range ss {
			code, data, err := do("GET", s.base+"/readyz", nil)
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
			ss[0].fail(fmt.Errorf("%d cluster members not all live after 60s", len(ss)))
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
		code, data, err := do("GET", s.base+"/metrics", nil)
		if err != nil || code != http.StatusOK {
			s.fail(fmt.Errorf("GET /metrics: %d %v", code, err))
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

// stop sends SIGTERM and waits (SIGKILL after 20 s).
func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// fail kills the server, prints the tail of its log and exits.
func (s *server) fail(err error) {
	if !s.stopped {
		s.stopped = true
		_ = s.cmd.Process.Kill()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
		}
	}
	if b, _ := os.ReadFile(s.log); len(b) > 0 {
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		fmt.Fprintf(os.Stderr, "--- server log (%s) ---\n%s\n", s.log, b)
	}
	check(err)
}
