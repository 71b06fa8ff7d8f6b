package sqlstore

import (
	"context"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// RecordAudit inserts the entry and, when it has a tenant, its companion row.
func (s *Store) RecordAudit(ctx context.Context, e history.AuditEntry) error {
	if _, err := s.exec(ctx, s.st.insertAudit, e.ID, history.FormatTS(e.Timestamp), e.Principal, e.Role, e.Action,
		nullable(e.RunID), nullable(e.ConfigFingerprint), nullable(e.SourceIP), e.Result); err != nil {
		return err
	}
	if e.Tenant != nil {
		_, err := s.exec(ctx, s.st.insertAuditTenant, e.ID, *e.Tenant)
		return err
	}
	return nil
}

// ListAudit returns matching entries newest first (ts DESC, id DESC).
func (s *Store) ListAudit(ctx context.Context, f history.AuditFilter) ([]history.AuditEntry, error) {
	pr, ac, te := nullable(f.Principal), nullable(f.Action), nullable(f.Tenant)
	si, un := nullTS(f.Since), nullTS(f.Until)
	rows, err := s.queryStrings(ctx, s.st.listAudit, pr, pr, ac, ac, si, si, un, un, te, te, int64(history.EffectiveLimit(f.Limit)))
	if err != nil {
		return nil, err
	}
	out := make([]history.AuditEntry, 0, len(rows))
	for _, r := range rows {
		out = append(out, history.AuditEntry{ID: r[0].String, Timestamp: history.ParseTS(r[1].String),
			Principal: r[2].String, Role: r[3].String, Action: r[4].String, RunID: nsPtr(r[5]),
			ConfigFingerprint: nsPtr(r[6]), SourceIP: nsPtr(r[7]), Result: r[8].String, Tenant: nsPtr(r[9])})
	}
	return out, nil
}

// RecordRunLogs inserts a batch in one transaction, ignoring repeated seqs.
func (s *Store) RecordRunLogs(ctx context.Context, runID string, lines []history.RunLogLine) error {
	if len(lines) == 0 {
		return nil
	}
	return s.withTxRetry(ctx, func(ex execer) error {
		for _, l := range lines {
			if _, err := ex.ExecContext(ctx, s.st.insertRunLog, runID, history.PadSeq(l.Seq), l.TS, l.Level, l.Line); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListRunLogs pages lines after afterSeq (oldest first), hiding the
// truncation sentinel whose presence sets Truncated.
func (s *Store) ListRunLogs(ctx context.Context, runID string, afterSeq *uint64, limit int) (history.RunLogPage, error) {
	sentinel := history.PadSeq(history.RunLogTruncatedSeq)
	var after any
	if afterSeq != nil {
		after = history.PadSeq(*afterSeq)
	}
	rows, err := s.queryStrings(ctx, s.st.listRunLogs, runID, sentinel, after, after, int64(history.EffectiveLimit(limit)))
	if err != nil {
		return history.RunLogPage{}, err
	}
	page := history.RunLogPage{Lines: make([]history.RunLogLine, 0, len(rows))}
	for _, r := range rows {
		page.Lines = append(page.Lines, history.RunLogLine{Seq: history.UnpadSeq(r[0].String), TS: r[1].String, Level: r[2].String, Line: r[3].String})
	}
	_, page.Truncated, err = s.oneBody(ctx, s.st.runLogTruncated, runID, sentinel)
	return page, err
}

// PurgeRunLogs deletes lines captured before now-olderThan.
func (s *Store) PurgeRunLogs(ctx context.Context, olderThan time.Duration) (int, error) {
	n, err := s.exec(ctx, s.st.purgeRunLogs, history.Threshold(s.now(), olderThan))
	return int(n), err
}
