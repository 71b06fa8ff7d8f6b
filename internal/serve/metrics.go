package serve

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/faucet-hq/faucet/internal/cluster"
)

// metrics are the faucet_serve_* series of reference §9 that this server
// has, on a registry of their own (several servers in one test process).
type metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	runsSubmitted   prometheus.Counter
	runsFinished    *prometheus.CounterVec
	runDuration     *prometheus.HistogramVec
	idemHits        prometheus.Counter
	logLines        prometheus.Counter
	logsDropped     *prometheus.CounterVec
	logsPurged      prometheus.Counter
}

func newMetrics(s *Server, version string, clusterMetrics *cluster.Metrics) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "faucet_serve_requests_total", Help: "HTTP requests by method, matched route and status.",
	}, []string{"method", "path", "status"})
	m.requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "faucet_serve_request_duration_seconds", Help: "HTTP request latency by method and matched route.",
		Buckets: prometheus.DefBuckets,
	}, []string{"method", "path"})
	m.runsSubmitted = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_runs_submitted_total", Help: "Runs accepted (idempotent replays excluded).",
	})
	m.runsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "faucet_serve_runs_total", Help: "Terminal runs by status and reason.",
	}, []string{"status", "reason"})
	m.runDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "faucet_serve_run_duration_seconds", Help: "Run wall time from start (or submit) to finish.",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
	}, []string{"status"})
	m.idemHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_idempotency_hits_total", Help: "Idempotent replays.",
	})
	m.logLines = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_run_log_lines_total", Help: "Run log lines persisted.",
	})
	m.logsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "faucet_serve_run_logs_dropped_total", Help: "Run log lines not persisted, by reason.",
	}, []string{"reason"})
	m.logsPurged = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_run_logs_purged_total", Help: "Persisted run log lines purged by retention.",
	})
	for _, reason := range []string{"queue_full", "backend_error", "per_run_cap"} {
		m.logsDropped.WithLabelValues(reason)
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	m.reg.MustRegister(m.requests, m.requestDuration, m.runsSubmitted, m.runsFinished, m.runDuration,
		m.idemHits, m.logLines, m.logsDropped, m.logsPurged,
		gauge("faucet_serve_runs_queued", "Runs waiting for an execution slot.", func() float64 { return float64(s.runner.Queued()) }),
		gauge("faucet_serve_runs_in_flight", "Runs executing.", func() float64 { return float64(s.runner.InFlight()) }),
		gauge("faucet_serve_history_degraded", "1 while the run history serves from its in-memory fallback.", func() float64 {
			if s.history.Degraded() {
				return 1
			}
			return 0
		}),
		gauge("faucet_serve_cluster_enabled", "1 in cluster mode.", func() float64 {
			if clusterMetrics != nil {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "faucet_build_info", Help: "Build information.",
			ConstLabels: prometheus.Labels{"version": version}}, func() float64 { return 1 }),
		collectors.NewGoCollector(),
	)
	if clusterMetrics != nil {
		m.reg.MustRegister(clusterMetrics.Collectors()...)
	}
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// observe wraps h to count requests under the route template path.
func (m *metrics) observe(path string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		m.requests.WithLabelValues(r.Method, path, strconv.Itoa(sw.status)).Inc()
		m.requestDuration.WithLabelValues(r.Method, path).Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status; it keeps http.Flusher for SSE.
type statusWriter struct {
	http.ResponseWriter
	status  int
	written bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.written {
		w.status, w.written = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.written = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
