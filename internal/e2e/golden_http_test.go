package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// goldenAPI is the http service of a case: a small JSON API over the
// files of the case copy's api/ folder, read at request time (so a step's
// `before` can add pages between runs), and an endpoint that records what
// is POSTed to it.
//
//   - GET /<path>?<query> answers api/<path>.json without a query, else
//     api/<path>@<query>.json (the raw query, e.g. items@cursor=c2.json);
//     404 when the file does not exist.
//   - When api/bearer.txt exists, every request must carry
//     Authorization: Bearer <its trimmed content>, else 401.
//   - Any other method records the body (compacted when it is JSON) and
//     answers 200, unless the body contains "reject", which answers 400
//     with a JSON error and records nothing.
type goldenAPI struct {
	url string
	dir string
	mu  sync.Mutex
	got [][]byte
}

func newGoldenAPI(t *testing.T, dir string) *goldenAPI {
	t.Helper()
	a := &goldenAPI{dir: dir}
	srv := httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return a
}

func (a *goldenAPI) serve(w http.ResponseWriter, r *http.Request) {
	if tok, err := os.ReadFile(filepath.Join(a.dir, "bearer.txt")); err == nil {
		if r.Header.Get("Authorization") != "Bearer "+strings.TrimSpace(string(tok)) {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
	}
	if r.Method == http.MethodGet {
		a.get(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if bytes.Contains(body, []byte("reject")) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"record rejected"}`)
		return
	}
	var buf bytes.Buffer
	if json.Compact(&buf, body) != nil {
		buf.Reset()
		buf.Write(body)
	}
	a.mu.Lock()
	a.got = append(a.got, buf.Bytes())
	a.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (a *goldenAPI) get(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(cleanAPIPath(r.URL.Path), "/")
	if q := r.URL.RawQuery; q != "" {
		if uq, err := url.QueryUnescape(q); err == nil {
			q = uq
		}
		name += "@" + q
	}
	data, err := os.ReadFile(filepath.Join(a.dir, filepath.FromSlash(name)+".json"))
	if err != nil {
		http.Error(w, `{"error":"no such page: `+name+`"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// cleanAPIPath keeps a request path inside the api folder.
func cleanAPIPath(p string) string {
	return filepath.ToSlash(filepath.Clean("/" + p))
}

// received returns the recorded bodies, one per line.
func (a *goldenAPI) received() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []byte
	for _, b := range a.got {
		out = append(out, b...)
		out = append(out, '\n')
	}
	return out
}
