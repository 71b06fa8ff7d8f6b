package connector

import "errors"

// ReplayChecker is implemented by sources that can feed delivery:
// exactly_once. Exactly-once needs a deterministic replay: a source opened
// with the bookmark of a committed page must emit exactly the records that
// followed that page, in the same pages' order (the engine then skips
// nothing and duplicates nothing). CheckReplay returns nil when the source,
// as configured, does (SQL and file sources with a replication_key, a
// Redis stream, an ascending REST API), or an error naming the setting
// that prevents it.
//
// A source that does not implement ReplayChecker cannot feed exactly-once:
// the default is to refuse, so that a new source is never taken for
// deterministic by accident.
type ReplayChecker interface {
	CheckReplay() error
}

// CheckReplay is nil when src replays deterministically from its
// bookmarks (see ReplayChecker).
func CheckReplay(src Source) error {
	rc, ok := src.(ReplayChecker)
	if !ok {
		return errors.New("it does not replay deterministically from a bookmark")
	}
	return rc.CheckReplay()
}

// ErrNoReplicationKey is the CheckReplay answer of a source that replays
// deterministically only with a replication_key.
var ErrNoReplicationKey = errors.New("set replication_key: without it the source saves no bookmark to resume from")
