package history

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// LocalOutputObservation is written after every invocation that opened a
// local file (#587).
type LocalOutputObservation struct {
	Path          string    `json:"path"`
	DatasetURI    string    `json:"dataset_uri"`
	DatasetID     string    `json:"dataset_id"`
	Kind          string    `json:"kind"`
	Pipeline      string    `json:"pipeline"`
	Row           string    `json:"row"`
	RunID         string    `json:"run_id"`
	PreExisting   bool      `json:"pre_existing"`
	Replaced      bool      `json:"replaced"`
	RetentionDays *uint32   `json:"retention_days,omitempty"`
	ObservedAt    time.Time `json:"observed_at"`
}

// LocalOutputRecord is one row of the local-output ledger; never purged.
type LocalOutputRecord struct {
	ID             string     `json:"id"`
	Path           string     `json:"path"`
	DatasetURI     string     `json:"dataset_uri"`
	DatasetID      string     `json:"dataset_id"`
	Kind           string     `json:"kind"`
	Pipeline       string     `json:"pipeline"`
	Row            string     `json:"row"`
	RunID          string     `json:"run_id"`
	PreExisting    bool       `json:"pre_existing"`
	Replaced       bool       `json:"replaced"`
	RetentionDays  *uint32    `json:"retention_days"`
	FirstWrittenAt time.Time  `json:"first_written_at"`
	LastWrittenAt  time.Time  `json:"last_written_at"`
	DeletedAt      *time.Time `json:"deleted_at"`
	DeletedBytes   *uint64    `json:"deleted_bytes"`
}

// OutputID is 16 hex chars of SHA-256 of the path (the ledger's PK).
func OutputID(path string) string { return HexPrefix([]byte(strings.ToValidUTF8(path, "\uFFFD"))) }

// HexPrefix is the first 16 lowercase hex chars of SHA-256(b).
func HexPrefix(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])[:16]
}

// NewLocalOutputRecord builds the first row for an observation.
func NewLocalOutputRecord(o LocalOutputObservation) LocalOutputRecord {
	at := o.ObservedAt.UTC()
	return LocalOutputRecord{ID: OutputID(o.Path), Path: o.Path, DatasetURI: o.DatasetURI,
		DatasetID: o.DatasetID, Kind: o.Kind, Pipeline: o.Pipeline, Row: o.Row, RunID: o.RunID,
		PreExisting: o.PreExisting, Replaced: o.PreExisting && o.Replaced,
		RetentionDays: o.RetentionDays, FirstWrittenAt: at, LastWrittenAt: at}
}

// Observe merges a later observation: refreshes the descriptive fields,
// widens the written window, may flip replaced only for a pre-existing file,
// never changes pre_existing, and un-expires the row.
func (r *LocalOutputRecord) Observe(o LocalOutputObservation) {
	r.DatasetURI, r.DatasetID, r.Kind = o.DatasetURI, o.DatasetID, o.Kind
	r.Pipeline, r.Row, r.RunID, r.RetentionDays = o.Pipeline, o.Row, o.RunID, o.RetentionDays
	at := o.ObservedAt.UTC()
	if at.After(r.LastWrittenAt) {
		r.LastWrittenAt = at
	}
	if at.Before(r.FirstWrittenAt) {
		r.FirstWrittenAt = at
	}
	if r.PreExisting && o.Replaced {
		r.Replaced = true
	}
	r.DeletedAt, r.DeletedBytes = nil, nil
}

// LocalOutputFilter: not-deleted unless IncludeDeleted; equality on set
// fields; Limit 0 = unlimited.
type LocalOutputFilter struct {
	DatasetID      *string
	Pipeline       *string
	IncludeDeleted bool
	Limit          int
}

// Matches is the shared predicate.
func (f LocalOutputFilter) Matches(r LocalOutputRecord) bool {
	if !f.IncludeDeleted && r.DeletedAt != nil {
		return false
	}
	if f.DatasetID != nil && r.DatasetID != *f.DatasetID {
		return false
	}
	if f.Pipeline != nil && r.Pipeline != *f.Pipeline {
		return false
	}
	return true
}

// LessLocalOutput orders last_written_at DESC, path ASC.
func LessLocalOutput(a, b LocalOutputRecord) bool {
	if !a.LastWrittenAt.Equal(b.LastWrittenAt) {
		return a.LastWrittenAt.After(b.LastWrittenAt)
	}
	return a.Path < b.Path
}
