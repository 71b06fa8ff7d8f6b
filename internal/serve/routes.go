package serve

import (
	"net/http"
	"strings"

	"github.com/faucet-hq/faucet/internal/serve/ui"
)

// route is one entry of the route table: the Go 1.22 ServeMux pattern
// (method and path template), the permission it needs (permAdminOnly when
// the table has none: fail closed), the audit label used for denials, and
// whether it is public (never authenticated).
type route struct {
	method  string
	path    string
	perm    Permission
	label   string
	public  bool
	handler http.HandlerFunc
}

// routes declares every route this server has. Nothing else registers a
// handler on the mux.
func (s *Server) routes() []route {
	table := []route{
		{method: "GET", path: "/healthz", public: true, handler: s.handleHealthz},
		{method: "GET", path: "/readyz", public: true, handler: s.handleReadyz},
		{method: "GET", path: "/metrics", public: true, handler: s.metrics.handler().ServeHTTP},

		{method: "GET", path: "/v1/whoami", perm: PermIdentity, label: "whoami", handler: s.handleWhoami},
		{method: "POST", path: "/v1/runs", perm: PermRunWrite, label: "run.submit", handler: s.handleSubmit},
		{method: "GET", path: "/v1/runs", perm: PermRunRead, label: "run.list", handler: s.handleListRuns},
		{method: "GET", path: "/v1/runs/{id}", perm: PermRunRead, label: "run.get", handler: s.handleGetRun},
		{method: "DELETE", path: "/v1/runs/{id}", perm: PermRunWrite, label: "run.delete", handler: s.handleDeleteRun},
		{method: "POST", path: "/v1/runs/{id}/cancel", perm: PermRunWrite, label: "run.cancel", handler: s.handleCancelRun},
		{method: "GET", path: "/v1/runs/{id}/logs", perm: PermRunRead, label: "run.logs", handler: s.handleRunLogs},
		{method: "GET", path: "/v1/schemas", perm: PermSchemaRead, label: "schema.list", handler: s.handleListSchemas},
		{method: "GET", path: "/v1/schemas/{kind}/{name}", perm: PermSchemaRead, label: "schema.get", handler: s.handleGetSchema},
		{method: "POST", path: "/v1/doctor", perm: PermDoctor, label: "doctor", handler: s.handleDoctor},
		{method: "GET", path: "/v1/audit", perm: PermAuditRead, label: "audit.list", handler: s.handleListAudit},
		{method: "POST", path: "/v1/reload", perm: PermReload, label: "config.reload", handler: s.handleReload},
		{method: "GET", path: "/v1/cluster", perm: PermRunRead, label: "cluster.status", handler: s.handleCluster},
	}
	if !s.cfg.NoUI {
		table = append(table,
			route{method: "GET", path: "/{$}", public: true, handler: ui.Index},
			route{method: "GET", path: "/assets/{path...}", public: true, handler: func(w http.ResponseWriter, r *http.Request) {
				if !ui.Asset(w, r.PathValue("path")) {
					writeError(w, errNotFound())
				}
			}})
	}
	return table
}

// buildMux registers the table. Each handler is wrapped, inside out, by
// auth+RBAC (unless public) and the request metrics; an unmatched path gets
// the JSON 404 envelope (a /v1 path never reaches auth, as in the original).
func (s *Server) buildMux(table []route) *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range table {
		var h http.Handler = rt.handler
		if !rt.public {
			h = s.authorize(rt, h)
		}
		mux.Handle(rt.method+" "+rt.path, s.metrics.observe(rt.path, h))
	}
	mux.Handle("/", s.metrics.observe("<unmatched>", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A browser deep link outside /v1 gets the console shell.
		if !s.cfg.NoUI && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/v1/") &&
			strings.Contains(r.Header.Get("Accept"), "text/html") {
			ui.Index(w, r)
			return
		}
		writeError(w, errNotFound())
	})))
	return mux
}

// authorize resolves the bearer token (401, audited), checks the route's
// permission against the principal's role (403, audited) and attaches the
// caller.
func (s *Server) authorize(rt route, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		p, ok := s.auth.Resolve(r.Header.Get("Authorization"))
		if !ok {
			// A missing or wrong token is a denial too: audited, with no
			// principal to name.
			anon := caller{Principal: Principal{Name: "(unauthenticated)", Role: "none"}, SourceIP: sourceIP(r)}
			label := rt.label
			if label == "" {
				label = "unknown"
			}
			s.audit(r.Context(), anon, label, nil, nil, "unauthenticated")
			w.Header().Set("WWW-Authenticate", `Bearer realm="faucet"`)
			writeError(w, errUnauthorized())
			return
		}
		c := caller{Principal: p, SourceIP: sourceIP(r)}
		if !p.Role.Allows(rt.perm) {
			label := rt.label
			if label == "" {
				label = "unknown"
			}
			var runID *string
			if id := r.PathValue("id"); id != "" {
				runID = &id
			}
			s.logger.Warn("request denied", "principal", p.Name, "role", string(p.Role), "action", label)
			s.audit(r.Context(), c, label, runID, nil, "denied")
			writeError(w, errForbidden("principal '%s' (role %s) is not permitted to perform this action", p.Name, p.Role))
			return
		}
		next.ServeHTTP(w, r.WithContext(withCaller(r.Context(), c)))
	})
}
