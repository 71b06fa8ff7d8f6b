package state

import "context"

// ReadOnly wraps a store so that reads pass through and writes are dropped:
// what --dry-run and --limit use, so a preview never moves a bookmark.
func ReadOnly(s Store) Store { return readOnly{s} }

type readOnly struct{ Store }

func (readOnly) Put(context.Context, string, []byte) error { return nil }
func (readOnly) Delete(context.Context, string) error      { return nil }

// IsReadOnly reports whether s drops writes (so nothing it "saves" is real).
func IsReadOnly(s Store) bool {
	_, ok := s.(readOnly)
	return ok
}
