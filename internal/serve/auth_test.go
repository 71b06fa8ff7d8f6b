package serve

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRBACMatrix(t *testing.T) {
	hn := newHarness(t)
	roles := []struct {
		token, principal string
		role             Role
	}{{readTok, "read", RoleViewer}, {writeTok, "write", RoleOperator}, {adminTok, "admin", RoleAdmin}}
	denials := map[string]int{}
	for _, rt := range hn.s.routes() {
		path := strings.ReplaceAll(rt.path, "{id}", "no-such-run")
		if rt.public {
			if r := hn.do(rt.method, path, "", nil); r.code == 401 || r.code == 403 {
				t.Errorf("public %s %s: %d", rt.method, path, r.code)
			}
			continue
		}
		for _, tok := range []string{"", "wrong-token-000"} {
			if r := hn.do(rt.method, path, tok, nil); r.code != 401 || r.errCode(t) != CodeUnauthorized {
				t.Errorf("%s %s token %q: %d %s", rt.method, path, tok, r.code, r.body)
			}
		}
		for _, ro := range roles {
			r := hn.do(rt.method, path, ro.token, nil)
			allowed := ro.role.Allows(rt.perm)
			switch {
			case allowed && (r.code == 401 || r.code == 403):
				t.Errorf("%s %s as %s: denied %d %s", rt.method, path, ro.role, r.code, r.body)
			case !allowed && r.code != 403:
				t.Errorf("%s %s as %s: %d, want 403", rt.method, path, ro.role, r.code)
			case !allowed:
				if r.errCode(t) != CodeForbidden || !strings.Contains(string(r.body), "principal '"+ro.principal+"'") {
					t.Errorf("403 body: %s", r.body)
				}
				denials[ro.principal+" "+rt.label]++
			}
		}
	}
	if len(denials) == 0 {
		t.Fatal("no denial in the matrix")
	}
	entries := hn.do("GET", "/v1/audit?limit=1000", adminTok, nil).json(t)["entries"].([]any)
	got := map[string]int{}
	for _, e := range entries {
		m := e.(map[string]any)
		if m["result"] == "denied" {
			got[m["principal"].(string)+" "+m["action"].(string)]++
			if m["source_ip"] == nil || m["role"] == "" || m["id"] == "" || m["timestamp"] == nil {
				t.Errorf("audit entry incomplete: %v", m)
			}
		}
	}
	for k, n := range denials {
		if got[k] != n {
			t.Errorf("denial %q audited %d times, want %d", k, got[k], n)
		}
	}
	// requests without a valid token are audited as well
	unauth := 0
	for _, e := range entries {
		if m := e.(map[string]any); m["result"] == "unauthenticated" && m["principal"] == "(unauthenticated)" && m["source_ip"] != nil {
			unauth++
		}
	}
	if unauth == 0 {
		t.Error("no audit entry for requests without a valid token")
	}
	// denial on a run route carries the run id
	found := false
	for _, e := range entries {
		m := e.(map[string]any)
		if m["action"] == "run.delete" && m["run_id"] == "no-such-run" && m["result"] == "denied" {
			found = true
		}
	}
	if !found {
		t.Error("run.delete denial without run_id")
	}
}

func TestFailClosedRoute(t *testing.T) {
	hn := newHarness(t)
	called := false
	mux := hn.s.buildMux([]route{{method: "GET", path: "/v1/secret", handler: func(w http.ResponseWriter, r *http.Request) {
		called = true
		w.WriteHeader(204)
	}}})
	for tok, want := range map[string]int{readTok: 403, writeTok: 403, adminTok: 204} {
		req := httptest.NewRequest("GET", "/v1/secret", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("token %s: %d want %d", tok, w.Code, want)
		}
	}
	if !called {
		t.Error("admin not let through")
	}
	entries := hn.do("GET", "/v1/audit?action=unknown", adminTok, nil).json(t)["entries"].([]any)
	if len(entries) != 2 {
		t.Errorf("unmapped-route denials audited: %d", len(entries))
	}
}

func TestWhoamiHealthUnmatched(t *testing.T) {
	hn := newHarness(t)
	m := hn.do("GET", "/v1/whoami", writeTok, nil).json(t)
	if m["principal"] != "write" || m["role"] != "operator" || len(m["permissions"].([]any)) == 0 {
		t.Fatalf("whoami: %v", m)
	}
	for _, p := range m["permissions"].([]any) {
		if p == "audit_read" {
			t.Fatal("operator reports audit_read")
		}
	}
	if r := hn.do("GET", "/healthz", "", nil); r.code != 200 {
		t.Fatalf("healthz %d", r.code)
	}
	r := hn.do("GET", "/readyz", "", nil)
	rm := r.json(t)
	if r.code != 200 || rm["status"] != "ready" || rm["history_ok"] != true || rm["queue_ok"] != true ||
		rm["cluster"].(map[string]any)["enabled"] != false {
		t.Fatalf("readyz %d %s", r.code, r.body)
	}
	for _, p := range []string{"/v1/nope", "/nope", "/v1/runs/x/y"} {
		if r := hn.do("GET", p, "", nil); r.code != 404 || r.errCode(t) != CodeNotFound {
			t.Fatalf("%s: %d %s", p, r.code, r.body)
		}
	}
}

func TestAuthModes(t *testing.T) {
	a := NoAuth()
	if p, ok := a.Resolve(""); !ok || p.Name != "anonymous" || p.Role != RoleAdmin {
		t.Fatal("no-auth")
	}
	s, err := SingleToken("single-token-1")
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := s.Resolve("Bearer single-token-1"); !ok || p.Name != "token" || p.Role != RoleAdmin {
		t.Fatal("single token")
	}
	for _, h := range []string{"", "Bearer", "Bearer ", "bearer single-token-1", "Basic single-token-1", "Bearer single-token-2"} {
		if _, ok := s.Resolve(h); ok {
			t.Fatalf("accepted %q", h)
		}
	}
	if _, err := SingleToken(" "); err == nil {
		t.Fatal("empty token accepted")
	}
	if _, err := TokenTrio("same-token", "same-token", ""); err == nil {
		t.Fatal("duplicate token accepted")
	}
	dir := t.TempDir()
	t.Setenv("FAUCET_TEST_TOKEN", "from-env-token")
	path := filepath.Join(dir, "auth.yaml")
	os.WriteFile(path, []byte("principals:\n  - {name: ci, token: \"${env:FAUCET_TEST_TOKEN}\", role: operator}\n  - {name: ops, token: literal-token, role: admin}\n"), 0o600)
	fa, err := LoadAuthConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := fa.Resolve("Bearer from-env-token"); !ok || p.Name != "ci" || p.Role != RoleOperator {
		t.Fatal("auth config env token")
	}
	for _, bad := range []string{
		"principals: []\n",
		"principals:\n  - {name: a, token: t1234, role: root}\n",
		"principals:\n  - {name: a, token: \"x${env:NOPE_NOT_SET}\", role: admin}\n",
		"principals:\n  - {name: a, token: t1234, role: admin, extra: 1}\n",
		"principals:\n  - {name: a, token: t1234, role: admin}\n  - {name: a, token: t5678, role: admin}\n",
	} {
		os.WriteFile(path, []byte(bad), 0o600)
		if _, err := LoadAuthConfig(path); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "[::1]:80": true, "localhost:1": true,
		"0.0.0.0:8080": false, ":8080": false, "10.0.0.1:80": false, "bad": false} {
		if IsLoopback(addr) != want {
			t.Errorf("IsLoopback(%q) != %v", addr, want)
		}
	}
}

func TestSchemas(t *testing.T) {
	hn := newHarness(t)
	m := hn.do("GET", "/v1/schemas", readTok, nil).json(t)
	found := false
	for _, s := range m["sources"].([]any) {
		found = found || s.(map[string]any)["name"] == "csv"
	}
	if !found || len(m["sinks"].([]any)) == 0 || m["state"] == nil {
		t.Fatalf("schemas: %v", m)
	}
	r := hn.do("GET", "/v1/schemas/source/csv", readTok, nil)
	if sch := r.json(t); r.code != 200 || sch["title"] != "csv" || sch["properties"] == nil {
		t.Fatalf("csv schema: %d %s", r.code, r.body)
	}
	for _, p := range []string{"/v1/schemas/source/nope", "/v1/schemas/widget/csv"} {
		if r := hn.do("GET", p, readTok, nil); r.code != 404 || r.errCode(t) != CodeNotFound {
			t.Fatalf("%s: %d", p, r.code)
		}
	}
}
