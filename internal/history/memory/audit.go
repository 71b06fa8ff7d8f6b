package memory

import (
	"context"
	"sort"
	"time"

	"github.com/faucet-hq/faucet/internal/history"
)

// RecordAudit appends to the ring (oldest dropped past AuditRingCap).
func (s *Store) RecordAudit(_ context.Context, e history.AuditEntry) error {
	e.Timestamp = history.ParseTS(history.FormatTS(e.Timestamp))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.audit = append(s.audit, e)
	if len(s.audit) > history.AuditRingCap {
		s.audit = append([]history.AuditEntry(nil), s.audit[len(s.audit)-history.AuditRingCap:]...)
	}
	return nil
}

// ListAudit filters, orders (ts DESC, id DESC) and truncates to max(1,limit).
func (s *Store) ListAudit(_ context.Context, f history.AuditFilter) ([]history.AuditEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []history.AuditEntry{}
	for _, e := range s.audit {
		if f.Matches(e) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Timestamp.Equal(out[j].Timestamp) {
			return out[i].Timestamp.After(out[j].Timestamp)
		}
		return out[i].ID > out[j].ID
	})
	if l := history.EffectiveLimit(f.Limit); len(out) > l {
		out = out[:l]
	}
	return out, nil
}

// RecordRunLogs stores lines, ignoring a seq already stored for the run.
func (s *Store) RecordRunLogs(_ context.Context, runID string, lines []history.RunLogLine) error {
	if len(lines) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.logs[runID]
	if !ok {
		m = map[uint64]history.RunLogLine{}
		s.logs[runID] = m
	}
	for _, l := range lines {
		if _, dup := m[l.Seq]; !dup {
			m[l.Seq] = l
		}
	}
	return nil
}

// ListRunLogs pages a run's lines after afterSeq, oldest first, excluding the
// truncation sentinel whose presence sets Truncated.
func (s *Store) ListRunLogs(_ context.Context, runID string, afterSeq *uint64, limit int) (history.RunLogPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	page := history.RunLogPage{Lines: []history.RunLogLine{}}
	m := s.logs[runID]
	_, page.Truncated = m[history.RunLogTruncatedSeq]
	for seq, l := range m {
		if seq == history.RunLogTruncatedSeq || (afterSeq != nil && seq <= *afterSeq) {
			continue
		}
		page.Lines = append(page.Lines, l)
	}
	sort.Slice(page.Lines, func(i, j int) bool { return page.Lines[i].Seq < page.Lines[j].Seq })
	if l := history.EffectiveLimit(limit); len(page.Lines) > l {
		page.Lines = page.Lines[:l]
	}
	return page, nil
}

// PurgeRunLogs drops lines whose captured ts sorts before now-olderThan (the
// SQL text comparison), and runs left empty.
func (s *Store) PurgeRunLogs(_ context.Context, olderThan time.Duration) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	thr := history.Threshold(s.now(), olderThan)
	n := 0
	for run, m := range s.logs {
		for seq, l := range m {
			if l.TS < thr {
				delete(m, seq)
				n++
			}
		}
		if len(m) == 0 {
			delete(s.logs, run)
		}
	}
	return n, nil
}
