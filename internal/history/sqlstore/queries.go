package sqlstore

import (
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/internal/history"
)

// The three listings whose filters are pushed into SQL (the tables are never
// purged, so they must not be scanned whole). Every clause is an exact mirror
// of the shared predicate (LocalOutputFilter.Matches, UsageFilter.Matches,
// ChangeListFilter.Matches), which still runs on the decoded rows, so a LIMIT
// pushed down can never under-fill a page.

func (s *Store) localOutputQuery(f history.LocalOutputFilter) (string, []any) {
	var clauses []string
	var binds []any
	if !f.IncludeDeleted {
		clauses = append(clauses, "deleted_at IS NULL")
	}
	if f.DatasetID != nil {
		binds = append(binds, *f.DatasetID)
		clauses = append(clauses, "dataset_id="+s.d.placeholder(len(binds)))
	}
	if f.Pipeline != nil {
		binds = append(binds, *f.Pipeline)
		clauses = append(clauses, "pipeline="+s.d.placeholder(len(binds)))
	}
	q := "SELECT body FROM faucet_local_outputs" + where(clauses) + " ORDER BY last_written_at DESC, path ASC"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	return q, binds
}

func (s *Store) usageQuery(f history.UsageFilter) (string, []any) {
	var clauses []string
	var binds []any
	if f.Since != nil {
		binds = append(binds, history.FormatTS(*f.Since))
		clauses = append(clauses, "recorded_at >= "+s.d.placeholder(len(binds)))
	}
	if f.Until != nil {
		binds = append(binds, history.FormatTS(*f.Until))
		clauses = append(clauses, "recorded_at < "+s.d.placeholder(len(binds)))
	}
	if f.Pipeline != nil {
		binds = append(binds, *f.Pipeline)
		clauses = append(clauses, "pipeline="+s.d.placeholder(len(binds)))
	}
	q := "SELECT body FROM faucet_usage" + where(clauses) + " ORDER BY recorded_at DESC, run_id ASC, row_id ASC"
	if f.Tenant == nil { // the tenant is in the body: cap after decoding
		q += " LIMIT " + strconv.Itoa(f.EffectiveLimit())
	}
	return q, binds
}

func (s *Store) changeQuery(f history.ChangeListFilter) (string, []any) {
	var clauses []string
	var binds []any
	if f.Status != nil {
		binds = append(binds, string(*f.Status))
		clauses = append(clauses, "status="+s.d.placeholder(len(binds)))
	}
	if f.Kind != nil {
		binds = append(binds, string(*f.Kind))
		clauses = append(clauses, "kind="+s.d.placeholder(len(binds)))
	}
	if f.Requester != nil {
		binds = append(binds, *f.Requester)
		clauses = append(clauses, "requester="+s.d.placeholder(len(binds)))
	}
	q := "SELECT body FROM faucet_serve_changes" + where(clauses) + " ORDER BY created_at DESC, id ASC"
	if f.Tenant == nil {
		q += " LIMIT " + strconv.Itoa(f.EffectiveLimit())
	}
	return q, binds
}

func where(clauses []string) string {
	if len(clauses) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(clauses, " AND ")
}
