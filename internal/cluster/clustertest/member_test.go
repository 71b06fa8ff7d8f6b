package clustertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// member is one `faucet serve --cluster` process.
type member struct {
	e      *env
	name   string
	cmd    *exec.Cmd
	base   string // http://host:port
	id     string // cluster instance id
	stderr *lineBuffer
	exited chan struct{}
	err    error
}

// start launches a member with the common flags plus extra, against history
// (the test database unless given), and waits until it listens.
func (e *env) start(name, history string, extra ...string) *member {
	e.t.Helper()
	if history == "" {
		history = e.pgURL
	}
	args := []string{"serve", "--cluster", "--no-auth", "--no-env-file", "--no-ui",
		"--listen", "127.0.0.1:0", "--history", history,
		"--lease-ttl-secs", fmt.Sprint(leaseTTLSecs), "--cluster-poll-secs", fmt.Sprint(pollSecs),
		"--max-concurrent-runs", "4", "--shutdown-grace-secs", "5"}
	args = append(args, extra...)
	cmd := exec.Command(faucetBin, args...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), "FAUCET_DATA_DIR="+filepath.Join(e.dir, "data-"+name), "FAUCET_LOG=info")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	m := &member{e: e, name: name, cmd: cmd, stderr: &lineBuffer{}, exited: make(chan struct{})}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			m.stderr.add(line)
			if id, ok := strings.CutPrefix(line, "faucet serve: cluster member "); ok {
				m.stderr.setID(id)
			}
			if rest, ok := strings.CutPrefix(line, "faucet serve: listening on "); ok && !signalled {
				m.stderr.setBase(strings.Fields(rest)[0])
				signalled = true
				close(ready)
			}
		}
		m.err = cmd.Wait()
		if !signalled {
			close(ready)
		}
		close(m.exited)
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		m.kill()
		e.t.Fatalf("%s did not start listening:\n%s", name, m.stderr.tail(40))
	}
	m.base, m.id = m.stderr.get()
	if m.base == "" || m.id == "" {
		e.t.Fatalf("%s exited before listening (%v):\n%s", name, m.err, m.stderr.tail(40))
	}
	e.mu.Lock()
	e.members = append(e.members, m)
	e.mu.Unlock()
	return m
}

func (m *member) signal(sig syscall.Signal) {
	m.e.t.Helper()
	if err := m.cmd.Process.Signal(sig); err != nil {
		m.e.t.Fatalf("signal %s to %s: %v", sig, m.name, err)
	}
}

// kill -9s the member (resuming it first if it was stopped) and reaps it.
func (m *member) kill() {
	select {
	case <-m.exited:
		return
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGCONT)
	_ = m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.exited
}

// stop shuts the member down gracefully (SIGTERM) and waits for it: its
// queued callbacks are delivered before it exits.
func (m *member) stop() {
	m.e.t.Helper()
	select {
	case <-m.exited:
		return
	default:
	}
	m.signal(syscall.SIGTERM)
	select {
	case <-m.exited:
	case <-time.After(60 * time.Second):
		m.kill()
		m.e.t.Fatalf("%s did not stop on SIGTERM", m.name)
	}
}

// lineBuffer keeps a process's stderr lines.
type lineBuffer struct {
	mu    sync.Mutex
	lines []string
	base  string
	id    string
}

func (b *lineBuffer) add(l string) {
	b.mu.Lock()
	b.lines = append(b.lines, l)
	b.mu.Unlock()
}

func (b *lineBuffer) setID(id string) {
	b.mu.Lock()
	b.id = id
	b.mu.Unlock()
}

func (b *lineBuffer) setBase(addr string) {
	b.mu.Lock()
	b.base = addr
	b.mu.Unlock()
}

func (b *lineBuffer) get() (string, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.base, b.id
}

func (b *lineBuffer) tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	from := max(len(b.lines)-n, 0)
	return strings.Join(b.lines[from:], "\n")
}

func (b *lineBuffer) count(substr string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.lines {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// response is one HTTP answer.
type response struct {
	code int
	body []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("not JSON (%d): %s", r.code, r.body)
	}
	return v
}

func (m *member) do(method, path string, body any) response {
	m.e.t.Helper()
	r, err := m.try(method, path, body)
	if err != nil {
		m.e.t.Fatalf("%s %s on %s: %v", method, path, m.name, err)
	}
	return r
}

func (m *member) try(method, path string, body any) (response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, m.base+path, rd)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := m.e.client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, body: b}, err
}

// submission is the body of POST /v1/runs.
type submission struct {
	Config         string            `json:"config"`
	Labels         map[string]string `json:"labels,omitempty"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Callback       map[string]any    `json:"callback,omitempty"`
}

// submit posts s and returns the run id (202 expected).
func (m *member) submit(s submission) string {
	m.e.t.Helper()
	r := m.do("POST", "/v1/runs", s)
	if r.code != http.StatusAccepted {
		m.e.t.Fatalf("submit to %s: %d %s", m.name, r.code, r.body)
	}
	id, _ := r.json(m.e.t)["run_id"].(string)
	if id == "" {
		m.e.t.Fatalf("submit to %s: no run_id in %s", m.name, r.body)
	}
	return id
}

// shortRun copies the small CSV to the discarded stdout sink.
func (e *env) shortRun(labels map[string]string, key string) submission {
	cfg := fmt.Sprintf("version: 1\npipeline:\n  source: {type: csv, config: {path: %s}}\n  sink: {type: stdout}\n",
		filepath.Join(e.dir, "in.csv"))
	return submission{Config: cfg, Labels: labels, IdempotencyKey: key, Callback: e.hooks.spec()}
}

// slowApp is the application_name of the slow sources' sessions.
func (e *env) slowApp() string { return e.dbName + "_source" }

// slowRun streams rows from Postgres at the pace pg_sleep allows (about
// rows × 50 ms): a real, cancellable, throttled source. Its connection goes
// to the maintenance database directly, never through a test proxy.
func (e *env) slowRun(rows int, labels map[string]string) submission {
	u, err := url.Parse(e.baseURL)
	if err != nil {
		e.t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", e.slowApp())
	u.RawQuery = q.Encode()
	cfg := fmt.Sprintf(`version: 1
pipeline:
  source:
    type: postgres
    config:
      url: %q
      query: "SELECT n, pg_sleep(0.05)::text AS s FROM generate_series(1, %d) n"
      batch_size: 10
  sink: {type: stdout}
`, u.String(), rows)
	return submission{Config: cfg, Labels: labels, Callback: e.hooks.spec()}
}

// metric sums the samples of one series family on m (labels must contain
// all of match).
func (m *member) metric(name string, match ...string) float64 {
	m.e.t.Helper()
	r := m.do("GET", "/metrics", nil)
	sum := 0.0
	for _, line := range strings.Split(string(r.body), "\n") {
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, name) {
			continue
		}
		series, value, ok := strings.Cut(line, " ")
		if !ok || (series != name && !strings.HasPrefix(series, name+"{")) {
			continue
		}
		all := true
		for _, l := range match {
			all = all && strings.Contains(series, l)
		}
		if !all {
			continue
		}
		var v float64
		if _, err := fmt.Sscanf(value, "%g", &v); err == nil {
			sum += v
		}
	}
	return sum
}

// clusterView is GET /v1/cluster.
type clusterView struct {
	InstanceID string `json:"instance_id"`
	Instances  []struct {
		InstanceID string  `json:"instance_id"`
		Listen     *string `json:"listen"`
		Self       bool    `json:"self"`
	} `json:"instances"`
}

func (m *member) view() clusterView {
	m.e.t.Helper()
	var v clusterView
	r := m.do("GET", "/v1/cluster", nil)
	if r.code != 200 || json.Unmarshal(r.body, &v) != nil {
		m.e.t.Fatalf("GET /v1/cluster on %s: %d %s", m.name, r.code, r.body)
	}
	return v
}

func (v clusterView) has(id string) bool {
	for _, i := range v.Instances {
		if i.InstanceID == id {
			return true
		}
	}
	return false
}
