package cluster

import (
	"context"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// heartbeat writes this member's row and refreshes the cached live set.
func (n *Node) heartbeat(ctx context.Context) {
	var listen *string
	if n.cfg.Listen != "" {
		l := n.cfg.Listen
		listen = &l
	}
	capacity := n.cfg.Capacity
	if capacity < 0 {
		capacity = 0
	}
	inFlight := n.exec.InFlight()
	if inFlight < 0 {
		inFlight = 0
	}
	err := n.store.HeartbeatInstance(ctx, history.InstanceHeartbeat{StartedAt: n.started, Listen: listen,
		MaxConcurrent: uint32(capacity), InFlight: uint32(inFlight), StateFormat: n.cfg.StateFormat})
	n.warn.report(n.log, "heartbeating membership", err)
	members, err := n.store.LiveInstances(ctx, n.MemberWindow())
	n.warn.report(n.log, "reading cluster membership", err)
	if err != nil {
		return
	}
	n.mu.Lock()
	n.members = members
	n.memberAt = time.Now().UTC()
	n.mu.Unlock()
}

// Members is the live set as of the last successful refresh.
func (n *Node) Members() []history.InstanceRecord {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]history.InstanceRecord(nil), n.members...)
}

// EffectiveStateFormat is the lowest state format any live member reads
// (this build's own when the set is empty).
func (n *Node) EffectiveStateFormat() uint32 {
	return history.ClusterStateFormat(n.Members(), n.cfg.StateFormat)
}

// LegacyStateWrites reports whether a member older than this build is live,
// so state must be written in a format it reads.
func (n *Node) LegacyStateWrites() bool { return n.EffectiveStateFormat() < n.cfg.StateFormat }

// Member is one live instance as served by GET /v1/cluster.
type Member struct {
	history.InstanceRecord
	// Self marks the instance that answered.
	Self bool `json:"self"`
}

// StateFormats are this build's and the cluster's state formats.
type StateFormats struct {
	Own       uint32 `json:"own"`
	Effective uint32 `json:"effective"`
}

// Status is the GET /v1/cluster body.
type Status struct {
	Enabled     bool         `json:"enabled"`
	InstanceID  string       `json:"instance_id"`
	PollSecs    float64      `json:"poll_secs"`
	LeaseTTL    float64      `json:"lease_ttl_secs"`
	MaxAttempts uint32       `json:"max_attempts"`
	Claiming    bool         `json:"claiming"`
	Held        int          `json:"held_runs"`
	StateFormat StateFormats `json:"state_format"`
	// RefreshedAt is when the live set below was read (null before the
	// first successful read).
	RefreshedAt *time.Time `json:"membership_refreshed_at"`
	Instances   []Member   `json:"instances"`
}

// Status reports this member's view of the cluster.
func (n *Node) Status() Status {
	members := n.Members()
	n.mu.Lock()
	st := Status{Enabled: true, InstanceID: n.cfg.InstanceID, PollSecs: n.cfg.PollInterval.Seconds(),
		LeaseTTL: n.cfg.LeaseTTL.Seconds(), MaxAttempts: n.cfg.MaxAttempts, Claiming: n.claiming, Held: len(n.held),
		StateFormat: StateFormats{Own: n.cfg.StateFormat, Effective: history.ClusterStateFormat(members, n.cfg.StateFormat)},
		Instances:   make([]Member, 0, len(members))}
	if !n.memberAt.IsZero() {
		t := n.memberAt
		st.RefreshedAt = &t
	}
	n.mu.Unlock()
	for _, m := range members {
		st.Instances = append(st.Instances, Member{InstanceRecord: m, Self: m.InstanceID == n.cfg.InstanceID})
	}
	return st
}
