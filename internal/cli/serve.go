package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/faucet-hq/faucet/internal/imagepages"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/internal/cluster"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/fallback"
	"github.com/faucet-hq/faucet/internal/history/memory"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
	"github.com/faucet-hq/faucet/internal/serve"
)

func init() { addVerb(newServeCmd) }

type serveFlags struct {
	listen                   string
	authToken                string
	readToken                string
	writeToken               string
	adminToken               string
	authConfig               string
	noAuth                   bool
	allowUnauthenticatedNet  bool
	maxConcurrent            int
	maxQueued                int
	defaultConfig            string
	historyURL               string
	bodyLimit                int64
	shutdownGraceSecs        int64
	retainTerminalSecs       int64
	idemRetentionSecs        int64
	logRetentionSecs         int64
	logMaxLinesPerRun        int
	leaseTTLSecs             int64
	probeTimeoutSecs         int64
	envFile                  string
	noEnvFile                bool
	noUI                     bool
	callbackAllowHosts       []string
	corsOrigins              []string
	httpShutdownTimeoutAfter time.Duration
	cluster                  bool
	clusterPollSecs          int64
	clusterMaxAttempts       int64
}

func newServeCmd(app *App) *cobra.Command {
	f := &serveFlags{httpShutdownTimeoutAfter: 30 * time.Second}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP control plane: submit pipelines over HTTP and keep their history",
		Long: `Serve the faucet HTTP API (/v1/runs, /v1/audit, /healthz, /readyz, /metrics).
Runs are queued, executed up to --max-concurrent-runs at a time and recorded in
the run history: by default a SQLite file in the data directory ($FAUCET_DATA_DIR,
$XDG_DATA_HOME/faucet or ~/.local/share/faucet), "memory" for a throwaway
server, sqlite:PATH or postgres://... One authentication mode is required.
With --cluster (Postgres history only) every instance started against the same
database shares the runs: any of them accepts a submission, one of them runs it,
and the runs of an instance that dies are taken over by the others.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return app.serve(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", envOr("FAUCET_SERVE_LISTEN", serve.DefaultListen), "address to listen on (env FAUCET_SERVE_LISTEN)")
	fl.StringVar(&f.authToken, "auth-token", "", "single bearer token with the admin role (env FAUCET_SERVE_AUTH_TOKEN)")
	fl.StringVar(&f.readToken, "read-token", "", "bearer token with the viewer role (env FAUCET_SERVE_READ_TOKEN)")
	fl.StringVar(&f.writeToken, "write-token", "", "bearer token with the operator role (env FAUCET_SERVE_WRITE_TOKEN)")
	fl.StringVar(&f.adminToken, "admin-token", "", "bearer token with the admin role (env FAUCET_SERVE_ADMIN_TOKEN)")
	fl.StringVar(&f.authConfig, "auth-config", "", "RBAC file: {principals: [{name, token, role}]}")
	fl.BoolVar(&f.noAuth, "no-auth", false, "serve without authentication (every caller is admin); loopback addresses only unless --allow-unauthenticated-network")
	fl.BoolVar(&f.allowUnauthenticatedNet, "allow-unauthenticated-network", false, "allow --no-auth on a non-loopback address")
	fl.IntVar(&f.maxConcurrent, "max-concurrent-runs", serve.DefaultMaxConcurrent(), "runs executing at once")
	fl.IntVar(&f.maxQueued, "max-queued-runs", 0, "runs waiting for a slot before submissions get 429 (default 8 × --max-concurrent-runs)")
	fl.StringVar(&f.defaultConfig, "default-config", "", "config merged under every submission (objects merge, scalars and arrays replace)")
	fl.StringVar(&f.historyURL, "history", envOr("FAUCET_HISTORY", ""), "run history: memory, sqlite:PATH or postgres://... (default: SQLite in the data directory; env FAUCET_HISTORY)")
	fl.Int64Var(&f.bodyLimit, "body-limit-bytes", serve.DefaultBodyLimit, "request body limit (413 above it)")
	fl.Int64Var(&f.shutdownGraceSecs, "shutdown-grace-secs", int64(serve.DefaultShutdownGrace/time.Second), "on SIGTERM/SIGINT, wait this long for runs to finish before cancelling them")
	fl.Int64Var(&f.retainTerminalSecs, "retain-terminal-runs-secs", int64(serve.DefaultRetainTerminal/time.Second), "purge finished runs (and audit entries) older than this")
	fl.Int64Var(&f.idemRetentionSecs, "idempotency-retention-secs", int64(serve.DefaultIdemRetention/time.Second), "idempotency key window; 0 disables deduplication")
	fl.Int64Var(&f.logRetentionSecs, "log-retention-secs", int64(serve.DefaultLogRetention/time.Second), "keep persisted run logs this long; 0 keeps no durable logs")
	fl.IntVar(&f.logMaxLinesPerRun, "log-max-lines-per-run", serve.DefaultLogMaxLinesPerRun, "persisted log lines per run before the log is truncated")
	fl.Int64Var(&f.probeTimeoutSecs, "probe-timeout-secs", 10, "time each connector's probes may take in POST /v1/doctor")
	fl.Int64Var(&f.leaseTTLSecs, "lease-ttl-secs", int64(serve.DefaultLeaseTTL/time.Second), "run lease; runs of a dead server are failed once it lapses")
	fl.StringVar(&f.envFile, "env-file", "", "load variables from this .env file at startup (default: ./.env if present)")
	fl.BoolVar(&f.noEnvFile, "no-env-file", false, "do not load any .env file")
	fl.BoolVar(&f.noUI, "no-ui", false, "do not serve the web console")
	fl.StringArrayVar(&f.callbackAllowHosts, "callback-allow-host", nil, "allow completion callbacks only to this host (repeatable); without it link-local and cloud-metadata targets are refused")
	fl.StringArrayVar(&f.corsOrigins, "cors-origin", nil, "allow browser requests from this origin (repeatable; CORS is off without it)")
	fl.BoolVar(&f.cluster, "cluster", false, "cluster mode: share the runs of a Postgres --history with the other instances started with --cluster (each run executes on one of them, with failover)")
	fl.Int64Var(&f.clusterPollSecs, "cluster-poll-secs", int64(cluster.DefaultPollInterval/time.Second), "cluster: how often to heartbeat, pick up cross-instance cancels and claim pending runs")
	fl.Int64Var(&f.clusterMaxAttempts, "cluster-max-attempts", cluster.DefaultMaxAttempts, "cluster: how many times a run whose instance died is requeued before it is failed as a poison run")
	cmd.MarkFlagsMutuallyExclusive("env-file", "no-env-file")
	cmd.MarkFlagsMutuallyExclusive("auth-config", "auth-token")
	cmd.MarkFlagsMutuallyExclusive("auth-config", "no-auth")
	cmd.MarkFlagsMutuallyExclusive("auth-token", "no-auth")
	return cmd
}

// serveAuth picks the one authentication mode.
func serveAuth(f *serveFlags) (*serve.Auth, string, error) {
	trio := f.readToken != "" || f.writeToken != "" || f.adminToken != ""
	modes := 0
	for _, on := range []bool{f.authToken != "", trio, f.authConfig != "", f.noAuth} {
		if on {
			modes++
		}
	}
	switch {
	case modes == 0:
		return nil, "", &usageError{errors.New("refusing to start without authentication: give --auth-token, --read-token/--write-token/--admin-token, --auth-config or --no-auth")}
	case modes > 1:
		return nil, "", &usageError{errors.New("choose one authentication mode: --auth-token, the token trio, --auth-config or --no-auth")}
	case f.noAuth:
		if !serve.IsLoopback(f.listen) && !f.allowUnauthenticatedNet {
			return nil, "", &usageError{fmt.Errorf("refusing --no-auth on non-loopback address %s: anyone who can reach it could run pipelines; add --allow-unauthenticated-network to do it anyway", f.listen)}
		}
		return serve.NoAuth(), "none", nil
	case f.authToken != "":
		a, err := serve.SingleToken(f.authToken)
		return a, "single token", err
	case trio:
		a, err := serve.TokenTrio(f.readToken, f.writeToken, f.adminToken)
		return a, "token trio", err
	}
	a, err := serve.LoadAuthConfig(f.authConfig)
	return a, "rbac file " + f.authConfig, err
}

func (f *serveFlags) validate(cmd *cobra.Command) error {
	checks := []struct {
		ok  bool
		msg string
	}{
		{f.maxConcurrent >= 1, "--max-concurrent-runs must be at least 1"},
		{!cmd.Flags().Changed("max-queued-runs") || f.maxQueued >= 1, "--max-queued-runs must be at least 1"},
		{f.shutdownGraceSecs > 0, "--shutdown-grace-secs must be positive"},
		{f.leaseTTLSecs > 0, "--lease-ttl-secs must be positive"},
		{f.probeTimeoutSecs > 0, "--probe-timeout-secs must be positive"},
		{f.retainTerminalSecs > 0, "--retain-terminal-runs-secs must be positive"},
		{f.idemRetentionSecs >= 0, "--idempotency-retention-secs must not be negative"},
		{f.logRetentionSecs >= 0, "--log-retention-secs must not be negative"},
		{f.logMaxLinesPerRun >= 1, "--log-max-lines-per-run must be at least 1"},
		{f.bodyLimit >= 1, "--body-limit-bytes must be at least 1"},
		{f.clusterPollSecs > 0, "--cluster-poll-secs must be positive"},
		{f.clusterMaxAttempts > 0 && f.clusterMaxAttempts <= 1<<31, "--cluster-max-attempts must be positive"},
	}
	for _, c := range checks {
		if !c.ok {
			return &usageError{errors.New(c.msg)}
		}
	}
	return nil
}

// openServeHistory opens --history. SQL stores go through the fallback
// wrapper: an unreachable database starts the server degraded (in-memory,
// /readyz 503) rather than failing it.
func openServeHistory(ctx context.Context, url string, opts history.Options) (history.RunHistory, string, error) {
	if url == "memory" {
		return memory.New(opts), "memory (lost on exit)", nil
	}
	label := "sqlite"
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		label = "postgres"
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "//")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path != ":memory:" {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return nil, "", fmt.Errorf("history directory: %w", err)
			}
		}
	default:
		return nil, "", &usageError{fmt.Errorf("--history %q: want memory, sqlite:PATH or postgres://...", redactText(url))}
	}
	connect := func(ctx context.Context) (history.RunHistory, error) {
		return sqlstore.OpenOptions(ctx, url, opts)
	}
	h, err := fallback.Connect(ctx, connect, opts, label)
	if err != nil && !history.IsRetriable(err) {
		_ = h.Close()
		return nil, "", fmt.Errorf("open history %s: %w", redactText(url), err)
	}
	if err != nil {
		return h, redactText(url) + " (unreachable: " + redactText(err.Error()) + ")", nil
	}
	return h, redactText(url), nil
}

// tokensFromEnv fills the token flags not given on the command line from
// their environment variables (not as flag defaults, which --help prints).
func tokensFromEnv(cmd *cobra.Command, f *serveFlags) {
	for flag, dst := range map[string]*string{"auth-token": &f.authToken, "read-token": &f.readToken,
		"write-token": &f.writeToken, "admin-token": &f.adminToken} {
		if !cmd.Flags().Changed(flag) {
			*dst = os.Getenv("FAUCET_SERVE_" + strings.ToUpper(strings.TrimSuffix(flag, "-token")) + "_TOKEN")
		}
	}
}

func (app *App) serve(cmd *cobra.Command, f *serveFlags) error {
	tokensFromEnv(cmd, f)
	if err := f.validate(cmd); err != nil {
		return err
	}
	if err := loadServeEnv(f); err != nil {
		return err
	}
	auth, authMode, err := serveAuth(f)
	if err != nil {
		return err
	}
	if f.noAuth && !serve.IsLoopback(f.listen) {
		app.Logger.Warn("AUTHENTICATION IS OFF on a network address: anyone who can reach " + f.listen + " can run pipelines")
	}
	url := f.historyURL
	if f.cluster && !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		shown := "the default SQLite file"
		if url != "" {
			shown = fmt.Sprintf("%q", redactText(url))
		}
		return &usageError{fmt.Errorf("--cluster needs a shared Postgres run history (--history postgres://...), not %s: "+
			"SQLite and memory histories belong to one process, so other instances could never see, claim or fence its runs", shown)}
	}
	if url == "" {
		url = defaultHistoryURL()
	}
	ctx, sig := withSignals(cmd.Context())
	defer sig.stop()

	instanceID := uuid.NewString()
	opts := history.Options{InstanceID: instanceID, LeaseTTL: time.Duration(f.leaseTTLSecs) * time.Second,
		IdemRetention: time.Duration(f.idemRetentionSecs) * time.Second}
	if f.idemRetentionSecs == 0 {
		opts.IdemRetention = -1
	}
	h, where, err := openServeHistory(cmd.Context(), url, opts)
	if err != nil {
		return err
	}
	defer h.Close()
	fmt.Fprintf(app.Stderr, "faucet serve: run history %s\n", where)
	fb, _ := h.(*fallback.Store)
	switch {
	case f.cluster:
		// Runs and leases must never be served from memory in a cluster.
		h = fb.Strict()
		fmt.Fprintf(app.Stderr, "faucet serve: cluster member %s\n", instanceID)
		if h.Degraded() {
			app.Logger.Error("run history unreachable: this cluster member accepts and claims no runs until it answers", "history", where)
		}
	case h.Degraded():
		app.Logger.Error("run history unreachable: serving degraded from memory until it answers", "history", where)
	}
	cfg := serve.Config{
		History: h, Auth: auth, Logger: app.Logger,
		MaxConcurrentRuns: f.maxConcurrent, MaxQueuedRuns: f.maxQueued, BodyLimitBytes: f.bodyLimit,
		DefaultConfigPath: f.defaultConfig,
		ShutdownGrace:     time.Duration(f.shutdownGraceSecs) * time.Second,
		RetainTerminal:    time.Duration(f.retainTerminalSecs) * time.Second,
		IdemRetention:     time.Duration(f.idemRetentionSecs) * time.Second,
		LogRetention:      time.Duration(f.logRetentionSecs) * time.Second,
		LogMaxLinesPerRun: f.logMaxLinesPerRun,
		LeaseTTL:          time.Duration(f.leaseTTLSecs) * time.Second,
		ProbeTimeout:      time.Duration(f.probeTimeoutSecs) * time.Second,
		Registry:          registry(), Version: Version,
		CallbackAllowHosts: f.callbackAllowHosts, CORSOrigins: f.corsOrigins, NoUI: f.noUI,
	}
	if f.idemRetentionSecs == 0 {
		cfg.IdemRetention = -1
	}
	if f.logRetentionSecs == 0 {
		cfg.LogRetention = -1
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", f.listen, err)
	}
	if f.cluster {
		cfg.Cluster = &serve.ClusterConfig{InstanceID: instanceID, Listen: ln.Addr().String(),
			PollInterval: time.Duration(f.clusterPollSecs) * time.Second, MaxAttempts: uint32(f.clusterMaxAttempts)}
	}
	srv, err := serve.New(cfg)
	if err != nil {
		ln.Close()
		return err
	}
	if fb != nil {
		go fb.Run(ctx, opts.LeaseTTL/3+time.Second)
	}
	srv.Start(cmd.Context())
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()
	fmt.Fprintf(app.Stderr, "faucet serve: listening on http://%s (auth: %s, %s)\n", ln.Addr(), authMode, srv)
	// Opening the history store, migrating it and building the router
	// used code the running server does not; give those pages back.
	imagepages.Release()

	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("http server: %w", err)
	}
	app.Logger.Info("shutting down: draining runs", "grace_secs", f.shutdownGraceSecs)
	if err := srv.Shutdown(context.Background()); err != nil {
		app.Logger.Warn("shutdown", "err", err)
	}
	hctx, cancel := context.WithTimeout(context.Background(), f.httpShutdownTimeoutAfter)
	defer cancel()
	if err := httpSrv.Shutdown(hctx); err != nil {
		app.Logger.Warn("http shutdown", "err", err)
	}
	<-served
	fmt.Fprintln(app.Stderr, "faucet serve: stopped")
	return nil
}

// loadServeEnv loads --env-file, else ./.env when present.
func loadServeEnv(f *serveFlags) error {
	if f.noEnvFile {
		return nil
	}
	path := f.envFile
	if path == "" {
		if _, err := os.Stat(".env"); err != nil {
			return nil
		}
		path = ".env"
	}
	return config.LoadEnvFile(path, setenvIfUnset)
}
