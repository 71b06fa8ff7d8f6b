package sqlstore

import (
	"context"
	"strconv"

	"github.com/faucet-hq/faucet/internal/history"
)

// CatalogRecord merges an update read-merge-write per dataset (sources then
// sink), appends schema versions and stats points (idempotent per key, stats
// capped at StatsRetain), then upserts one edge per source computed from a
// single pre-loop read of the edges. Last write wins across instances.
func (s *Store) CatalogRecord(ctx context.Context, u history.CatalogUpdate) error {
	at := history.FormatTS(u.RecordedAt)
	obsAll := append(append([]history.DatasetObservation(nil), u.Sources...), u.Sink)
	for _, obs := range obsAll {
		id := history.DatasetID(obs.URI)
		existing, err := getJSON[history.CatalogDataset](ctx, s, "catalog dataset", s.st.catalogSelectDataset, id)
		if err != nil {
			return err
		}
		ds, nv := history.ApplyObservation(existing, obs, u.RunID, u.Pipeline, u.Row, u.RecordedAt)
		body, err := history.EncodeJSON(ds, "catalog dataset")
		if err != nil {
			return err
		}
		if _, err := s.exec(ctx, s.st.catalogUpsertDataset, ds.ID, ds.URI, ds.Kind, at, body); err != nil {
			return err
		}
		if nv != nil {
			vb, err := history.EncodeJSON(nv, "catalog schema version")
			if err != nil {
				return err
			}
			if _, err := s.exec(ctx, s.st.catalogInsertSchemaVersion, nv.DatasetID, strconv.FormatUint(uint64(nv.Version), 10), history.FormatTS(nv.RecordedAt), vb); err != nil {
				return err
			}
		}
		if _, err := s.exec(ctx, s.st.catalogInsertStat, id, at, u.RunID, strconv.FormatUint(obs.Records, 10)); err != nil {
			return err
		}
		if _, err := s.exec(ctx, s.st.catalogPruneStats, id, id, int64(history.StatsRetain)); err != nil {
			return err
		}
	}
	edges, err := s.allEdges(ctx)
	if err != nil {
		return err
	}
	dst := history.DatasetID(u.Sink.URI)
	for _, src := range u.Sources {
		srcID := history.DatasetID(src.URI)
		var existing *history.CatalogLineageEdge
		for i := range edges {
			if edges[i].SrcID == srcID && edges[i].DstID == dst {
				existing = &edges[i]
				break
			}
		}
		e := history.ApplyEdge(existing, u, src)
		body, err := history.EncodeJSON(e, "catalog edge")
		if err != nil {
			return err
		}
		if _, err := s.exec(ctx, s.st.catalogUpsertEdge, e.SrcID, e.DstID, at, body); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) allEdges(ctx context.Context) ([]history.CatalogLineageEdge, error) {
	return listJSON[history.CatalogLineageEdge](ctx, s, "catalog edge", s.st.catalogSelectEdges)
}

// CatalogAnnotate edits an existing dataset; unknown ids answer false.
func (s *Store) CatalogAnnotate(ctx context.Context, id string, a history.CatalogAnnotation) (bool, error) {
	ds, err := getJSON[history.CatalogDataset](ctx, s, "catalog dataset", s.st.catalogSelectDataset, id)
	if err != nil || ds == nil {
		return false, err
	}
	history.ApplyAnnotation(ds, a)
	body, err := history.EncodeJSON(ds, "catalog dataset")
	if err != nil {
		return false, err
	}
	_, err = s.exec(ctx, s.st.catalogUpsertDataset, ds.ID, ds.URI, ds.Kind, history.FormatTS(ds.LastSeen), body)
	return err == nil, err
}

// CatalogListDatasets loads every dataset and pages with the shared
// FilterDatasets (so memory and SQL cannot disagree).
func (s *Store) CatalogListDatasets(ctx context.Context, f history.CatalogListFilter) (history.CatalogDatasetPage, error) {
	all, err := listJSON[history.CatalogDataset](ctx, s, "catalog dataset", s.st.catalogSelectDatasets)
	if err != nil {
		return history.CatalogDatasetPage{}, err
	}
	return history.FilterDatasets(all, f), nil
}

// CatalogGetDataset returns the dataset with its timeline, newest stats,
// edges and profile view.
func (s *Store) CatalogGetDataset(ctx context.Context, id string) (*history.CatalogDatasetDetail, error) {
	ds, err := getJSON[history.CatalogDataset](ctx, s, "catalog dataset", s.st.catalogSelectDataset, id)
	if err != nil || ds == nil {
		return nil, err
	}
	d := history.CatalogDatasetDetail{CatalogDataset: *ds}
	if d.SchemaTimeline, err = listJSON[history.CatalogSchemaVersion](ctx, s, "catalog schema version", s.st.catalogSelectSchemaVersions, id); err != nil {
		return nil, err
	}
	rows, err := s.queryStrings(ctx, s.st.catalogSelectStats, id, int64(history.StatsDetailLimit))
	if err != nil {
		return nil, err
	}
	d.Stats = make([]history.CatalogStatsPoint, 0, len(rows))
	for _, r := range rows {
		n, _ := strconv.ParseUint(r[2].String, 10, 64)
		d.Stats = append(d.Stats, history.CatalogStatsPoint{RecordedAt: history.ParseTS(r[0].String), RunID: r[1].String, Records: n})
	}
	edges, err := s.allEdges(ctx)
	if err != nil {
		return nil, err
	}
	d.Upstream, d.Downstream = history.SplitEdges(edges, id)
	ph, err := s.CatalogProfileHistory(ctx, id, history.ProfileDetailLimit)
	if err != nil {
		return nil, err
	}
	d.Profile = history.ProfileView(ph)
	return &d, nil
}

// CatalogRecordProfile inserts a profile (duplicates ignored) and prunes the
// dataset's profiles to ProfileRetain.
func (s *Store) CatalogRecordProfile(ctx context.Context, id string, rec history.CatalogProfileRecord) error {
	body, err := history.EncodeJSON(rec, "catalog profile")
	if err != nil {
		return err
	}
	if _, err := s.exec(ctx, s.st.catalogInsertProfile, id, history.FormatTS(rec.RecordedAt), rec.RunID, body); err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.catalogPruneProfiles, id, id, int64(history.ProfileRetain))
	return err
}

// CatalogProfileHistory returns up to limit profiles, newest first.
func (s *Store) CatalogProfileHistory(ctx context.Context, id string, limit int) ([]history.CatalogProfileRecord, error) {
	return listJSON[history.CatalogProfileRecord](ctx, s, "catalog profile", s.st.catalogSelectProfiles, id, int64(limit))
}

// CatalogLineage returns the lineage slice around root.
func (s *Store) CatalogLineage(ctx context.Context, root *string, depth uint32) ([]history.CatalogLineageEdge, error) {
	edges, err := s.allEdges(ctx)
	if err != nil {
		return nil, err
	}
	return history.LineageSlice(edges, root, depth), nil
}

// CatalogRecordConfigSnapshot upserts the latest snapshot per pipeline.
func (s *Store) CatalogRecordConfigSnapshot(ctx context.Context, snap history.ConfigSnapshot) error {
	body, err := history.EncodeJSON(snap, "config snapshot")
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.st.catalogUpsertConfigSnapshot, snap.Pipeline, history.FormatTS(snap.RecordedAt), snap.FaucetVersion, body)
	return err
}

// CatalogLastConfigSnapshot returns a pipeline's latest snapshot.
func (s *Store) CatalogLastConfigSnapshot(ctx context.Context, pipeline string) (*history.ConfigSnapshot, error) {
	return getJSON[history.ConfigSnapshot](ctx, s, "config snapshot", s.st.catalogSelectConfigSnapshot, pipeline)
}
