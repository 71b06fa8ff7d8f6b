package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/cluster"
	"github.com/faucet-hq/faucet/internal/history"
)

// Defaults of the serve flags (reference §7).
const (
	DefaultListen            = "127.0.0.1:8080"
	DefaultBodyLimit         = 1 << 20
	DefaultShutdownGrace     = 60 * time.Second
	DefaultRetainTerminal    = 604800 * time.Second
	DefaultIdemRetention     = 86400 * time.Second
	DefaultLogRetention      = 604800 * time.Second
	DefaultLogMaxLinesPerRun = 100000
	DefaultLeaseTTL          = 30 * time.Second
	// RunFlushGrace is how long a cancelled, timed-out or shut-down run may
	// take to flush at its next page boundary before it is abandoned.
	RunFlushGrace = 30 * time.Second
	// LogRingLines is the per-run in-memory ring for live readers.
	LogRingLines = 10000
	// LogDrain is how long a finished run's ring stays for late readers.
	LogDrain = 60 * time.Second
)

// DefaultMaxConcurrent is min(16, CPUs), at least 1.
func DefaultMaxConcurrent() int {
	n := runtime.NumCPU()
	if n > 16 {
		n = 16
	}
	if n < 1 {
		n = 1
	}
	return n
}

// Config configures a Server. Zero values take the defaults above.
type Config struct {
	History history.RunHistory
	// Auth is required: NoAuth(), SingleToken, TokenTrio or LoadAuthConfig.
	Auth   *Auth
	Logger *slog.Logger

	MaxConcurrentRuns int
	MaxQueuedRuns     int // default 8 × MaxConcurrentRuns
	BodyLimitBytes    int64

	// DefaultConfigPath is --default-config: merged under every submission.
	DefaultConfigPath string

	ShutdownGrace     time.Duration
	FlushGrace        time.Duration // default RunFlushGrace
	RetainTerminal    time.Duration
	IdemRetention     time.Duration // negative: dedup disabled (the flag's 0)
	LogRetention      time.Duration // negative: no durable logs (the flag's 0)
	LogMaxLinesPerRun int
	LeaseTTL          time.Duration
	// ProbeTimeout bounds each connector's probes in POST /v1/doctor
	// (default 10 s).
	ProbeTimeout time.Duration

	// Registry is the connector set (default connector.Default).
	Registry *connector.Registry
	// Getenv resolves ${env:X} in submissions (default os.LookupEnv minus
	// the server's own credential variables).
	Getenv  func(string) (string, bool)
	Version string
	// CallbackAllowHosts is --callback-allow-host: when set, callbacks may
	// only target these hosts (exact match) and the link-local guard is off.
	CallbackAllowHosts []string
	// CORSOrigins is --cors-origin; CORS is off when empty.
	CORSOrigins []string
	// NoUI is --no-ui: no web console.
	NoUI bool
	// Cluster enables cluster Mode A (--cluster) when set. History must
	// then be a shared store that never serves runs or leases from memory
	// (fallback.Store.Strict over Postgres).
	Cluster *ClusterConfig
}

// ClusterConfig is the --cluster part of the configuration.
type ClusterConfig struct {
	// InstanceID is the owner id the history store stamps (history.Options).
	InstanceID string
	// Listen is the address heartbeated into the membership table.
	Listen string
	// PollInterval is --cluster-poll-secs (default 2 s).
	PollInterval time.Duration
	// MaxAttempts is --cluster-max-attempts (default 3).
	MaxAttempts uint32
}

// Server is the faucet serve control plane.
type Server struct {
	cfg     Config
	history history.RunHistory
	auth    *Auth
	logger  *slog.Logger
	metrics *metrics
	runner  *Runner
	// node is the cluster member (nil unless --cluster).
	node    *cluster.Node
	logs    *logHub
	handler http.Handler
	// callbacks is the completion-callback HTTP client.
	callbacks *http.Client

	defaults atomic.Pointer[defaultConfig]

	closing   chan struct{}
	closeOnce sync.Once
	loops     sync.WaitGroup
	started   atomic.Bool
}

// New builds a server; Start launches its background loops.
func New(cfg Config) (*Server, error) {
	if cfg.History == nil {
		return nil, errors.New("serve: no run history")
	}
	if cfg.Auth == nil {
		return nil, errors.New("refusing to start without authentication: give --auth-token, --read-token/--write-token/--admin-token, --auth-config or --no-auth")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.MaxConcurrentRuns <= 0 {
		cfg.MaxConcurrentRuns = DefaultMaxConcurrent()
	}
	if cfg.MaxQueuedRuns <= 0 {
		cfg.MaxQueuedRuns = 8 * cfg.MaxConcurrentRuns
	}
	if cfg.BodyLimitBytes <= 0 {
		cfg.BodyLimitBytes = DefaultBodyLimit
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.FlushGrace <= 0 {
		cfg.FlushGrace = RunFlushGrace
	}
	if cfg.RetainTerminal <= 0 {
		cfg.RetainTerminal = DefaultRetainTerminal
	}
	if cfg.IdemRetention == 0 {
		cfg.IdemRetention = DefaultIdemRetention
	}
	if cfg.LogRetention == 0 {
		cfg.LogRetention = DefaultLogRetention
	}
	if cfg.LogMaxLinesPerRun <= 0 {
		cfg.LogMaxLinesPerRun = DefaultLogMaxLinesPerRun
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.Registry == nil {
		cfg.Registry = connector.Default
	}
	if cfg.Getenv == nil {
		cfg.Getenv = serverGetenv
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg, history: cfg.History, auth: cfg.Auth, logger: cfg.Logger, closing: make(chan struct{})}
	if cfg.DefaultConfigPath != "" {
		d, err := readDefaultConfig(cfg.DefaultConfigPath)
		if err != nil {
			return nil, err
		}
		s.defaults.Store(d)
	}
	s.callbacks = s.callbackClient()
	s.runner = newRunner(s)
	var clusterMetrics *cluster.Metrics
	if c := cfg.Cluster; c != nil {
		clusterMetrics = cluster.NewMetrics()
		node, err := cluster.New(cluster.Config{Store: cfg.History, Runs: cfg.History, InstanceID: c.InstanceID,
			Listen: c.Listen, Capacity: cfg.MaxConcurrentRuns, PollInterval: c.PollInterval, LeaseTTL: cfg.LeaseTTL,
			MaxAttempts: c.MaxAttempts, Logger: cfg.Logger, Metrics: clusterMetrics}, clusterExecutor{s.runner})
		if err != nil {
			return nil, err
		}
		s.node = node
	}
	s.metrics = newMetrics(s, cfg.Version, clusterMetrics)
	s.logs = newLogHub(s)
	mux := s.buildMux(s.routes())
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cors(w, r) {
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, cfg.BodyLimitBytes)
		}
		mux.ServeHTTP(w, r)
	})
	return s, nil
}

// cors applies --cors-origin: an allowed Origin is echoed back, and a
// preflight is answered here (methods and the Authorization header allowed;
// the original configured only the origin, so browsers' preflights for a
// bearer token failed). It reports whether the request was fully answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || len(s.cfg.CORSOrigins) == 0 {
		return false
	}
	allowed := false
	for _, o := range s.cfg.CORSOrigins {
		allowed = allowed || o == origin
	}
	w.Header().Add("Vary", "Origin")
	if !allowed {
		return false
	}
	w.Header().Set("Access-Control-Allow-Origin", origin)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		w.Header().Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

// serverGetenv hides the server's own credentials from ${env:X}.
func serverGetenv(name string) (string, bool) {
	switch name {
	case "FAUCET_SERVE_AUTH_TOKEN", "FAUCET_SERVE_READ_TOKEN", "FAUCET_SERVE_WRITE_TOKEN",
		"FAUCET_SERVE_ADMIN_TOKEN", "FAUCET_VAULT_KEY":
		return "", false
	}
	return os.LookupEnv(name)
}

// Handler is the HTTP handler: body limit outermost, then the route table.
func (s *Server) Handler() http.Handler { return s.handler }

// Start recovers orphans left by a dead process (runs queued or running
// whose lease expired are failed with the lease reason) and starts the
// lease, maintenance and log-writer loops. In cluster mode the cluster node
// replaces orphan recovery and the lease loop: it requeues what dead members
// left and starts claiming.
func (s *Server) Start(ctx context.Context) {
	if !s.started.CompareAndSwap(false, true) {
		return
	}
	if s.node != nil {
		s.logs.start()
		s.node.Start(ctx)
		s.loop(maintenanceInterval(s.cfg.RetainTerminal, s.cfg.IdemRetention), s.maintenanceTick)
		return
	}
	if n, err := s.history.RecoverOrphans(ctx); err != nil {
		s.logger.Warn("orphan recovery failed", "err", err)
	} else if n > 0 {
		s.logger.Warn("failed runs left behind by a dead serve process", "runs", n)
	}
	s.logs.start()
	s.loop(leaseInterval(s.cfg.LeaseTTL), s.leaseTick)
	s.loop(maintenanceInterval(s.cfg.RetainTerminal, s.cfg.IdemRetention), s.maintenanceTick)
}

func leaseInterval(ttl time.Duration) time.Duration {
	if d := ttl / 3; d > time.Second {
		return d
	}
	return time.Second
}

func maintenanceInterval(retain, idem time.Duration) time.Duration {
	d := retain
	if idem > 0 && idem < d {
		d = idem
	}
	d /= 4
	if d < time.Minute {
		d = time.Minute
	}
	if d > time.Hour {
		d = time.Hour
	}
	return d
}

// loop runs tick every interval (first tick skipped) until shutdown.
func (s *Server) loop(interval time.Duration, tick func(ctx context.Context)) {
	s.loops.Add(1)
	go func() {
		defer s.loops.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.closing:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), interval)
				tick(ctx)
				cancel()
			}
		}
	}()
}

func (s *Server) leaseTick(ctx context.Context) {
	if _, err := s.history.RenewLeases(ctx); err != nil {
		s.logger.Warn("lease renewal failed", "err", err)
	}
	if n, err := s.history.RecoverOrphans(ctx); err != nil {
		s.logger.Warn("orphan recovery failed", "err", err)
	} else if n > 0 {
		s.logger.Warn("failed orphaned runs whose lease expired", "runs", n)
	}
}

func (s *Server) maintenanceTick(ctx context.Context) {
	if n, err := s.history.PurgeExpired(ctx, s.cfg.RetainTerminal); err != nil {
		s.logger.Warn("retention purge failed", "err", err)
	} else if n > 0 {
		s.logger.Info("purged expired runs", "runs", n)
	}
	if s.cfg.LogRetention > 0 {
		n, err := s.history.PurgeRunLogs(ctx, s.cfg.LogRetention)
		if err != nil {
			s.logger.Warn("run log purge failed", "err", err)
		}
		s.metrics.logsPurged.Add(float64(n))
	}
}

// Shutdown stops accepting runs, waits up to the shutdown grace for queued
// and running runs to drain, then cancels the rest (queued runs fail with
// server_shutdown at once, running runs get the flush grace), ends live log
// streams and stops the background loops. The caller shuts the HTTP server
// down afterwards and closes the history.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.node != nil {
		s.node.StopClaiming()
	}
	err := s.runner.shutdown(ctx, s.cfg.ShutdownGrace, s.cfg.FlushGrace)
	s.callbacks.CloseIdleConnections()
	s.closeOnce.Do(func() { close(s.closing) })
	if s.node != nil {
		s.node.Close()
	}
	s.loops.Wait()
	s.logs.close()
	return err
}

// Runner exposes the run queue (tests, metrics).
func (s *Server) Runner() *Runner { return s.runner }

func (s *Server) now() time.Time { return time.Now().UTC() }

// Cluster is the cluster member (nil unless --cluster).
func (s *Server) Cluster() *cluster.Node { return s.node }

// String describes the server for the startup log.
func (s *Server) String() string {
	out := fmt.Sprintf("max_concurrent_runs=%d max_queued_runs=%d", s.cfg.MaxConcurrentRuns, s.cfg.MaxQueuedRuns)
	if s.node != nil {
		st := s.node.Status()
		out += fmt.Sprintf(" cluster_member=%s poll=%gs lease_ttl=%gs max_attempts=%d", st.InstanceID, st.PollSecs, st.LeaseTTL, st.MaxAttempts)
	}
	return out
}
