package history

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"
)

// Catalog constants (#279, #708).
const (
	StatsRetain         = 500
	StatsDetailLimit    = 50
	LineageDefaultDepth = 5
	ProfileRetain       = 100
	ProfileDetailLimit  = 30
)

// DatasetRole is source or sink.
type DatasetRole string

// Dataset roles.
const (
	RoleSource DatasetRole = "source"
	RoleSink   DatasetRole = "sink"
)

// DatasetObservation is one dataset seen by a run.
type DatasetObservation struct {
	URI     string          `json:"uri"`
	Kind    string          `json:"kind"`
	Role    DatasetRole     `json:"role"`
	Schema  json.RawMessage `json:"schema,omitempty"`
	Records uint64          `json:"records"`
}

// CatalogUpdate is what one finished invocation reports.
type CatalogUpdate struct {
	RunID         string
	Pipeline      string
	Row           string
	RecordedAt    time.Time
	Sources       []DatasetObservation
	Sink          DatasetObservation
	ColumnLineage json.RawMessage
}

// CatalogConsumer is a registered downstream consumer (#707).
type CatalogConsumer struct {
	Name         string    `json:"name"`
	Kind         string    `json:"kind"`
	Contact      string    `json:"contact"`
	Columns      []string  `json:"columns"`
	RegisteredBy string    `json:"registered_by"`
	RegisteredAt time.Time `json:"registered_at"`
}

// MarshalJSON keeps columns a list.
func (c CatalogConsumer) MarshalJSON() ([]byte, error) {
	type alias CatalogConsumer
	a := alias(c)
	if a.Columns == nil {
		a.Columns = []string{}
	}
	a.RegisteredAt = a.RegisteredAt.UTC()
	return json.Marshal(a)
}

// CatalogDataset is one dataset's accumulated state.
type CatalogDataset struct {
	ID                string            `json:"id"`
	URI               string            `json:"uri"`
	Kind              string            `json:"kind"`
	Roles             []DatasetRole     `json:"roles"`
	FirstSeen         time.Time         `json:"first_seen"`
	LastSeen          time.Time         `json:"last_seen"`
	LastSuccess       *time.Time        `json:"last_success"`
	LastRunID         string            `json:"last_run_id"`
	Pipeline          string            `json:"pipeline"`
	LastRecords       uint64            `json:"last_records"`
	TotalRecords      uint64            `json:"total_records"`
	Runs              uint64            `json:"runs"`
	SchemaVersions    uint32            `json:"schema_versions"`
	CurrentSchema     json.RawMessage   `json:"current_schema,omitempty"`
	CurrentSchemaHash *string           `json:"current_schema_hash,omitempty"`
	Owners            []string          `json:"owners,omitempty"`
	Consumers         []CatalogConsumer `json:"consumers,omitempty"`
}

// MarshalJSON keeps roles a list.
func (d CatalogDataset) MarshalJSON() ([]byte, error) {
	type alias CatalogDataset
	a := alias(d)
	if a.Roles == nil {
		a.Roles = []DatasetRole{}
	}
	return json.Marshal(a)
}

// CatalogSchemaVersion is one entry of a dataset's schema timeline.
type CatalogSchemaVersion struct {
	DatasetID  string          `json:"dataset_id"`
	Version    uint32          `json:"version"`
	RecordedAt time.Time       `json:"recorded_at"`
	RunID      string          `json:"run_id"`
	Schema     json.RawMessage `json:"schema"`
	SchemaHash string          `json:"schema_hash"`
	Diff       json.RawMessage `json:"diff,omitempty"`
}

// CatalogStatsPoint is one volume point.
type CatalogStatsPoint struct {
	RecordedAt time.Time `json:"recorded_at"`
	RunID      string    `json:"run_id"`
	Records    uint64    `json:"records"`
}

// CatalogLineageEdge is one (source dataset -> sink dataset) edge.
type CatalogLineageEdge struct {
	SrcID         string          `json:"src_id"`
	DstID         string          `json:"dst_id"`
	SrcURI        string          `json:"src_uri"`
	DstURI        string          `json:"dst_uri"`
	Pipeline      string          `json:"pipeline"`
	Row           string          `json:"row"`
	FirstSeen     time.Time       `json:"first_seen"`
	LastSeen      time.Time       `json:"last_seen"`
	LastRunID     string          `json:"last_run_id"`
	Runs          uint64          `json:"runs"`
	LastRecords   uint64          `json:"last_records"`
	ColumnLineage json.RawMessage `json:"column_lineage,omitempty"`
}

// CatalogAnnotation edits owners/consumers of a dataset.
type CatalogAnnotation struct {
	Owners           *[]string         `json:"owners,omitempty"`
	Consumers        []CatalogConsumer `json:"consumers,omitempty"`
	ReplaceConsumers bool              `json:"replace_consumers,omitempty"`
}

// IsEmpty reports an annotation that changes nothing.
func (a CatalogAnnotation) IsEmpty() bool {
	return a.Owners == nil && len(a.Consumers) == 0 && !a.ReplaceConsumers
}

// CatalogListFilter filters the dataset listing.
type CatalogListFilter struct {
	Kind   *string
	Q      *string
	Limit  int
	Cursor *string
}

// CatalogDatasetPage is one listing page.
type CatalogDatasetPage struct {
	Datasets   []CatalogDataset `json:"datasets"`
	NextCursor *string          `json:"next_cursor,omitempty"`
}

// CatalogProfileRecord is one run's column profile (#708).
type CatalogProfileRecord struct {
	RunID        string            `json:"run_id"`
	Pipeline     string            `json:"pipeline"`
	Row          string            `json:"row"`
	RecordedAt   time.Time         `json:"recorded_at"`
	Profile      json.RawMessage   `json:"profile"`
	Drift        []json.RawMessage `json:"drift,omitempty"`
	BaselineRuns uint32            `json:"baseline_runs"`
}

// CatalogProfile is the detail view: latest plus history (newest first).
type CatalogProfile struct {
	Latest  CatalogProfileRecord   `json:"latest"`
	History []CatalogProfileRecord `json:"history"`
}

// CatalogDatasetDetail is a dataset with its timeline, stats and edges.
type CatalogDatasetDetail struct {
	CatalogDataset
	SchemaTimeline []CatalogSchemaVersion `json:"schema_timeline"`
	Stats          []CatalogStatsPoint    `json:"stats"`
	Upstream       []CatalogLineageEdge   `json:"upstream"`
	Downstream     []CatalogLineageEdge   `json:"downstream"`
	Profile        *CatalogProfile        `json:"profile"`
}

// ConfigSnapshot is the redacted, resolved config of a pipeline (#374).
type ConfigSnapshot struct {
	Pipeline      string                 `json:"pipeline"`
	RecordedAt    time.Time              `json:"recorded_at"`
	FaucetVersion string                 `json:"faucet_version"`
	Rows          map[string]RowSnapshot `json:"rows"`
}

// MarshalJSON keeps rows an object.
func (c ConfigSnapshot) MarshalJSON() ([]byte, error) {
	type alias ConfigSnapshot
	a := alias(c)
	if a.Rows == nil {
		a.Rows = map[string]RowSnapshot{}
	}
	a.RecordedAt = a.RecordedAt.UTC()
	return json.Marshal(a)
}

// RowSnapshot is one matrix row's resolved pipeline.
type RowSnapshot struct {
	Source            ConnectorSnapshot   `json:"source"`
	Sink              ConnectorSnapshot   `json:"sink"`
	Transforms        []TransformSnapshot `json:"transforms"`
	StateKey          *string             `json:"state_key"`
	DeliveryGuarantee string              `json:"delivery_guarantee"`
	OnError           string              `json:"on_error"`
	DLQ               bool                `json:"dlq"`
	Contract          json.RawMessage     `json:"contract,omitempty"`
}

// MarshalJSON keeps transforms a list.
func (r RowSnapshot) MarshalJSON() ([]byte, error) {
	type alias RowSnapshot
	a := alias(r)
	if a.Transforms == nil {
		a.Transforms = []TransformSnapshot{}
	}
	return json.Marshal(a)
}

// ConnectorSnapshot is a connector kind and its redacted config.
type ConnectorSnapshot struct {
	Kind   string          `json:"kind"`
	Config json.RawMessage `json:"config"`
}

// TransformSnapshot is a transform kind and config.
type TransformSnapshot struct {
	Kind   string          `json:"kind"`
	Config json.RawMessage `json:"config"`
}

// DatasetID is 16 hex chars of SHA-256 of the canonical uri.
func DatasetID(uri string) string { return HexPrefix([]byte(uri)) }

// CanonicalJSON renders v with object keys sorted recursively and no spaces.
func CanonicalJSON(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps marshal with sorted keys
	return strings.TrimRight(buf.String(), "\n")
}

// SchemaHash is 16 hex chars of SHA-256 of the canonical JSON of a schema.
func SchemaHash(schema json.RawMessage) string { return HexPrefix([]byte(CanonicalJSON(schema))) }

// ApplyObservation merges an observation into a dataset and returns the new
// schema version when the schema's hash changed.
func ApplyObservation(existing *CatalogDataset, obs DatasetObservation, runID, pipeline, row string, now time.Time) (CatalogDataset, *CatalogSchemaVersion) {
	now = now.UTC()
	var ds CatalogDataset
	if existing != nil {
		ds = *existing
		ds.Roles = append([]DatasetRole(nil), existing.Roles...)
	} else {
		ds = CatalogDataset{ID: DatasetID(obs.URI), URI: obs.URI, FirstSeen: now}
	}
	ds.Roles = append(ds.Roles, obs.Role)
	sort.Slice(ds.Roles, func(i, j int) bool { return ds.Roles[i] < ds.Roles[j] })
	ds.Roles = dedupRoles(ds.Roles)
	ds.Kind = obs.Kind
	ds.LastSeen = now
	ds.LastSuccess = ptr(now)
	ds.LastRunID, ds.Pipeline, ds.LastRecords = runID, pipeline, obs.Records
	ds.TotalRecords = satAdd(ds.TotalRecords, obs.Records)
	ds.Runs = satAdd(ds.Runs, 1)
	var nv *CatalogSchemaVersion
	if len(obs.Schema) > 0 && string(obs.Schema) != "null" {
		h := SchemaHash(obs.Schema)
		if ds.CurrentSchemaHash == nil || *ds.CurrentSchemaHash != h {
			var diff json.RawMessage
			if len(ds.CurrentSchema) > 0 {
				diff = SchemaDiff(ds.CurrentSchema, obs.Schema)
			}
			ds.SchemaVersions++
			ds.CurrentSchema = append(json.RawMessage(nil), obs.Schema...)
			ds.CurrentSchemaHash = ptr(h)
			nv = &CatalogSchemaVersion{DatasetID: ds.ID, Version: ds.SchemaVersions, RecordedAt: now,
				RunID: runID, Schema: ds.CurrentSchema, SchemaHash: h, Diff: diff}
		}
	}
	return ds, nv
}

func dedupRoles(r []DatasetRole) []DatasetRole {
	out := r[:0]
	for i, x := range r {
		if i == 0 || x != r[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// SchemaDiff compares the properties of two JSON schemas: added, widened,
// changed (each {column, from, to}) and removed (names). It returns nil when
// nothing differs. Widening is integer -> number or gaining "null".
func SchemaDiff(prev, next json.RawMessage) json.RawMessage {
	type change struct {
		Column string `json:"column"`
		From   any    `json:"from"`
		To     any    `json:"to"`
	}
	props := func(raw json.RawMessage) map[string]any {
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		_ = json.Unmarshal(raw, &s)
		out := map[string]any{}
		for k, v := range s.Properties {
			out[k] = v["type"]
		}
		return out
	}
	a, b := props(prev), props(next)
	names := make([]string, 0, len(b))
	for k := range b {
		names = append(names, k)
	}
	sort.Strings(names)
	d := struct {
		Added   []change `json:"added"`
		Widened []change `json:"widened"`
		Changed []change `json:"changed"`
		Removed []string `json:"removed"`
	}{[]change{}, []change{}, []change{}, []string{}}
	for _, k := range names {
		from, ok := a[k]
		to := b[k]
		switch {
		case !ok:
			d.Added = append(d.Added, change{k, nil, to})
		case CanonicalJSONValue(from) == CanonicalJSONValue(to):
		case isWidening(from, to):
			d.Widened = append(d.Widened, change{k, from, to})
		default:
			d.Changed = append(d.Changed, change{k, from, to})
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			d.Removed = append(d.Removed, k)
		}
	}
	sort.Strings(d.Removed)
	if len(d.Added)+len(d.Widened)+len(d.Changed)+len(d.Removed) == 0 {
		return nil
	}
	out, _ := json.Marshal(d)
	return out
}

// CanonicalJSONValue renders a decoded value canonically.
func CanonicalJSONValue(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func typeSet(v any) map[string]bool {
	s := map[string]bool{}
	switch t := v.(type) {
	case string:
		s[t] = true
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				s[str] = true
			}
		}
	}
	return s
}

func isWidening(from, to any) bool {
	f, t := typeSet(from), typeSet(to)
	if len(f) == 0 {
		return false
	}
	for k := range f {
		if t[k] || (k == "integer" && t["number"]) {
			continue
		}
		return false
	}
	return true
}

// ApplyEdge merges an update into the (src, sink) edge.
func ApplyEdge(existing *CatalogLineageEdge, u CatalogUpdate, src DatasetObservation) CatalogLineageEdge {
	now := u.RecordedAt.UTC()
	var e CatalogLineageEdge
	if existing != nil {
		e = *existing
	} else {
		e = CatalogLineageEdge{SrcID: DatasetID(src.URI), DstID: DatasetID(u.Sink.URI), FirstSeen: now}
	}
	e.SrcURI, e.DstURI = src.URI, u.Sink.URI
	e.Pipeline, e.Row, e.LastSeen, e.LastRunID = u.Pipeline, u.Row, now, u.RunID
	e.Runs = satAdd(e.Runs, 1)
	if len(u.Sources) == 1 {
		e.LastRecords = u.Sink.Records
	} else {
		e.LastRecords = src.Records
	}
	if len(u.ColumnLineage) > 0 {
		e.ColumnLineage = u.ColumnLineage
	}
	return e
}

// ApplyAnnotation edits owners (trimmed, blanks dropped, adjacent duplicates
// removed) and consumers (optionally replaced, then upserted by name).
func ApplyAnnotation(ds *CatalogDataset, a CatalogAnnotation) {
	if a.Owners != nil {
		var owners []string
		for _, o := range *a.Owners {
			o = strings.TrimSpace(o)
			if o == "" || (len(owners) > 0 && owners[len(owners)-1] == o) {
				continue
			}
			owners = append(owners, o)
		}
		ds.Owners = owners
	}
	if a.ReplaceConsumers {
		keep := map[string]bool{}
		for _, c := range a.Consumers {
			keep[c.Name] = true
		}
		var kept []CatalogConsumer
		for _, c := range ds.Consumers {
			if keep[c.Name] {
				kept = append(kept, c)
			}
		}
		ds.Consumers = kept
	}
	for _, c := range a.Consumers {
		found := false
		for i := range ds.Consumers {
			if ds.Consumers[i].Name == c.Name {
				ds.Consumers[i], found = c, true
				break
			}
		}
		if !found {
			ds.Consumers = append(ds.Consumers, c)
		}
	}
}

// FilterDatasets filters by kind and case-insensitive uri substring, sorts
// (last_seen DESC, id DESC), skips through a known cursor id, and pages.
func FilterDatasets(all []CatalogDataset, f CatalogListFilter) CatalogDatasetPage {
	var ds []CatalogDataset
	for _, d := range all {
		if f.Kind != nil && d.Kind != *f.Kind {
			continue
		}
		if f.Q != nil && !strings.Contains(strings.ToLower(d.URI), strings.ToLower(*f.Q)) {
			continue
		}
		ds = append(ds, d)
	}
	sort.SliceStable(ds, func(i, j int) bool {
		if !ds[i].LastSeen.Equal(ds[j].LastSeen) {
			return ds[i].LastSeen.After(ds[j].LastSeen)
		}
		return ds[i].ID > ds[j].ID
	})
	if f.Cursor != nil {
		for i, d := range ds {
			if d.ID == *f.Cursor {
				ds = ds[i+1:]
				break
			}
		}
	}
	limit := EffectiveLimit(f.Limit)
	page := CatalogDatasetPage{Datasets: []CatalogDataset{}}
	if len(ds) > limit {
		page.NextCursor = ptr(ds[limit-1].ID)
		ds = ds[:limit]
	}
	page.Datasets = append(page.Datasets, ds...)
	return page
}

// ProfileView truncates to ProfileDetailLimit; nil when empty.
func ProfileView(historyNewestFirst []CatalogProfileRecord) *CatalogProfile {
	if len(historyNewestFirst) == 0 {
		return nil
	}
	if len(historyNewestFirst) > ProfileDetailLimit {
		historyNewestFirst = historyNewestFirst[:ProfileDetailLimit]
	}
	return &CatalogProfile{Latest: historyNewestFirst[0], History: historyNewestFirst}
}

// LineageSlice keeps the edges reachable from root within depth rounds
// (either direction), preserving input order; no root keeps everything.
func LineageSlice(edges []CatalogLineageEdge, root *string, depth uint32) []CatalogLineageEdge {
	if root == nil {
		return edges
	}
	if depth < 1 {
		depth = 1
	}
	seen := map[string]bool{*root: true}
	frontier := map[string]bool{*root: true}
	kept := make([]bool, len(edges))
	for round := uint32(0); round < depth; round++ {
		next := map[string]bool{}
		for i, e := range edges {
			if kept[i] || !(frontier[e.SrcID] || frontier[e.DstID]) {
				continue
			}
			kept[i] = true
			for _, n := range []string{e.SrcID, e.DstID} {
				if !seen[n] {
					seen[n] = true
					next[n] = true
				}
			}
		}
		if len(next) == 0 {
			break
		}
		frontier = next
	}
	out := []CatalogLineageEdge{}
	for i, e := range edges {
		if kept[i] {
			out = append(out, e)
		}
	}
	return out
}

// SortEdges orders last_seen DESC, src_id, dst_id (the backends' order).
func SortEdges(edges []CatalogLineageEdge) {
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if !a.LastSeen.Equal(b.LastSeen) {
			return a.LastSeen.After(b.LastSeen)
		}
		if a.SrcID != b.SrcID {
			return a.SrcID < b.SrcID
		}
		return a.DstID < b.DstID
	})
}

// SplitEdges partitions edges into downstream (src = id) and upstream
// (dst = id, excluding self-loops, which are downstream only).
func SplitEdges(edges []CatalogLineageEdge, id string) (up, down []CatalogLineageEdge) {
	up, down = []CatalogLineageEdge{}, []CatalogLineageEdge{}
	for _, e := range edges {
		if e.SrcID == id {
			down = append(down, e)
		} else if e.DstID == id {
			up = append(up, e)
		}
	}
	return up, down
}

// MarshalJSON flattens the dataset next to the detail fields (the embedded
// dataset's own MarshalJSON would otherwise be promoted and drop them).
func (d CatalogDatasetDetail) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal(d.CatalogDataset)
	if err != nil {
		return nil, err
	}
	nz := func(e []CatalogLineageEdge) []CatalogLineageEdge {
		if e == nil {
			return []CatalogLineageEdge{}
		}
		return e
	}
	tl, st := d.SchemaTimeline, d.Stats
	if tl == nil {
		tl = []CatalogSchemaVersion{}
	}
	if st == nil {
		st = []CatalogStatsPoint{}
	}
	tail, err := json.Marshal(struct {
		SchemaTimeline []CatalogSchemaVersion `json:"schema_timeline"`
		Stats          []CatalogStatsPoint    `json:"stats"`
		Upstream       []CatalogLineageEdge   `json:"upstream"`
		Downstream     []CatalogLineageEdge   `json:"downstream"`
		Profile        *CatalogProfile        `json:"profile"`
	}{tl, st, nz(d.Upstream), nz(d.Downstream), d.Profile})
	if err != nil {
		return nil, err
	}
	out := append(head[:len(head)-1:len(head)-1], ',')
	return append(out, tail[1:]...), nil
}
