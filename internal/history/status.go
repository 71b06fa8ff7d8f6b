package history

import (
	"encoding/json"
	"fmt"
	"strings"
)

// RunStatus is a run's lifecycle state. Single instance: queued -> running ->
// terminal. Cluster: pending -> running -> terminal (failover running ->
// pending). Sharded parents: running -> sharded -> completed|failed.
type RunStatus string

// The run statuses, serialized snake_case exactly as the column values.
const (
	StatusQueued    RunStatus = "queued"
	StatusPending   RunStatus = "pending"
	StatusRunning   RunStatus = "running"
	StatusSharded   RunStatus = "sharded"
	StatusCompleted RunStatus = "completed"
	StatusFailed    RunStatus = "failed"
	StatusCancelled RunStatus = "cancelled"
)

// AllStatuses lists every status in declaration order.
var AllStatuses = []RunStatus{StatusQueued, StatusPending, StatusRunning, StatusSharded, StatusCompleted, StatusFailed, StatusCancelled}

// IsTerminal reports completed, failed or cancelled.
func (s RunStatus) IsTerminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// String returns the column/JSON value.
func (s RunStatus) String() string { return string(s) }

// FinishedReason is the metrics reason label for a terminal status.
func (s RunStatus) FinishedReason() string {
	switch s {
	case StatusCompleted:
		return "ok"
	case StatusCancelled:
		return "cancelled"
	default:
		return "error"
	}
}

// ParseRunStatus parses an exact (trimmed) status name.
func ParseRunStatus(s string) (RunStatus, bool) {
	st := RunStatus(strings.TrimSpace(s))
	for _, k := range AllStatuses {
		if k == st {
			return k, true
		}
	}
	return "", false
}

// ParseStatusLenient is the storage layer's parse: unknown strings map to
// failed (the seed's parse_status).
func ParseStatusLenient(s string) RunStatus {
	for _, k := range AllStatuses {
		if string(k) == s {
			return k
		}
	}
	return StatusFailed
}

// UnmarshalJSON accepts only known statuses.
func (s *RunStatus) UnmarshalJSON(b []byte) error {
	var raw string
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, k := range AllStatuses {
		if string(k) == raw {
			*s = k
			return nil
		}
	}
	return fmt.Errorf("unknown run status %q", raw)
}
