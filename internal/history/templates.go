package history

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Template constants.
const (
	TemplateMaxIDLen      = 64
	DefaultChannel        = "stable"
	RejectedChannelLatest = "latest"
	TemplateVersionRetain = 20
)

var templateIDRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// ValidateTemplateID trims and checks a template id slug.
func ValidateTemplateID(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) == 0 || len(s) > TemplateMaxIDLen || !templateIDRe.MatchString(s) {
		return "", fmt.Errorf("invalid template id %q: want ^[a-z0-9][a-z0-9_-]*$ up to %d chars", s, TemplateMaxIDLen)
	}
	return s, nil
}

// TemplateKind is the hub kind (kebab-case); missing reads as pipeline.
type TemplateKind string

// Template kinds.
const (
	KindSourceTemplate TemplateKind = "source-template"
	KindSinkTemplate   TemplateKind = "sink-template"
	KindPipeline       TemplateKind = "pipeline"
)

// ParamSpec is one template parameter.
type ParamSpec struct {
	Type        string          `json:"type"`
	Required    bool            `json:"required"`
	Default     json.RawMessage `json:"default,omitempty"`
	Secret      bool            `json:"secret"`
	Description *string         `json:"description,omitempty"`
}

// TemplateDraft is a template to register; the store assigns the version.
type TemplateDraft struct {
	ID          string
	Kind        TemplateKind
	Name        *string
	Description *string
	Body        string
	Format      ConfigFormat
	Params      map[string]ParamSpec
	CreatedBy   *string
}

// TemplateRecord is one stored template version (#444). Body is verbatim with
// unresolved ${env:..}/${vault:..} tokens.
type TemplateRecord struct {
	ID          string               `json:"id"`
	Version     uint32               `json:"version"`
	Kind        TemplateKind         `json:"kind"`
	Name        *string              `json:"name"`
	Description *string              `json:"description"`
	Body        string               `json:"body"`
	Format      ConfigFormat         `json:"format"`
	Params      map[string]ParamSpec `json:"params"`
	CreatedAt   time.Time            `json:"created_at"`
	CreatedBy   *string              `json:"created_by"`
}

// MarshalJSON keeps params an object, kind/format defaulted, time UTC.
func (t TemplateRecord) MarshalJSON() ([]byte, error) {
	type alias TemplateRecord
	a := alias(t)
	if a.Params == nil {
		a.Params = map[string]ParamSpec{}
	}
	if a.Kind == "" {
		a.Kind = KindPipeline
	}
	if a.Format == "" {
		a.Format = FormatYAML
	}
	a.CreatedAt = a.CreatedAt.UTC()
	return json.Marshal(a)
}

// UnmarshalJSON defaults a missing kind to pipeline and format to yaml.
func (t *TemplateRecord) UnmarshalJSON(b []byte) error {
	type alias TemplateRecord
	var a alias
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if a.Kind == "" {
		a.Kind = KindPipeline
	}
	if a.Format == "" {
		a.Format = FormatYAML
	}
	*t = TemplateRecord(a)
	return nil
}

// RecordFromDraft builds the record for version v.
func RecordFromDraft(d TemplateDraft, v uint32, now time.Time) TemplateRecord {
	kind := d.Kind
	if kind == "" {
		kind = KindPipeline
	}
	f := d.Format
	if f == "" {
		f = FormatYAML
	}
	return TemplateRecord{ID: d.ID, Version: v, Kind: kind, Name: d.Name, Description: d.Description,
		Body: d.Body, Format: f, Params: d.Params, CreatedAt: now.UTC(), CreatedBy: d.CreatedBy}
}

// TemplateSummary is a record minus its body, with optional state.
type TemplateSummary struct {
	ID          string               `json:"id"`
	Version     uint32               `json:"version"`
	Kind        TemplateKind         `json:"kind"`
	Name        *string              `json:"name"`
	Description *string              `json:"description"`
	Format      ConfigFormat         `json:"format"`
	Params      map[string]ParamSpec `json:"params"`
	CreatedAt   time.Time            `json:"created_at"`
	CreatedBy   *string              `json:"created_by"`
	State       *TemplateState       `json:"state,omitempty"`
	Warnings    []string             `json:"warnings,omitempty"`
}

// LatestPerID keeps the highest version per id, sorted created_at DESC, id ASC.
func LatestPerID(all []TemplateRecord) []TemplateSummary {
	best := map[string]TemplateRecord{}
	for _, r := range all {
		if cur, ok := best[r.ID]; !ok || r.Version > cur.Version {
			best[r.ID] = r
		}
	}
	out := make([]TemplateSummary, 0, len(best))
	for _, r := range best {
		out = append(out, TemplateSummary{ID: r.ID, Version: r.Version, Kind: r.Kind, Name: r.Name,
			Description: r.Description, Format: r.Format, Params: r.Params, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// VersionsToPrune returns the versions beyond the newest TemplateVersionRetain.
func VersionsToPrune(versions []uint32) []uint32 {
	if len(versions) <= TemplateVersionRetain {
		return nil
	}
	v := append([]uint32(nil), versions...)
	sort.Slice(v, func(i, j int) bool { return v[i] > v[j] })
	return v[TemplateVersionRetain:]
}

// LaunchRecord is one entry of the append-only launch log.
type LaunchRecord struct {
	Seq        uint32    `json:"seq"`
	Version    uint32    `json:"version"`
	LaunchedAt time.Time `json:"launched_at"`
	LaunchedBy *string   `json:"launched_by"`
}

// StableVersion is the newest launch's version.
func StableVersion(logNewestFirst []LaunchRecord) (uint32, bool) {
	if len(logNewestFirst) == 0 {
		return 0, false
	}
	return logNewestFirst[0].Version, true
}

// PreviousVersion is the first logged version different from stable.
func PreviousVersion(logNewestFirst []LaunchRecord) (uint32, bool) {
	s, ok := StableVersion(logNewestFirst)
	if !ok {
		return 0, false
	}
	for _, l := range logNewestFirst {
		if l.Version != s {
			return l.Version, true
		}
	}
	return 0, false
}

// DeprecationRecord marks a template (or version) deprecated.
type DeprecationRecord struct {
	DeprecatedAt time.Time `json:"deprecated_at"`
	DeprecatedBy *string   `json:"deprecated_by"`
	Reason       *string   `json:"reason"`
}

// VersionDeprecation is a per-version marker (record flattened in JSON).
type VersionDeprecation struct {
	Version uint32 `json:"version"`
	DeprecationRecord
}

// TemplateStatus is derived: deprecated > launched > draft.
type TemplateStatus string

// Template statuses.
const (
	TemplateDraftStatus      TemplateStatus = "draft"
	TemplateLaunchedStatus   TemplateStatus = "launched"
	TemplateDeprecatedStatus TemplateStatus = "deprecated"
)

// AssignableChannels are the tags a user may set.
var AssignableChannels = []string{"dev", "test", "staging", "pre-prod", "canary", "prod"}

// TemplateState is assembled from primitive reads so backends cannot disagree.
type TemplateState struct {
	Status             TemplateStatus       `json:"status"`
	Versions           []uint32             `json:"versions"`
	Stable             *uint32              `json:"stable"`
	Previous           *uint32              `json:"previous"`
	Newest             *uint32              `json:"newest"`
	Tags               map[string]uint32    `json:"tags"`
	Deprecation        *DeprecationRecord   `json:"deprecation,omitempty"`
	DeprecatedVersions []VersionDeprecation `json:"deprecated_versions,omitempty"`
}

// AssembleTemplateState builds the derived state. versions newest first.
func AssembleTemplateState(versions []uint32, launches []LaunchRecord, tags map[string]uint32,
	dep *DeprecationRecord, verDeps []VersionDeprecation) TemplateState {
	st := TemplateState{Status: TemplateDraftStatus, Versions: append([]uint32{}, versions...), Tags: map[string]uint32{}}
	if len(launches) > 0 {
		st.Status = TemplateLaunchedStatus
	}
	if dep != nil {
		st.Status = TemplateDeprecatedStatus
		st.Deprecation = dep
	}
	if v, ok := StableVersion(launches); ok {
		st.Stable = ptr(v)
	}
	if v, ok := PreviousVersion(launches); ok {
		st.Previous = ptr(v)
	}
	exists := map[uint32]bool{}
	for _, v := range versions {
		exists[v] = true
	}
	deprecated := map[uint32]bool{}
	for _, d := range verDeps {
		if exists[d.Version] {
			deprecated[d.Version] = true
			st.DeprecatedVersions = append(st.DeprecatedVersions, d)
		}
	}
	sort.Slice(st.DeprecatedVersions, func(i, j int) bool { return st.DeprecatedVersions[i].Version > st.DeprecatedVersions[j].Version })
	for _, v := range versions { // newest first
		if !deprecated[v] {
			st.Newest = ptr(v)
			break
		}
	}
	for tag, v := range tags {
		for _, a := range AssignableChannels {
			if tag == a {
				st.Tags[tag] = v
			}
		}
	}
	return st
}
