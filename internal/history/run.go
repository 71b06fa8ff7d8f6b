package history

import (
	"encoding/json"
	"time"
)

// ConfigFormat is the submitted config's format (lowercase in JSON).
type ConfigFormat string

// Config formats.
const (
	FormatYAML ConfigFormat = "yaml"
	FormatJSON ConfigFormat = "json"
)

// RunRecord is one run's full record: the GET/list element and the JSON body
// stored in faucet_serve_runs. Field names and null-versus-omitted rules are
// the original's: name, started_at, finished_at, elapsed_secs, error and
// idempotency_key are null when absent, the later optional fields are omitted.
// Unknown fields are tolerated on decode. Owner, lease and cancel request live
// only in columns, never here.
type RunRecord struct {
	RunID          string             `json:"run_id"`
	Name           *string            `json:"name"`
	Labels         map[string]string  `json:"labels"`
	Status         RunStatus          `json:"status"`
	SubmittedAt    time.Time          `json:"submitted_at"`
	StartedAt      *time.Time         `json:"started_at"`
	FinishedAt     *time.Time         `json:"finished_at"`
	ElapsedSecs    *float64           `json:"elapsed_secs"`
	RecordsWritten uint64             `json:"records_written"`
	Invocations    []InvocationRecord `json:"invocations"`
	Error          *string            `json:"error"`
	IdempotencyKey *string            `json:"idempotency_key"`
	DoctorReport   json.RawMessage    `json:"doctor_report,omitempty"`
	ConfigBody     *string            `json:"config_body,omitempty"`
	ConfigFormat   *ConfigFormat      `json:"config_format,omitempty"`
	TimeoutSecs    *uint64            `json:"timeout_secs,omitempty"`
	Clock          *string            `json:"clock,omitempty"`
	Concurrency    *uint64            `json:"concurrency,omitempty"`
	Attempt        uint32             `json:"attempt"`
	ReplayOf       *string            `json:"replay_of,omitempty"`
	Callback       *CallbackSpec      `json:"callback,omitempty"`
	Tenant         *string            `json:"tenant,omitempty"`
	// Selection is the row subset (#741), kept opaque.
	Selection json.RawMessage `json:"selection,omitempty"`
	// Params are the submitted param values by name (as text), stored so
	// that the cluster peer that claims the run binds the same values. This
	// port's addition; omitted when none were given (the original ignores
	// unknown fields).
	Params map[string]string `json:"params,omitempty"`
}

// NewQueuedRun is the seed's RunRecord::queued constructor.
func NewQueuedRun(runID string, name *string, labels map[string]string, idemKey *string, submittedAt time.Time) RunRecord {
	return RunRecord{RunID: runID, Name: name, Labels: labels, Status: StatusQueued,
		SubmittedAt: submittedAt.UTC(), IdempotencyKey: idemKey}
}

// MarshalJSON keeps required collections as {} / [] (never null, which the
// original cannot decode) and times in UTC.
func (r RunRecord) MarshalJSON() ([]byte, error) {
	type alias RunRecord
	a := alias(r)
	if a.Labels == nil {
		a.Labels = map[string]string{}
	}
	if a.Invocations == nil {
		a.Invocations = []InvocationRecord{}
	}
	a.SubmittedAt = a.SubmittedAt.UTC()
	a.StartedAt = utcPtr(a.StartedAt)
	a.FinishedAt = utcPtr(a.FinishedAt)
	return json.Marshal(a)
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Clone returns a deep-enough copy (maps and slices copied).
func (r RunRecord) Clone() RunRecord {
	c := r
	if r.Labels != nil {
		c.Labels = make(map[string]string, len(r.Labels))
		for k, v := range r.Labels {
			c.Labels[k] = v
		}
	}
	if r.Invocations != nil {
		c.Invocations = append([]InvocationRecord(nil), r.Invocations...)
	}
	if r.Params != nil {
		c.Params = make(map[string]string, len(r.Params))
		for k, v := range r.Params {
			c.Params[k] = v
		}
	}
	return c
}

// InvocationRecord is one matrix row's outcome inside a run.
type InvocationRecord struct {
	RowID           string          `json:"row_id"`
	ParentRecordKey *string         `json:"parent_record_key"`
	RunID           *string         `json:"run_id,omitempty"`
	RecordsWritten  uint64          `json:"records_written"`
	DurationMS      uint64          `json:"duration_ms"`
	Error           *string         `json:"error"`
	Usage           *UsageRecord    `json:"usage,omitempty"`
	Batches         json.RawMessage `json:"batches,omitempty"`
	SourceLag       json.RawMessage `json:"source_lag,omitempty"`
}

// CallbackSpec is a completion webhook (#481). On empty = every terminal status.
type CallbackSpec struct {
	URL         string                     `json:"url"`
	Method      string                     `json:"method,omitempty"`
	Headers     map[string]string          `json:"headers,omitempty"`
	ExtraFields map[string]json.RawMessage `json:"extra_fields,omitempty"`
	On          []RunStatus                `json:"on,omitempty"`
}

// ClaimKind is the outcome of an idempotency claim.
type ClaimKind int

// Claim outcomes.
const (
	// ClaimFresh: the caller owns the key for its run id.
	ClaimFresh ClaimKind = iota + 1
	// ClaimReplay: same key, same fingerprint, unexpired: replay RunID.
	ClaimReplay
	// ClaimConflict: same key, different fingerprint (HTTP 409).
	ClaimConflict
)

// Claim is the result of ClaimIdempotency.
type Claim struct {
	Kind  ClaimKind
	RunID string // set for ClaimReplay
}

func (c Claim) String() string {
	switch c.Kind {
	case ClaimFresh:
		return "fresh"
	case ClaimReplay:
		return "replay(" + c.RunID + ")"
	case ClaimConflict:
		return "conflict"
	}
	return "invalid"
}

// DeleteOutcome is the result of Delete.
type DeleteOutcome int

// Delete outcomes.
const (
	Deleted DeleteOutcome = iota + 1
	NotFound
	StillRunning
)

func (d DeleteOutcome) String() string {
	switch d {
	case Deleted:
		return "deleted"
	case NotFound:
		return "not_found"
	case StillRunning:
		return "still_running"
	}
	return "invalid"
}

// ReclaimReport counts a failover reclaim pass.
type ReclaimReport struct {
	Requeued int `json:"requeued"`
	Failed   int `json:"failed"`
}

// ListFilter filters and pages List. Status entries are OR-ed (empty = all);
// Since and Until are inclusive on submitted_at; Limit is treated as >= 1;
// Cursor is the last run id of the previous page.
type ListFilter struct {
	Status []RunStatus
	Name   *string
	Since  *time.Time
	Until  *time.Time
	Limit  int
	Cursor *string
	Tenant *string
}

// ListPage is one page ordered (submitted_at DESC, run_id DESC). NextCursor is
// the last returned id iff more rows exist.
type ListPage struct {
	Runs       []RunRecord `json:"runs"`
	NextCursor *string     `json:"next_cursor"`
	// Corrupt names rows of this page whose body could not be decoded; they
	// are left out of Runs so one bad row never breaks a listing, and Get on
	// such an id returns the decode error.
	Corrupt []string `json:"-"`
}

// EffectiveLimit is max(1, limit).
func EffectiveLimit(limit int) int {
	if limit < 1 {
		return 1
	}
	return limit
}
