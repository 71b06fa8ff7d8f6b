// Package sqlutil holds what the SQL connectors (sqlite, postgres, mysql)
// share: the write-mode config and its planner (key extraction, last write
// wins, delete markers), column inference for create_table and
// evolve_schema, identifier quoting, parameter conversion and credential
// redaction for error messages and dataset URIs.
package sqlutil

import (
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Write modes.
const (
	Append    = "append"
	Upsert    = "upsert"
	Delete    = "delete"
	Overwrite = "overwrite"
)

// DeleteMarker marks upsert records that are deletes: a record whose
// Field holds one of Values (compared as text) deletes its key.
type DeleteMarker struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
}

// CheckWriteSpec validates write_mode, key and delete_marker together.
func CheckWriteSpec(mode string, key []string, dm *DeleteMarker) error {
	seen := map[string]bool{}
	for i, k := range key {
		if strings.TrimSpace(k) == "" {
			return connector.ConfigErrorf(fmt.Sprintf("key[%d]", i), "must not be empty")
		}
		if seen[k] {
			return connector.ConfigErrorf(fmt.Sprintf("key[%d]", i), "duplicate key column %q", k)
		}
		seen[k] = true
	}
	if (mode == Upsert || mode == Delete) && len(key) == 0 {
		return connector.ConfigErrorf("key", "write_mode %s needs at least one key column", mode)
	}
	if dm != nil {
		if mode != Upsert {
			return connector.ConfigErrorf("delete_marker", "only applies to write_mode upsert, not %s", mode)
		}
		if dm.Field == "" || len(dm.Values) == 0 {
			return connector.ConfigErrorf("delete_marker", "needs a field and at least one value")
		}
	}
	return nil
}

// Plan is one page's writes after keying: rows to upsert (last write per
// key wins, first-seen order kept) and key tuples to delete.
type Plan struct {
	Upserts []connector.Record
	Deletes [][]connector.Value
}

// PlanWrites keys the page's records. mode delete turns every record into
// a delete; upsert uses dm to find deletes and strips the marker field.
// A record without a key column (or with a null key) fails the page with
// an error naming the record and the column.
func PlanWrites(recs []connector.Record, mode string, key []string, dm *DeleteMarker) (Plan, error) {
	var p Plan
	type slot struct {
		del bool
		i   int
	}
	idx := make(map[string]slot, len(recs))
	var kb strings.Builder
	for ri, r := range recs {
		tuple := make([]connector.Value, len(key))
		kb.Reset()
		for ki, k := range key {
			v, ok := r.Get(k)
			if !ok || v.IsNull() {
				return Plan{}, fmt.Errorf("record %d of the page (%s): key column %q is missing or null", ri+1, RecordHint(r, nil), k)
			}
			tuple[ki] = v
			kb.Write(connector.AppendJSON(nil, v))
			kb.WriteByte(0)
		}
		del := mode == Delete
		if dm != nil {
			if v, ok := r.Get(dm.Field); ok && !v.IsNull() {
				t := v.Text()
				for _, m := range dm.Values {
					if t == m {
						del = true
						break
					}
				}
			}
			if !del {
				r = r.Clone()
				r.Delete(dm.Field)
			}
		}
		ks := kb.String()
		if old, ok := idx[ks]; ok {
			// Last write wins; the earlier slot is emptied.
			if old.del {
				p.Deletes[old.i] = nil
			} else {
				p.Upserts[old.i] = connector.Record{}
			}
		}
		if del {
			idx[ks] = slot{true, len(p.Deletes)}
			p.Deletes = append(p.Deletes, tuple)
		} else {
			idx[ks] = slot{false, len(p.Upserts)}
			p.Upserts = append(p.Upserts, r)
		}
	}
	p.Upserts = compactRecords(p.Upserts)
	p.Deletes = compactTuples(p.Deletes)
	return p, nil
}

func compactRecords(rs []connector.Record) []connector.Record {
	out := rs[:0]
	for _, r := range rs {
		if r.Fields != nil {
			out = append(out, r)
		}
	}
	return out
}

func compactTuples(ts [][]connector.Value) [][]connector.Value {
	out := ts[:0]
	for _, t := range ts {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}
