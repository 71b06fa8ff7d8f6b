package rest

import (
	"log/slog"

	"github.com/faucet-hq/faucet/connector"
)

// incremental is the client-side filter and bookmark of an incremental
// read (faucet-cli 1.x's rules): with a start value, a record is kept when
// record[key] > start (connector.Compare); a record without the key (or
// with null) is dropped; a record whose key is of another type than the
// start (a string where the bookmark is a number) cannot be compared, so
// it is kept, with a warning, rather than silently lost. The bookmark is
// the highest key kept in this run.
type incremental struct {
	key       string
	ascending bool             // every page may carry the bookmark
	start     *connector.Value // exclusive lower bound; nil on a first run
	max       *connector.Value // highest key kept so far
	emitted   *connector.Value // bookmark last put on a page

	missing, mismatched int64
}

func newIncremental(key string, ascending bool, start *connector.Value) *incremental {
	if start != nil && start.IsNull() {
		start = nil
	}
	return &incremental{key: key, ascending: ascending, start: start}
}

// keep applies the filter to r and folds its key into the running max.
func (in *incremental) keep(r connector.Record) bool {
	v, ok := r.Get(in.key)
	hasKey := ok && !v.IsNull()
	if in.start != nil {
		switch {
		case !hasKey:
			in.missing++
			return false
		case !sameClass(v, *in.start):
			in.mismatched++
			return true // kept, but it does not move the bookmark
		case connector.Compare(v, *in.start) <= 0:
			return false
		}
	}
	if hasKey && (in.max == nil || connector.Compare(v, *in.max) > 0) {
		m := v.Detach()
		in.max = &m
	}
	return true
}

// pageBookmark is the bookmark of a page: in ascending mode the running
// max whenever it moved; otherwise only on the last page (last=true).
func (in *incremental) pageBookmark(last bool) *connector.Value {
	if in.max == nil || (!in.ascending && !last) {
		return nil
	}
	if in.emitted != nil && connector.Compare(*in.max, *in.emitted) == 0 {
		return nil
	}
	in.emitted = in.max
	return in.max
}

// pending is a bookmark that no page carried yet (the read stopped on a
// dropped duplicate page, max_pages or a loop guard): it goes out on an
// empty checkpoint page.
func (in *incremental) pending() *connector.Value {
	return in.pageBookmark(true)
}

// warn logs what the filter could not handle cleanly, once per run.
func (in *incremental) warn(log *slog.Logger) {
	if in.missing > 0 {
		log.Warn("rest: records without the replication key were skipped", "replication_key", in.key, "records", in.missing)
	}
	if in.mismatched > 0 {
		log.Warn("rest: records whose replication key is of another type than the bookmark were kept (they cannot be compared with it)",
			"replication_key", in.key, "bookmark_type", in.start.Kind().String(), "records", in.mismatched)
	}
}

// sameClass reports whether a and b can be ordered meaningfully: both
// numbers, both strings, both booleans, or the same kind otherwise.
func sameClass(a, b connector.Value) bool {
	num := func(k connector.Kind) bool { return k == connector.KindInt || k == connector.KindFloat }
	if num(a.Kind()) || num(b.Kind()) {
		return num(a.Kind()) && num(b.Kind())
	}
	return a.Kind() == b.Kind()
}
