package memory

import (
	"context"
	"sort"

	"github.com/faucet-hq/faucet/internal/history"
)

// CatalogRecord merges an update: per dataset (sources then sink) apply the
// observation, append a new schema version, record one stats point per
// (dataset, recorded_at) and cap at StatsRetain; then merge one edge per
// source from a pre-loop snapshot of the edges (mirroring the SQL PK dedup).
func (s *Store) CatalogRecord(_ context.Context, u history.CatalogUpdate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := history.FormatTS(u.RecordedAt)
	obsAll := append(append([]history.DatasetObservation(nil), u.Sources...), u.Sink)
	for _, obs := range obsAll {
		id := history.DatasetID(obs.URI)
		var existing *history.CatalogDataset
		if d, ok := s.datasets[id]; ok {
			existing = &d
		}
		ds, nv := history.ApplyObservation(existing, obs, u.RunID, u.Pipeline, u.Row, u.RecordedAt)
		ds, err := roundTrip(ds, "catalog dataset")
		if err != nil {
			return err
		}
		s.datasets[id] = ds
		if nv != nil {
			dup := false
			for _, v := range s.schemaVer[id] {
				dup = dup || v.Version == nv.Version
			}
			if !dup {
				v, err := roundTrip(*nv, "catalog schema version")
				if err != nil {
					return err
				}
				s.schemaVer[id] = append(s.schemaVer[id], v)
			}
		}
		dup := false
		for _, p := range s.stats[id] {
			dup = dup || history.FormatTS(p.RecordedAt) == at
		}
		if !dup {
			s.stats[id] = append(s.stats[id], history.CatalogStatsPoint{RecordedAt: history.ParseTS(at), RunID: u.RunID, Records: obs.Records})
			sort.Slice(s.stats[id], func(i, j int) bool { return s.stats[id][i].RecordedAt.After(s.stats[id][j].RecordedAt) })
			if len(s.stats[id]) > history.StatsRetain {
				s.stats[id] = s.stats[id][:history.StatsRetain]
			}
		}
	}
	snapshot := make(map[[2]string]history.CatalogLineageEdge, len(s.edges))
	for k, e := range s.edges {
		snapshot[k] = e
	}
	dst := history.DatasetID(u.Sink.URI)
	for _, src := range u.Sources {
		k := [2]string{history.DatasetID(src.URI), dst}
		var existing *history.CatalogLineageEdge
		if e, ok := snapshot[k]; ok {
			existing = &e
		}
		e, err := roundTrip(history.ApplyEdge(existing, u, src), "catalog edge")
		if err != nil {
			return err
		}
		s.edges[k] = e
	}
	return nil
}

// CatalogAnnotate edits an existing dataset's owners/consumers.
func (s *Store) CatalogAnnotate(_ context.Context, id string, a history.CatalogAnnotation) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds, ok := s.datasets[id]
	if !ok {
		return false, nil
	}
	history.ApplyAnnotation(&ds, a)
	ds, err := roundTrip(ds, "catalog dataset")
	if err != nil {
		return false, err
	}
	s.datasets[id] = ds
	return true, nil
}

// CatalogListDatasets pages datasets through the shared FilterDatasets.
func (s *Store) CatalogListDatasets(_ context.Context, f history.CatalogListFilter) (history.CatalogDatasetPage, error) {
	s.mu.Lock()
	all := make([]history.CatalogDataset, 0, len(s.datasets))
	for _, d := range s.datasets {
		all = append(all, d)
	}
	s.mu.Unlock()
	all, err := roundTrip(all, "catalog dataset")
	if err != nil {
		return history.CatalogDatasetPage{}, err
	}
	return history.FilterDatasets(all, f), nil
}

func (s *Store) edgesLocked() []history.CatalogLineageEdge {
	out := make([]history.CatalogLineageEdge, 0, len(s.edges))
	for _, e := range s.edges {
		out = append(out, e)
	}
	history.SortEdges(out)
	return out
}

// CatalogGetDataset returns the dataset detail.
func (s *Store) CatalogGetDataset(_ context.Context, id string) (*history.CatalogDatasetDetail, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds, ok := s.datasets[id]
	if !ok {
		return nil, nil
	}
	d := history.CatalogDatasetDetail{CatalogDataset: ds}
	d.SchemaTimeline = append([]history.CatalogSchemaVersion{}, s.schemaVer[id]...)
	sort.Slice(d.SchemaTimeline, func(i, j int) bool { return d.SchemaTimeline[i].Version < d.SchemaTimeline[j].Version })
	st := s.stats[id]
	if len(st) > history.StatsDetailLimit {
		st = st[:history.StatsDetailLimit]
	}
	d.Stats = append([]history.CatalogStatsPoint{}, st...)
	d.Upstream, d.Downstream = history.SplitEdges(s.edgesLocked(), id)
	d.Profile = history.ProfileView(s.profileHistoryLocked(id, history.ProfileDetailLimit))
	out, err := roundTrip(d, "catalog dataset detail")
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CatalogRecordProfile stores a profile keyed (dataset, recorded_at),
// ignoring duplicates, capped at ProfileRetain.
func (s *Store) CatalogRecordProfile(_ context.Context, id string, rec history.CatalogProfileRecord) error {
	rec, err := roundTrip(rec, "catalog profile")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at := history.FormatTS(rec.RecordedAt)
	for _, p := range s.profiles[id] {
		if history.FormatTS(p.RecordedAt) == at {
			return nil
		}
	}
	ps := append(s.profiles[id], rec)
	sort.Slice(ps, func(i, j int) bool { return ps[i].RecordedAt.After(ps[j].RecordedAt) })
	if len(ps) > history.ProfileRetain {
		ps = ps[:history.ProfileRetain]
	}
	s.profiles[id] = ps
	return nil
}

func (s *Store) profileHistoryLocked(id string, limit int) []history.CatalogProfileRecord {
	ps := s.profiles[id]
	if limit >= 0 && len(ps) > limit {
		ps = ps[:limit]
	}
	return append([]history.CatalogProfileRecord{}, ps...)
}

// CatalogProfileHistory returns up to limit profiles, newest first.
func (s *Store) CatalogProfileHistory(_ context.Context, id string, limit int) ([]history.CatalogProfileRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.profileHistoryLocked(id, limit), nil
}

// CatalogLineage returns the lineage slice around root.
func (s *Store) CatalogLineage(_ context.Context, root *string, depth uint32) ([]history.CatalogLineageEdge, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return history.LineageSlice(s.edgesLocked(), root, depth), nil
}

// CatalogRecordConfigSnapshot stores the latest snapshot per pipeline.
func (s *Store) CatalogRecordConfigSnapshot(_ context.Context, snap history.ConfigSnapshot) error {
	snap, err := roundTrip(snap, "config snapshot")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snapshots[snap.Pipeline] = snap
	return nil
}

// CatalogLastConfigSnapshot returns the latest snapshot of a pipeline.
func (s *Store) CatalogLastConfigSnapshot(_ context.Context, pipeline string) (*history.ConfigSnapshot, error) {
	s.mu.Lock()
	snap, ok := s.snapshots[pipeline]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	out, err := roundTrip(snap, "config snapshot")
	return &out, err
}
