package sqlstore

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/faucet-hq/faucet/internal/history"
)

func vstr(v uint32) string { return strconv.FormatUint(uint64(v), 10) }

// readMaxThenInsert runs "read COALESCE(MAX), insert max+1" in a write
// transaction (BEGIN IMMEDIATE on SQLite), retrying any failure of begin,
// read, insert or commit with RetryBackoff while the ClaimAttempts budget
// lasts: a primary-key conflict means another writer took max+1, and the
// next attempt picks up the winner's number (never overwrites it).
func (s *Store) readMaxThenInsert(ctx context.Context, maxQ string, id string, insert func(ex execer, next uint32) error) (uint32, error) {
	var last error
	for attempt := 1; attempt <= history.ClaimAttempts; attempt++ {
		if err := history.RetryBackoff(ctx, attempt); err != nil {
			return 0, classify("", err)
		}
		var next uint32
		err := s.withTx(ctx, func(tx *sql.Tx) error {
			var max int64
			if err := tx.QueryRowContext(ctx, maxQ, id).Scan(&max); err != nil {
				return err
			}
			next = uint32(max) + 1
			return insert(tx, next)
		})
		if err == nil {
			return next, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return 0, last
}

// TemplateRegister assigns the next version (max+1) and stores the record,
// then prunes versions beyond TemplateVersionRetain (best effort).
func (s *Store) TemplateRegister(ctx context.Context, d history.TemplateDraft) (history.TemplateRecord, error) {
	var rec history.TemplateRecord
	_, err := s.readMaxThenInsert(ctx, s.st.templateMaxVersion, d.ID, func(ex execer, next uint32) error {
		rec = history.RecordFromDraft(d, next, s.now())
		body, err := history.EncodeJSON(rec, "pipeline template")
		if err != nil {
			return err
		}
		_, err = ex.ExecContext(ctx, s.st.templateInsert, d.ID, vstr(next), nullable(rec.Name), history.FormatTS(rec.CreatedAt), body)
		return err
	})
	if err != nil {
		if he, ok := err.(*history.Error); ok {
			he.Message = "could not assign a version for template '" + d.ID + "' after " + strconv.Itoa(history.ClaimAttempts) + " attempts: " + he.Message
		}
		return history.TemplateRecord{}, err
	}
	if keep, err := s.TemplateVersions(ctx, d.ID); err == nil {
		for _, v := range history.VersionsToPrune(keep) {
			_, _ = s.exec(ctx, s.st.templateDeleteVersion, d.ID, vstr(v))
		}
	}
	return rec, nil
}

// TemplateGet returns a version, or the highest when version is nil.
func (s *Store) TemplateGet(ctx context.Context, id string, version *uint32) (*history.TemplateRecord, error) {
	if version != nil {
		return getJSON[history.TemplateRecord](ctx, s, "pipeline template", s.st.templateSelectVersion, id, vstr(*version))
	}
	return getJSON[history.TemplateRecord](ctx, s, "pipeline template", s.st.templateSelectLatest, id)
}

// TemplateList returns the latest version of each template.
func (s *Store) TemplateList(ctx context.Context) ([]history.TemplateSummary, error) {
	all, err := listJSON[history.TemplateRecord](ctx, s, "pipeline template", s.st.templateSelectAll)
	if err != nil {
		return nil, err
	}
	return history.LatestPerID(all), nil
}

// TemplateVersions lists versions newest first (unparseable rows skipped).
func (s *Store) TemplateVersions(ctx context.Context, id string) ([]uint32, error) {
	vs, err := s.bodies(ctx, s.st.templateVersions, id)
	if err != nil {
		return nil, err
	}
	out := []uint32{}
	for _, v := range vs {
		if n, err := strconv.ParseUint(v, 10, 32); err == nil {
			out = append(out, uint32(n))
		}
	}
	return out, nil
}

// TemplateDelete deletes one version with the tags, launches and version
// deprecation aimed at it, or the whole template; returns versions deleted.
func (s *Store) TemplateDelete(ctx context.Context, id string, version *uint32) (int, error) {
	var n int64
	err := s.withTxRetry(ctx, func(ex execer) error {
		var qs []string
		args := []any{id}
		final := s.st.templateDeleteAll
		if version != nil {
			args = append(args, vstr(*version))
			qs = []string{s.st.templateDeleteTagsForVersion, s.st.templateDeleteLaunchesForVersion, s.st.templateDeleteVersionDeprecation}
			final = s.st.templateDeleteVersion
		} else {
			qs = []string{s.st.templateDeleteTagsAll, s.st.templateDeleteLaunchesAll, s.st.templateDeleteDeprecation, s.st.templateDeleteVersionDeprecationsAll}
		}
		for _, q := range qs {
			if _, err := ex.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		res, err := ex.ExecContext(ctx, final, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// TemplateSetTag points a tag at a version.
func (s *Store) TemplateSetTag(ctx context.Context, id, tag string, version uint32) error {
	_, err := s.exec(ctx, s.st.templateUpsertTag, id, tag, vstr(version), history.FormatTS(s.now()))
	return err
}

// TemplateTags returns the tags (unparseable versions skipped).
func (s *Store) TemplateTags(ctx context.Context, id string) (map[string]uint32, error) {
	rows, err := s.queryStrings(ctx, s.st.templateSelectTags, id)
	if err != nil {
		return nil, err
	}
	out := map[string]uint32{}
	for _, r := range rows {
		if n, err := strconv.ParseUint(r[1].String, 10, 32); err == nil {
			out[r[0].String] = uint32(n)
		}
	}
	return out, nil
}

// TemplateDeleteTag removes a tag.
func (s *Store) TemplateDeleteTag(ctx context.Context, id, tag string) (bool, error) {
	n, err := s.exec(ctx, s.st.templateDeleteTag, id, tag)
	return n > 0, err
}

// TemplateLaunch appends a launch (seq = max+1) unless version is already
// stable (re-launching it would destroy the rollback target).
func (s *Store) TemplateLaunch(ctx context.Context, id string, version uint32, by *string) (*uint32, error) {
	log, err := s.TemplateLaunches(ctx, id)
	if err != nil {
		return nil, err
	}
	if v, ok := history.StableVersion(log); ok && v == version {
		return nil, nil
	}
	seq, err := s.readMaxThenInsert(ctx, s.st.templateMaxLaunchSeq, id, func(ex execer, next uint32) error {
		_, err := ex.ExecContext(ctx, s.st.templateInsertLaunch, id, vstr(next), vstr(version), history.FormatTS(s.now()), nullable(by))
		return err
	})
	if err != nil {
		return nil, err
	}
	return &seq, nil
}

// TemplateLaunches returns the launch log newest first (bad rows skipped).
func (s *Store) TemplateLaunches(ctx context.Context, id string) ([]history.LaunchRecord, error) {
	rows, err := s.queryStrings(ctx, s.st.templateSelectLaunches, id)
	if err != nil {
		return nil, err
	}
	out := []history.LaunchRecord{}
	for _, r := range rows {
		seq, e1 := strconv.ParseUint(r[0].String, 10, 32)
		v, e2 := strconv.ParseUint(r[1].String, 10, 32)
		if e1 != nil || e2 != nil {
			continue
		}
		out = append(out, history.LaunchRecord{Seq: uint32(seq), Version: uint32(v), LaunchedAt: history.ParseTS(r[2].String), LaunchedBy: nsPtr(r[3])})
	}
	return out, nil
}

// TemplateSetDeprecation upserts or clears the template's marker.
func (s *Store) TemplateSetDeprecation(ctx context.Context, id string, rec *history.DeprecationRecord) error {
	var err error
	if rec == nil {
		_, err = s.exec(ctx, s.st.templateDeleteDeprecation, id)
	} else {
		_, err = s.exec(ctx, s.st.templateUpsertDeprecation, id, history.FormatTS(rec.DeprecatedAt), nullable(rec.DeprecatedBy), nullable(rec.Reason))
	}
	return err
}

// TemplateDeprecation returns the template's marker.
func (s *Store) TemplateDeprecation(ctx context.Context, id string) (*history.DeprecationRecord, error) {
	rows, err := s.queryStrings(ctx, s.st.templateSelectDeprecation, id)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	r := rows[0]
	return &history.DeprecationRecord{DeprecatedAt: history.ParseTS(r[0].String), DeprecatedBy: nsPtr(r[1]), Reason: nsPtr(r[2])}, nil
}

// TemplateSetVersionDeprecation upserts or clears a version's marker.
func (s *Store) TemplateSetVersionDeprecation(ctx context.Context, id string, version uint32, rec *history.DeprecationRecord) error {
	var err error
	if rec == nil {
		_, err = s.exec(ctx, s.st.templateDeleteVersionDeprecation, id, vstr(version))
	} else {
		_, err = s.exec(ctx, s.st.templateUpsertVersionDeprecation, id, vstr(version), history.FormatTS(rec.DeprecatedAt), nullable(rec.DeprecatedBy), nullable(rec.Reason))
	}
	return err
}

// TemplateVersionDeprecations lists version markers, newest version first.
func (s *Store) TemplateVersionDeprecations(ctx context.Context, id string) ([]history.VersionDeprecation, error) {
	rows, err := s.queryStrings(ctx, s.st.templateSelectVersionDeprecations, id)
	if err != nil {
		return nil, err
	}
	out := []history.VersionDeprecation{}
	for _, r := range rows {
		v, err := strconv.ParseUint(r[0].String, 10, 32)
		if err != nil {
			continue
		}
		out = append(out, history.VersionDeprecation{Version: uint32(v), DeprecationRecord: history.DeprecationRecord{
			DeprecatedAt: history.ParseTS(r[1].String), DeprecatedBy: nsPtr(r[2]), Reason: nsPtr(r[3])}})
	}
	return out, nil
}
