package clustertest

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"
)

// callbacks receives completion callbacks.
type callbacks struct {
	srv  *http.Server
	addr string
	mu   sync.Mutex
	got  map[string][]string // run id -> statuses, in arrival order
}

func newCallbacks(t *testing.T) *callbacks {
	c := &callbacks{got: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /cb", func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			RunID  string `json:"run_id"`
			Status string `json:"status"`
		}
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.RunID == "" {
			http.Error(w, "bad callback body", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.got[b.RunID] = append(c.got[b.RunID], b.Status)
		c.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	ln, err := listenLocal()
	if err != nil {
		t.Fatal(err)
	}
	c.addr = ln.Addr().String()
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = c.srv.Serve(ln) }()
	t.Cleanup(func() { c.srv.Close() })
	return c
}

func (c *callbacks) spec() map[string]any { return map[string]any{"url": "http://" + c.addr + "/cb"} }

func (c *callbacks) of(id string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got[id]...)
}

func (c *callbacks) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.got {
		n += len(v)
	}
	return n
}
