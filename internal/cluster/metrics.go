package cluster

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the cluster's Prometheus series (reference §9 plus this
// port's lease and fencing counters). Register Collectors on the server's
// registry.
type Metrics struct {
	claimed    prometheus.Counter
	reclaimed  *prometheus.CounterVec
	renewals   prometheus.Counter
	leasesLost prometheus.Counter
	fenced     *prometheus.CounterVec

	shardsClaimed   prometheus.Counter
	shardsReclaimed *prometheus.CounterVec
	shardsFinished  *prometheus.CounterVec

	node       atomic.Pointer[Node]
	collectors []prometheus.Collector
}

// NewMetrics builds the series (every label value pre-created, so each
// series is exported from the start).
func NewMetrics() *Metrics {
	m := &Metrics{}
	m.claimed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_runs_claimed_total", Help: "Pending runs this instance claimed.",
	})
	m.reclaimed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "faucet_serve_runs_reclaimed_total",
		Help: "Running runs whose owner's lease lapsed, by outcome (requeued, or failed as poison), as reclaimed by this instance.",
	}, []string{"outcome"})
	m.renewals = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_cluster_lease_renewals_total", Help: "Fenced lease renewals of held runs that matched (the run is still ours).",
	})
	m.leasesLost = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_cluster_leases_lost_total", Help: "Held runs found reclaimed by a renewal; their local execution was stopped.",
	})
	m.fenced = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "faucet_serve_cluster_fenced_writes_total",
		Help: "Results discarded because the run was no longer ours: refused by the fenced terminal write (database) or after a lost lease (lease_lost).",
	}, []string{"reason"})
	m.shardsClaimed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "faucet_serve_shards_claimed_total", Help: "Pending shards of sharded runs this instance claimed.",
	})
	m.shardsReclaimed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "faucet_serve_shards_reclaimed_total",
		Help: "Running shards whose owner's lease lapsed, by outcome (requeued, or failed as poison), as reclaimed by this instance.",
	}, []string{"outcome"})
	m.shardsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "faucet_serve_shards_finished_total", Help: "Shards this instance executed whose fenced result write won, by outcome.",
	}, []string{"outcome"})
	for _, o := range []string{"requeued", "failed"} {
		m.reclaimed.WithLabelValues(o)
		m.shardsReclaimed.WithLabelValues(o)
	}
	for _, o := range []string{"completed", "failed"} {
		m.shardsFinished.WithLabelValues(o)
	}
	for _, r := range []string{"database", "lease_lost"} {
		m.fenced.WithLabelValues(r)
	}
	instances := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "faucet_serve_cluster_instances", Help: "Live cluster members (heartbeat within the member window).",
	}, func() float64 {
		if n := m.node.Load(); n != nil {
			return float64(len(n.Members()))
		}
		return 0
	})
	format := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "faucet_serve_cluster_state_format", Help: "Effective state format: the lowest any live member reads.",
	}, func() float64 {
		if n := m.node.Load(); n != nil {
			return float64(n.EffectiveStateFormat())
		}
		return 0
	})
	m.collectors = []prometheus.Collector{m.claimed, m.reclaimed, m.renewals, m.leasesLost, m.fenced,
		m.shardsClaimed, m.shardsReclaimed, m.shardsFinished, instances, format}
	return m
}

func (m *Metrics) bind(n *Node) { m.node.Store(n) }

// Collectors lists the series to register.
func (m *Metrics) Collectors() []prometheus.Collector { return m.collectors }
