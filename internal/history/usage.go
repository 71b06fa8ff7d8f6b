package history

import (
	"encoding/json"
	"time"
)

// UsageDefaultListLimit caps a usage listing with Limit 0.
const UsageDefaultListLimit = 5000

// UsageMemoryCap bounds the memory backend's usage list.
const UsageMemoryCap = 10000

// UsageRecord is one finished invocation's cost and usage (#704). Keyed by
// (run_id, row).
type UsageRecord struct {
	RunID      string          `json:"run_id"`
	Pipeline   string          `json:"pipeline"`
	Row        string          `json:"row"`
	SourceKind string          `json:"source_kind"`
	SinkKind   string          `json:"sink_kind"`
	DatasetID  *string         `json:"dataset_id,omitempty"`
	DatasetURI *string         `json:"dataset_uri,omitempty"`
	RecordedAt time.Time       `json:"recorded_at"`
	DurationMS uint64          `json:"duration_ms"`
	Failed     bool            `json:"failed"`
	Usage      json.RawMessage `json:"usage"` // faucet_core UsageSnapshot, opaque
	Cost       CostEstimate    `json:"cost"`
	Tenant     *string         `json:"tenant,omitempty"`
}

// MarshalJSON keeps usage an object and times UTC.
func (u UsageRecord) MarshalJSON() ([]byte, error) {
	type alias UsageRecord
	a := alias(u)
	if len(a.Usage) == 0 {
		a.Usage = json.RawMessage("{}")
	}
	a.RecordedAt = a.RecordedAt.UTC()
	return json.Marshal(a)
}

// CostEstimate is an invocation's estimated cost.
type CostEstimate struct {
	Currency         string          `json:"currency"`
	Total            float64         `json:"total"`
	Lines            []CostLine      `json:"lines"`
	NotReported      json.RawMessage `json:"not_reported,omitempty"`
	HostedEquivalent json.RawMessage `json:"hosted_equivalent,omitempty"`
}

// MarshalJSON keeps lines a list.
func (c CostEstimate) MarshalJSON() ([]byte, error) {
	type alias CostEstimate
	a := alias(c)
	if a.Lines == nil {
		a.Lines = []CostLine{}
	}
	return json.Marshal(a)
}

// CostLine is one priced item.
type CostLine struct {
	Item     string  `json:"item"`
	Quantity float64 `json:"quantity"`
	Unit     string  `json:"unit"`
	Rate     float64 `json:"rate"`
	Amount   float64 `json:"amount"`
}

// UsageFilter: Since inclusive, Until exclusive, equality on pipeline and
// tenant, Limit 0 = UsageDefaultListLimit.
type UsageFilter struct {
	Since    *time.Time
	Until    *time.Time
	Pipeline *string
	Tenant   *string
	Limit    int
}

// EffectiveLimit is Limit, or the default when 0.
func (f UsageFilter) EffectiveLimit() int {
	if f.Limit > 0 {
		return f.Limit
	}
	return UsageDefaultListLimit
}

// Matches is the shared predicate.
func (f UsageFilter) Matches(r UsageRecord) bool {
	if f.Since != nil && r.RecordedAt.Before(*f.Since) {
		return false
	}
	if f.Until != nil && !r.RecordedAt.Before(*f.Until) {
		return false
	}
	if f.Pipeline != nil && r.Pipeline != *f.Pipeline {
		return false
	}
	if f.Tenant != nil && (r.Tenant == nil || *r.Tenant != *f.Tenant) {
		return false
	}
	return true
}
