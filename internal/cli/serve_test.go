package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestServeFlagErrors(t *testing.T) {
	t.Setenv("FAUCET_DATA_DIR", t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "refusing to start without authentication"},
		{[]string{"serve", "--no-auth", "--listen", "0.0.0.0:0"}, "refusing --no-auth on non-loopback"},
		{[]string{"serve", "--auth-token", "abcd1234", "--read-token", "efgh5678"}, "choose one authentication mode"},
		{[]string{"serve", "--no-auth", "--auth-token", "abcd1234"}, "none of the others can be"},
		{[]string{"serve", "--no-auth", "--max-concurrent-runs", "0"}, "--max-concurrent-runs must be at least 1"},
		{[]string{"serve", "--no-auth", "--shutdown-grace-secs", "0"}, "--shutdown-grace-secs must be positive"},
		{[]string{"serve", "--no-auth", "--lease-ttl-secs", "0"}, "--lease-ttl-secs must be positive"},
		{[]string{"serve", "--no-auth", "--history", "mysql://x"}, "want memory, sqlite:PATH or postgres://"},
		{[]string{"serve", "--auth-config", "/nonexistent/auth.yaml"}, "auth config"},
		{[]string{"serve", "--no-auth", "--cluster"}, "--cluster needs a shared Postgres run history (--history postgres://...), not the default SQLite file"},
		{[]string{"serve", "--no-auth", "--cluster", "--history", "memory"}, `--cluster needs a shared Postgres run history (--history postgres://...), not "memory"`},
		{[]string{"serve", "--no-auth", "--cluster", "--history", "sqlite:/tmp/x.db"}, `not "sqlite:/tmp/x.db"`},
		{[]string{"serve", "--no-auth", "--cluster-poll-secs", "0"}, "--cluster-poll-secs must be positive"},
		{[]string{"serve", "--no-auth", "--cluster-max-attempts", "0"}, "--cluster-max-attempts must be positive"},
	} {
		var stderr bytes.Buffer
		code := Main(context.Background(), c.args, strings.NewReader(""), io.Discard, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr.String(), c.want)
		}
	}
}

var (
	serveBinOnce sync.Once
	serveBin     string
	serveBinErr  error
)

// faucetBin builds ./cmd/faucet once.
func faucetBin(t *testing.T) string {
	t.Helper()
	serveBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "faucet-serve-test-")
		if err != nil {
			serveBinErr = err
			return
		}
		serveBin = filepath.Join(dir, "faucet")
		cmd := exec.Command("go", "build", "-o", serveBin, "./cmd/faucet")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			serveBinErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if serveBinErr != nil {
		t.Fatalf("build faucet: %v", serveBinErr)
	}
	return serveBin
}

type serveProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	stderr *syncBuffer
	done   chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe starts `faucet serve` on a free port and waits for its
// listening line.
func startServe(t *testing.T, env []string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(faucetBin(t), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	sb := &syncBuffer{}
	cmd.Stderr = io.MultiWriter(sb, pw) // sb first: the scanner may signal before a later writer sees the chunk
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{t: t, cmd: cmd, stderr: sb, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); pw.Close() }()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if _, addr, ok := strings.Cut(sc.Text(), "listening on "); ok {
				found <- strings.Fields(addr)[0]
			}
		}
		close(found)
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			t.Fatalf("serve exited: %s", sb.String())
		}
		p.base = addr
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not start: %s", sb.String())
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *serveProc) call(method, path, token string, body any) (int, map[string]any) {
	p.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, p.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

func (p *serveProc) waitRun(id, token string, want func(string) bool) map[string]any {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		code, m := p.call("GET", "/v1/runs/"+id, token, nil)
		if code == 200 && want(m["status"].(string)) {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("run %s: timed out; server log:\n%s", id, p.stderr.String())
	return nil
}

func terminal(s string) bool { return s == "completed" || s == "failed" || s == "cancelled" }

// TestServeProcess starts a real faucet serve, submits a csv→jsonl
// pipeline, waits for it, reads its logs and stops the server with SIGTERM.
func TestServeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.csv"), filepath.Join(dir, "out", "result.jsonl")
	os.WriteFile(in, []byte("id,name\n1,a\n2,b\n3,c\n"), 0o644)
	const tok = "serve-process-token"
	p := startServe(t, []string{"FAUCET_DATA_DIR=" + filepath.Join(dir, "data"), "FAUCET_SERVE_AUTH_TOKEN=" + tok})
	if !strings.Contains(p.stderr.String(), "run history sqlite:"+filepath.Join(dir, "data", "history.db")) {
		t.Fatalf("history location not printed: %s", p.stderr.String())
	}
	cfg := fmt.Sprintf("version: 1\nname: e2e\npipeline:\n  source:\n    type: csv\n    config: {path: %q}\n  sink:\n    type: jsonl\n    config: {path: %q}\n", in, out)
	code, m := p.call("POST", "/v1/runs", tok, map[string]any{"config": cfg})
	if code != 202 {
		t.Fatalf("submit: %d %v", code, m)
	}
	id := m["run_id"].(string)
	rec := p.waitRun(id, tok, terminal)
	if rec["status"] != "completed" || rec["records_written"] != float64(3) {
		t.Fatalf("run: %v\n%s", rec, p.stderr.String())
	}
	if b, err := os.ReadFile(out); err != nil || strings.Count(string(b), "\n") != 3 {
		t.Fatalf("output: %v %q", err, b)
	}
	req, _ := http.NewRequest("GET", p.base+"/v1/runs/"+id+"/logs?format=text", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(logs), "pipeline run starting") {
		t.Fatalf("logs: %s", logs)
	}
	if code, _ := p.call("GET", "/v1/runs", "wrong", nil); code != 401 {
		t.Fatalf("bad token: %d", code)
	}
	if strings.Contains(p.stderr.String(), tok) {
		t.Fatal("token in the server log")
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, p.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	// the history survives the process
	var stdout bytes.Buffer
	if code := Main(context.Background(), []string{"history", "--history", "sqlite:" + filepath.Join(dir, "data", "history.db"), "--json"},
		strings.NewReader(""), &stdout, io.Discard); code != 0 || !strings.Contains(stdout.String(), id) {
		t.Fatalf("history after exit: %d %s", code, stdout.String())
	}
}

// TestServeCrashRecovery kills the server with SIGKILL while a run is
// running; a restart on the same SQLite file fails that run with the lease
// reason, keeps the rest of the history and accepts new runs.
func TestServeCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "never.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("a\n1\n"), 0o644)
	hist := "sqlite:" + filepath.Join(dir, "h.db")
	const tok = "crash-test-token"
	args := []string{"--history", hist, "--auth-token", tok, "--lease-ttl-secs", "1"}
	pipeline := func(src string) string {
		return fmt.Sprintf("version: 1\npipeline:\n  source:\n    type: csv\n    config: {path: %q}\n  sink:\n    type: jsonl\n    config: {path: %q}\n",
			src, filepath.Join(dir, "out.jsonl"))
	}
	p := startServe(t, nil, args...)
	_, done := p.call("POST", "/v1/runs", tok, map[string]any{"config": pipeline(in)})
	doneID := done["run_id"].(string)
	p.waitRun(doneID, tok, terminal)
	_, stuck := p.call("POST", "/v1/runs", tok, map[string]any{"config": pipeline(fifo)})
	stuckID := stuck["run_id"].(string)
	p.waitRun(stuckID, tok, func(s string) bool { return s == "running" })
	p.cmd.Process.Kill()
	<-p.done

	p2 := startServe(t, nil, args...)
	rec := p2.waitRun(stuckID, tok, terminal)
	if rec["status"] != "failed" || !strings.Contains(rec["error"].(string), "lease expired") {
		t.Fatalf("orphan: %v", rec)
	}
	if _, m := p2.call("GET", "/v1/runs/"+doneID, tok, nil); m["status"] != "completed" {
		t.Fatalf("earlier run: %v", m)
	}
	_, m := p2.call("POST", "/v1/runs", tok, map[string]any{"config": pipeline(in)})
	if r := p2.waitRun(m["run_id"].(string), tok, terminal); r["status"] != "completed" {
		t.Fatalf("new run after restart: %v", r)
	}
	p2.cmd.Process.Signal(syscall.SIGTERM)
	<-p2.done
}
