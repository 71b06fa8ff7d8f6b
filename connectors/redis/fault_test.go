package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// privateRedis is a redis-server of the test's own, on a free port, in a
// temp dir, that the test may kill and restart (the shared one on 6379
// is never touched).
type privateRedis struct {
	url  string
	args []string
	cmd  *exec.Cmd
	c    *goredis.Client
}

// startPrivateRedis starts a server; persistent turns on the append-only
// file with an fsync per write, otherwise it keeps nothing across a
// restart (--save "" --appendonly no).
func startPrivateRedis(t *testing.T, persistent bool) *privateRedis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server not installed")
		}
		t.Skip("redis-server not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "",
		"--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log")}
	if persistent {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	r := &privateRedis{url: fmt.Sprintf("redis://127.0.0.1:%d/0", port), args: append([]string{bin}, args...)}
	opts, _ := goredis.ParseURL(r.url)
	r.c = goredis.NewClient(opts)
	r.start(t)
	t.Cleanup(func() {
		r.c.Close()
		r.kill(t)
	})
	return r
}

func (r *privateRedis) start(t *testing.T) {
	t.Helper()
	r.cmd = exec.Command(r.args[0], r.args[1:]...)
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for r.c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("private redis-server %s did not answer within 10s", r.url)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill ends the server with SIGKILL: no shutdown save, no goodbye.
func (r *privateRedis) kill(t *testing.T) {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.cmd = nil
}

type runResult struct {
	code   int
	stderr string
}

// killMidRun starts the pipeline in dir, waits until ready (records landed
// and the state was saved once), kills and restarts the server, and
// returns how the run ended.
func killMidRun(t *testing.T, dir string, srv *privateRedis, ready func() bool) runResult {
	t.Helper()
	done := make(chan runResult, 1)
	go func() {
		code, stderr := faucet(t, dir, "run", "faucet.yaml", "--quiet")
		done <- runResult{code, stderr}
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for !ready() {
		select {
		case res := <-done:
			t.Fatalf("the run ended (exit %d) before the kill point\n%s", res.code, res.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress within 2 minutes")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case res := <-done:
		t.Fatalf("the run ended (exit %d) before the kill: make the load larger\n%s", res.code, res.stderr)
	default:
	}
	srv.kill(t)
	srv.start(t)
	return <-done
}

// eoFaultConfig streams entries 1..n from the shared Redis into a list
// on the private server, exactly once, state in a file.
func eoFaultConfig(t *testing.T, dir, sharedURL, privateURL, name string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "faucet.yaml"), fmt.Sprintf(`version: 1
name: %[3]s
delivery: exactly_once
pipeline:
  source:
    type: redis
    config: {url: "%[1]s", source_type: {type: Stream, key: %[3]s-in}, batch_size: 20}
  sink:
    type: redis
    config: {url: "%[2]s", sink_type: {type: List, key: out}}
  state: {type: file, config: {path: state}}
`, sharedURL, privateURL, name))
}

// A persistent Redis killed with SIGKILL and restarted in the middle of an
// exactly-once load: the run rides over the restart (the write is retried
// after reading the commit token back) or fails with a clear error and a
// rerun finishes; either way every entry is in the list exactly once.
func TestKillRedisSinkMidRunExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("long load")
	}
	url, c := sharedRedis(t)
	name := uniqueName(t, c)
	srv := startPrivateRedis(t, true)
	const n = 100_000
	addEntries(t, c, name+"-in", 1, n)
	dir := t.TempDir()
	eoFaultConfig(t, dir, url, srv.url, name)

	res := killMidRun(t, dir, srv, func() bool {
		_, err := os.Stat(filepath.Join(dir, "state", name+"%3A%3Arow-0.json"))
		return err == nil && srv.c.LLen(context.Background(), "out").Val() >= 3000
	})
	if res.code != 0 {
		t.Logf("the run failed across the restart (exit %d):\n%s", res.code, res.stderr)
		if !strings.Contains(res.stderr, "error:") || !strings.Contains(res.stderr, "redis") {
			t.Fatalf("the failure does not say what failed:\n%s", res.stderr)
		}
		if code, stderr := faucet(t, dir, "run", "faucet.yaml", "--quiet"); code != 0 {
			t.Fatalf("rerun: exit %d\n%s", code, stderr)
		}
	} else {
		t.Log("the run completed across the restart")
	}
	checkOnce(t, srv.c, "out", n)
}

// A Redis without persistence killed and restarted mid-run comes back
// empty: the sink notices its last commit token is gone and stops with a
// fatal error instead of writing on over the hole; nothing is written to
// the empty server and the saved bookmark is one the sink had committed.
// A rerun resumes from that bookmark, writing each later entry once.
func TestKillNonPersistentRedisSinkStopsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("long load")
	}
	url, c := sharedRedis(t)
	name := uniqueName(t, c)
	srv := startPrivateRedis(t, false)
	const n = 200_000
	addEntries(t, c, name+"-in", 1, n)
	dir := t.TempDir()
	eoFaultConfig(t, dir, url, srv.url, name)

	res := killMidRun(t, dir, srv, func() bool {
		_, err := os.Stat(filepath.Join(dir, "state", name+"%3A%3Arow-0.json"))
		return err == nil && srv.c.LLen(context.Background(), "out").Val() >= 3000
	})
	if res.code == 0 {
		t.Fatalf("the run succeeded although the server lost the pages it had committed; the server now holds %d records\n%s", srv.c.LLen(context.Background(), "out").Val(), res.stderr)
	}
	if !strings.Contains(res.stderr, "_faucet_commit_token:"+name+"::row-0 is absent") || !strings.Contains(res.stderr, "the server lost committed pages") {
		t.Fatalf("stderr does not explain the loss:\n%s", res.stderr)
	}
	ctx := context.Background()
	if n := srv.c.LLen(ctx, "out").Val(); n != 0 {
		t.Fatalf("the run wrote %d records to the emptied server", n)
	}
	// The state holds the bookmark of a page committed before the kill
	// (entry 20*seq), saved before the loss and not moved since.
	data, err := os.ReadFile(filepath.Join(dir, "state", name+"%3A%3Arow-0.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Bookmark string `json:"bookmark"`
		Seq      int    `json:"seq"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("state %s: %v", data, err)
	}
	if env.Seq < 1 || env.Bookmark != fmt.Sprintf("%d-1", 20*env.Seq) || env.Seq*20 >= n {
		t.Fatalf("state %s is not the bookmark of a committed page", data)
	}
	start := 20 * env.Seq
	t.Logf("failed as expected; state resumes after entry %d:\n%s", start, res.stderr)

	if code, stderr := faucet(t, dir, "run", "faucet.yaml", "--quiet"); code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	got := srv.c.LRange(ctx, "out", 0, -1).Val()
	if len(got) != n-start {
		t.Fatalf("rerun wrote %d records, want %d (entries %d..%d)", len(got), n-start, start+1, n)
	}
	for i, s := range got {
		if want := fmt.Sprintf(`{"id":"%d-1","fields":{"n":%d}}`, start+i+1, start+i+1); s != want {
			t.Fatalf("out[%d] = %s, want %s", i, s, want)
		}
	}
}

// The state store is the Redis that dies: a private server without
// persistence killed and restarted mid-run loses every bookmark. The
// state save is retried (the restarted server takes it) or the run fails
// and the rerun starts from the sink's commit token, which is ahead of
// the empty state: either way every entry lands exactly once.
func TestKillRedisStateStoreMidRunExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("long load")
	}
	url, c := sharedRedis(t)
	name := uniqueName(t, c)
	srv := startPrivateRedis(t, false)
	const n = 100_000
	addEntries(t, c, name+"-in", 1, n)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "faucet.yaml"), fmt.Sprintf(`version: 1
name: %[3]s
delivery: exactly_once
pipeline:
  source:
    type: redis
    config: {url: "%[1]s", source_type: {type: Stream, key: %[3]s-in}, batch_size: 20}
  sink:
    type: redis
    config: {url: "%[1]s", sink_type: {type: List, key: %[3]s-out}}
  state:
    type: redis
    config: {url: "%[2]s"}
`, url, srv.url, name))
	ctx := context.Background()
	stateKey := "faucet:" + name + "::row-0"
	res := killMidRun(t, dir, srv, func() bool {
		return srv.c.Exists(ctx, stateKey).Val() == 1 && c.LLen(ctx, name+"-out").Val() >= 3000
	})
	if res.code != 0 {
		t.Logf("the run failed across the restart (exit %d):\n%s", res.code, res.stderr)
		if srv.c.Exists(ctx, stateKey).Val() != 0 {
			t.Logf("state after the failure: %s", srv.c.Get(ctx, stateKey).Val())
		}
		if code, stderr := faucet(t, dir, "run", "faucet.yaml", "--quiet"); code != 0 {
			t.Fatalf("rerun: exit %d\n%s", code, stderr)
		}
	} else {
		t.Log("the run completed across the restart")
	}
	checkOnce(t, c, name+"-out", n)
}
