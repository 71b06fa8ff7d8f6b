package history

import (
	"encoding/json"
	"time"
)

// InstanceHeartbeat is what an instance heartbeats into the membership table;
// the backend stamps its own instance id.
type InstanceHeartbeat struct {
	StartedAt     time.Time
	Listen        *string
	MaxConcurrent uint32
	InFlight      uint32
	StateFormat   uint32 // newest state format this instance reads (#736)
}

// InstanceRecord is one live cluster member.
type InstanceRecord struct {
	InstanceID    string    `json:"instance_id"`
	StartedAt     time.Time `json:"started_at"`
	LastHeartbeat time.Time `json:"last_heartbeat"`
	Listen        *string   `json:"listen"`
	MaxConcurrent uint32    `json:"max_concurrent"`
	InFlight      uint32    `json:"in_flight"`
	StateFormat   uint32    `json:"state_format"` // 0 for a member with no caps row
}

// ClusterStateFormat is the lowest state format any member reads, or own when
// there are no members.
func ClusterStateFormat(members []InstanceRecord, own uint32) uint32 {
	if len(members) == 0 {
		return own
	}
	m := members[0].StateFormat
	for _, r := range members[1:] {
		if r.StateFormat < m {
			m = r.StateFormat
		}
	}
	return m
}

// ShardInsert is one shard row to persist when a run is expanded (Mode B).
type ShardInsert struct {
	ShardID      string
	Descriptor   json.RawMessage // opaque connector shard spec
	SizeEstimate *uint64
}

// ClaimedShard is a shard this instance claimed, with its parent record.
type ClaimedShard struct {
	RunID      string
	ShardID    string
	Descriptor json.RawMessage
	Run        RunRecord
}

// ShardProgress counts a run's shards by status (unknown statuses count as
// pending).
type ShardProgress struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Running   int `json:"running"`
	Pending   int `json:"pending"`
}

// AllTerminal reports total > 0 and every shard completed or failed.
func (p ShardProgress) AllTerminal() bool {
	return p.Total > 0 && p.Completed+p.Failed == p.Total
}

// Shard row statuses.
const (
	ShardPending   = "pending"
	ShardRunning   = "running"
	ShardCompleted = "completed"
	ShardFailed    = "failed"
)

// Messages written on orphan and poison transitions.
const (
	OrphanLeaseExpiredError = "owning serve instance's lease expired before the run finished"
)

// PoisonError is the error text of a run failed after too many reclaims.
func PoisonError(attempts uint32) string {
	return "run reclaimed " + uitoa(uint64(attempts)) +
		" times after its owning instance's lease expired; giving up (poison run)"
}

// ShardFailureError is the sharded parent's error text.
func ShardFailureError(failed, total int) string {
	return uitoa(uint64(failed)) + "/" + uitoa(uint64(total)) + " shard(s) failed"
}

func uitoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// ElapsedSince fills elapsed seconds from started to now when unknown and
// non-negative.
func ElapsedSince(started *time.Time, now time.Time) *float64 {
	if started == nil {
		return nil
	}
	d := now.Sub(*started)
	if d < 0 {
		return nil
	}
	s := d.Seconds()
	return &s
}
