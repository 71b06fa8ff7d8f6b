package memory

import (
	"context"
	"sort"

	"github.com/faucet-hq/faucet/internal/history"
)

// TemplateRegister assigns max+1 under the lock, stores, and prunes versions
// beyond the retention count.
func (s *Store) TemplateRegister(_ context.Context, d history.TemplateDraft) (history.TemplateRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.templates[d.ID]
	if vs == nil {
		vs = map[uint32]history.TemplateRecord{}
		s.templates[d.ID] = vs
	}
	var max uint32
	for v := range vs {
		if v > max {
			max = v
		}
	}
	rec, err := roundTrip(history.RecordFromDraft(d, max+1, s.now()), "pipeline template")
	if err != nil {
		return history.TemplateRecord{}, err
	}
	vs[rec.Version] = rec
	for _, v := range history.VersionsToPrune(s.versionsLocked(d.ID)) {
		delete(vs, v)
	}
	return rec, nil
}

func (s *Store) versionsLocked(id string) []uint32 {
	out := []uint32{}
	for v := range s.templates[id] {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] > out[j] })
	return out
}

// TemplateGet returns a version, or the highest when version is nil.
func (s *Store) TemplateGet(_ context.Context, id string, version *uint32) (*history.TemplateRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.templates[id]
	var v uint32
	if version != nil {
		v = *version
	} else if all := s.versionsLocked(id); len(all) > 0 {
		v = all[0]
	}
	r, ok := vs[v]
	if !ok {
		return nil, nil
	}
	return &r, nil
}

// TemplateList returns the latest version of each template.
func (s *Store) TemplateList(_ context.Context) ([]history.TemplateSummary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []history.TemplateRecord
	for _, vs := range s.templates {
		for _, r := range vs {
			all = append(all, r)
		}
	}
	return history.LatestPerID(all), nil
}

// TemplateVersions lists version numbers newest first.
func (s *Store) TemplateVersions(_ context.Context, id string) ([]uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versionsLocked(id), nil
}

// TemplateDelete deletes one version (with the tags, launches and version
// deprecation aimed at it) or the whole template.
func (s *Store) TemplateDelete(_ context.Context, id string, version *uint32) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if version != nil {
		v := *version
		for tag, tv := range s.tags[id] {
			if tv == v {
				delete(s.tags[id], tag)
			}
		}
		kept := s.launches[id][:0]
		for _, l := range s.launches[id] {
			if l.Version != v {
				kept = append(kept, l)
			}
		}
		s.launches[id] = kept
		delete(s.versionDeps[id], v)
		if _, ok := s.templates[id][v]; !ok {
			return 0, nil
		}
		delete(s.templates[id], v)
		return 1, nil
	}
	delete(s.tags, id)
	delete(s.launches, id)
	delete(s.deps, id)
	delete(s.versionDeps, id)
	n := len(s.templates[id])
	delete(s.templates, id)
	return n, nil
}

// TemplateSetTag points a tag at a version.
func (s *Store) TemplateSetTag(_ context.Context, id, tag string, version uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tags[id] == nil {
		s.tags[id] = map[string]uint32{}
	}
	s.tags[id][tag] = version
	return nil
}

// TemplateTags returns a template's tags.
func (s *Store) TemplateTags(_ context.Context, id string) (map[string]uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]uint32{}
	for k, v := range s.tags[id] {
		out[k] = v
	}
	return out, nil
}

// TemplateDeleteTag removes a tag.
func (s *Store) TemplateDeleteTag(_ context.Context, id, tag string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.tags[id][tag]
	delete(s.tags[id], tag)
	return ok, nil
}

// TemplateLaunch appends a launch unless version is already stable.
func (s *Store) TemplateLaunch(_ context.Context, id string, version uint32, by *string) (*uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	log := s.launches[id]
	var max uint32
	for _, l := range log {
		if l.Seq > max {
			max = l.Seq
		}
	}
	if len(log) > 0 && log[len(log)-1].Version == version {
		return nil, nil
	}
	seq := max + 1
	at := history.ParseTS(history.FormatTS(s.now()))
	s.launches[id] = append(log, history.LaunchRecord{Seq: seq, Version: version, LaunchedAt: at, LaunchedBy: by})
	return &seq, nil
}

// TemplateLaunches returns the launch log newest first.
func (s *Store) TemplateLaunches(_ context.Context, id string) ([]history.LaunchRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]history.LaunchRecord{}, s.launches[id]...)
	sort.Slice(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	return out, nil
}

// TemplateSetDeprecation sets or clears the template deprecation marker.
func (s *Store) TemplateSetDeprecation(_ context.Context, id string, rec *history.DeprecationRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec == nil {
		delete(s.deps, id)
		return nil
	}
	r := *rec
	r.DeprecatedAt = history.ParseTS(history.FormatTS(r.DeprecatedAt))
	s.deps[id] = r
	return nil
}

// TemplateDeprecation returns the template deprecation marker.
func (s *Store) TemplateDeprecation(_ context.Context, id string) (*history.DeprecationRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.deps[id]
	if !ok {
		return nil, nil
	}
	return &r, nil
}

// TemplateSetVersionDeprecation sets or clears a version's marker.
func (s *Store) TemplateSetVersionDeprecation(_ context.Context, id string, version uint32, rec *history.DeprecationRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec == nil {
		delete(s.versionDeps[id], version)
		return nil
	}
	if s.versionDeps[id] == nil {
		s.versionDeps[id] = map[uint32]history.DeprecationRecord{}
	}
	r := *rec
	r.DeprecatedAt = history.ParseTS(history.FormatTS(r.DeprecatedAt))
	s.versionDeps[id][version] = r
	return nil
}

// TemplateVersionDeprecations lists version markers newest version first.
func (s *Store) TemplateVersionDeprecations(_ context.Context, id string) ([]history.VersionDeprecation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []history.VersionDeprecation{}
	for v, r := range s.versionDeps[id] {
		out = append(out, history.VersionDeprecation{Version: v, DeprecationRecord: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version > out[j].Version })
	return out, nil
}
