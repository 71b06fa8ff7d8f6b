package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/faucet-hq/faucet/connector"
	_ "github.com/faucet-hq/faucet/connectors/all"
	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/memory"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	readTok  = "viewer-token-0123"
	writeTok = "operator-token-4567"
	adminTok = "admin-token-89ab"
)

// testRegistry is the default connectors plus "slow": a source that emits
// one record every delay_ms until it has emitted pages records (0 = until
// cancelled).
func testRegistry() *connector.Registry {
	reg := connector.NewRegistry()
	for _, s := range connector.Default.Sources() {
		reg.AddSource(s)
	}
	for _, s := range connector.Default.Sinks() {
		reg.AddSink(s)
	}
	for _, s := range connector.Default.Transforms() {
		reg.AddTransform(s)
	}
	reg.AddSource(connector.SourceSpec{Name: "slow", Summary: "test source", Config: &slowConfig{},
		New: func(cfg connector.Config) (connector.Source, error) {
			c := &slowConfig{}
			if err := cfg.Decode(c); err != nil {
				return nil, err
			}
			return &slowSource{cfg: *c}, nil
		}})
	return reg
}

type slowConfig struct {
	Pages   int `json:"pages"`
	DelayMS int `json:"delay_ms" default:"10"`
}

type slowSource struct {
	cfg slowConfig
	n   int
	log *slog.Logger
}

func (s *slowSource) Open(_ context.Context, o connector.SourceOptions) error {
	s.log = o.Logger
	return nil
}

func (s *slowSource) Next(ctx context.Context) (*connector.Page, error) {
	if s.cfg.Pages > 0 && s.n >= s.cfg.Pages {
		return nil, io.EOF
	}
	t := time.NewTimer(time.Duration(s.cfg.DelayMS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, io.EOF
	case <-t.C:
	}
	s.n++
	if s.log != nil {
		s.log.Info("slow page", "n", s.n)
	}
	r := connector.NewRecord(1)
	r.Fields = append(r.Fields, connector.Field{Key: "n", Value: connector.Int(int64(s.n))})
	return &connector.Page{Records: []connector.Record{r}}, nil
}

func (s *slowSource) Close() error { return nil }

type harness struct {
	t   *testing.T
	s   *Server
	ts  *httptest.Server
	h   history.RunHistory
	dir string
}

func newHarness(t *testing.T, mods ...func(*Config)) *harness {
	t.Helper()
	auth, err := TokenTrio(readTok, writeTok, adminTok)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		History: memory.New(history.Options{}), Auth: auth, Registry: testRegistry(),
		MaxConcurrentRuns: 2, MaxQueuedRuns: 4, ShutdownGrace: 2 * time.Second, FlushGrace: 2 * time.Second,
	}
	if testing.Verbose() {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	for _, m := range mods {
		m(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	hn := &harness{t: t, s: s, ts: httptest.NewServer(s.Handler()), h: cfg.History, dir: t.TempDir()}
	t.Cleanup(hn.close)
	return hn
}

func (hn *harness) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := hn.s.Shutdown(ctx); err != nil {
		hn.t.Errorf("shutdown: %v", err)
	}
	hn.ts.Close()
	_ = hn.h.Close()
}

type resp struct {
	code   int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

// errCode checks the envelope shape and returns its code.
func (r resp) errCode(t *testing.T) string {
	t.Helper()
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	if !ok || len(m) != 1 {
		t.Fatalf("not an error envelope: %s", r.body)
	}
	if _, ok := e["message"].(string); !ok {
		t.Fatalf("envelope without message: %s", r.body)
	}
	for k := range e {
		if k != "code" && k != "message" && k != "details" {
			t.Fatalf("unexpected envelope key %q: %s", k, r.body)
		}
	}
	code, _ := e["code"].(string)
	return code
}

func (hn *harness) do(method, path, token string, body any) resp {
	hn.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			hn.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, hn.ts.URL+path, rd)
	if err != nil {
		hn.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := hn.ts.Client().Do(req)
	if err != nil {
		hn.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return resp{code: res.StatusCode, header: res.Header, body: data}
}

// csvPipeline writes an input CSV of n rows and returns a csv→jsonl config.
func (hn *harness) csvPipeline(name string, n int) (cfg, out string) {
	in := filepath.Join(hn.dir, name+".csv")
	var b strings.Builder
	b.WriteString("id,name\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,row%d\n", i, i)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		hn.t.Fatal(err)
	}
	out = filepath.Join(hn.dir, name+".jsonl")
	return fmt.Sprintf("version: 1\nname: %s\npipeline:\n  source:\n    type: csv\n    config: {path: %q}\n  sink:\n    type: jsonl\n    config: {path: %q}\n", name, in, out), out
}

func slowPipeline(pages int) string {
	return fmt.Sprintf("version: 1\nname: slow\npipeline:\n  source:\n    type: slow\n    config: {pages: %d, delay_ms: 10}\n  sink:\n    type: stdout\n", pages)
}

// submit posts a run and returns the 202 body.
func (hn *harness) submit(body map[string]any) map[string]any {
	hn.t.Helper()
	r := hn.do("POST", "/v1/runs", writeTok, body)
	if r.code != http.StatusAccepted {
		hn.t.Fatalf("submit: %d %s", r.code, r.body)
	}
	return r.json(hn.t)
}

// wait polls a run until it is terminal.
func (hn *harness) wait(id string) map[string]any {
	hn.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		r := hn.do("GET", "/v1/runs/"+id, readTok, nil)
		if r.code != 200 {
			hn.t.Fatalf("get %s: %d %s", id, r.code, r.body)
		}
		m := r.json(hn.t)
		st, _ := m["status"].(string)
		if history.RunStatus(st).IsTerminal() {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	hn.t.Fatalf("run %s did not finish", id)
	return nil
}

// waitStatus polls until the run has status st.
func (hn *harness) waitStatus(id string, st history.RunStatus) {
	hn.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := hn.do("GET", "/v1/runs/"+id, readTok, nil)
		if m := r.json(hn.t); m["status"] == string(st) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	hn.t.Fatalf("run %s never reached %s", id, st)
}
