package transforms

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/faucet-hq/faucet/connector"
)

// keyCacheMax bounds the number of distinct keys a key cache remembers.
// Records whose keys are data (ids as object keys) would otherwise grow it
// without limit; past the bound, keys are computed on every use.
const keyCacheMax = 8192

// keyCache memoizes a key -> key function for the key-rewriting transforms.
// Keys repeat on every record, so after warm-up a lookup is one read of an
// immutable map through an atomic pointer: no lock, no allocation. Misses go
// to a mutex-guarded map that is published as the new read map once enough
// misses have accumulated (amortized O(1) per miss, as sync.Map does, but
// without boxing the string key into an interface).
type keyCache struct {
	fn   func(string) string
	read atomic.Pointer[map[string]keyPair]

	mu     sync.Mutex
	dirty  map[string]keyPair // superset of *read
	misses int
	stale  bool // dirty has entries that read lacks
}

// keyPair is a cached mapping. Both strings are private copies: a source may
// hand out keys that point into a read buffer it reuses later.
type keyPair struct {
	in, out string
}

func newKeyCache(fn func(string) string) *keyCache {
	c := &keyCache{fn: fn, dirty: map[string]keyPair{}}
	empty := map[string]keyPair{}
	c.read.Store(&empty)
	return c
}

// get returns the mapping of k. cached is false when the cache is full and
// the pair was computed for this call only (its in is then k itself).
func (c *keyCache) get(k string) (p keyPair, cached bool) {
	if p, ok := (*c.read.Load())[k]; ok {
		return p, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.dirty[k]
	if !ok {
		out := c.fn(k)
		if len(c.dirty) >= keyCacheMax {
			return keyPair{in: k, out: out}, false
		}
		p.in = strings.Clone(k)
		if out == k {
			p.out = p.in
		} else {
			p.out = strings.Clone(out)
		}
		c.dirty[p.in] = p
		c.stale = true
	}
	c.misses++
	if c.stale && c.misses >= len(c.dirty) {
		m := make(map[string]keyPair, len(c.dirty))
		for kk, vv := range c.dirty {
			m[kk] = vv
		}
		c.read.Store(&m)
		c.misses = 0
		c.stale = false
	}
	return p, true
}

// keyShape is the complete, checked key mapping of one record layout: the
// keys of a top-level object in order and what they become. Records of one
// stream nearly always share their layout, so matching a shape (a string
// comparison per key, usually of identical pointers) replaces both the
// per-key cache lookups and the collision check.
type keyShape struct {
	in, out []string
}

const (
	shapeSlots     = 4    // layouts remembered at once
	shapePublishes = 1024 // after this many new layouts, stop recording them
)

// keyMapper applies a cached key function to every key of a record,
// recursively through nested objects and arrays (as the original's
// rename_keys and keys_case do). Two keys of one object that map to the same
// new key are an error: the original kept the last one for rename_keys,
// silently dropping a value; here both transforms refuse, naming both keys.
type keyMapper struct {
	name      string // transform name, for errors
	cache     *keyCache
	shapes    [shapeSlots]atomic.Pointer[keyShape]
	published atomic.Uint32
}

func newKeyMapper(name string, fn func(string) string) *keyMapper {
	return &keyMapper{name: name, cache: newKeyCache(fn)}
}

func (m *keyMapper) apply(r *connector.Record) error {
	// A record with nested values is checked completely before anything is
	// renamed, so a collision deep inside leaves the record untouched. A flat
	// record is checked and renamed in one pass (the check precedes the
	// writes within an object).
	if !hasComposite(r.Fields) {
		return m.mapObject(r.Fields, "", true)
	}
	if err := m.walk(r.Fields, "", false); err != nil {
		return err
	}
	return m.walk(r.Fields, "", true)
}

func hasComposite(fields []connector.Field) bool {
	for i := range fields {
		if isComposite(fields[i].Value) {
			return true
		}
	}
	return false
}

func isComposite(v connector.Value) bool {
	k := v.Kind()
	return k == connector.KindArray || k == connector.KindObject
}

func (m *keyMapper) findShape(fields []connector.Field) *keyShape {
next:
	for i := range m.shapes {
		s := m.shapes[i].Load()
		if s == nil || len(s.in) != len(fields) {
			continue
		}
		for j := range fields {
			if fields[j].Key != s.in[j] {
				continue next
			}
		}
		return s
	}
	return nil
}

// walk maps the keys of one object, then descends into its values. where
// names the enclosing key for error messages ("" at the top level, the only
// level whose layouts are remembered as shapes).
func (m *keyMapper) walk(fields []connector.Field, where string, write bool) error {
	if err := m.mapObject(fields, where, write); err != nil {
		return err
	}
	for i := range fields {
		if isComposite(fields[i].Value) {
			if err := m.walkValue(fields[i].Value, fields[i].Key, write); err != nil {
				return err
			}
		}
	}
	return nil
}

// mapObject maps the keys of one object, not descending.
func (m *keyMapper) mapObject(fields []connector.Field, where string, write bool) error {
	top := where == ""
	if top {
		if s := m.findShape(fields); s != nil {
			if write {
				for i := range fields {
					fields[i].Key = s.out[i]
				}
			}
			return nil
		}
	}
	return m.mapKeys(fields, where, write, top)
}

// mapKeys maps one object's keys through the cache and checks them; on the
// top level it records the layout as a shape.
func (m *keyMapper) mapKeys(fields []connector.Field, where string, write, top bool) error {
	var buf [16]string
	var newKeys []string
	if len(fields) <= len(buf) {
		newKeys = buf[:len(fields)]
	} else {
		newKeys = make([]string, len(fields))
	}
	changed, stable := false, true
	for i := range fields {
		p, cached := m.cache.get(fields[i].Key)
		stable = stable && cached
		newKeys[i] = p.out
		if p.out != fields[i].Key {
			changed = true
		}
	}
	if changed {
		if err := m.checkUnique(fields, newKeys, where); err != nil {
			return err
		}
	}
	if top && stable && m.published.Load() < shapePublishes {
		m.publish(fields)
	}
	if changed && write {
		for i := range fields {
			fields[i].Key = newKeys[i]
		}
	}
	return nil
}

// publish records the (checked) layout of fields, with the cache's private
// copies of the keys.
func (m *keyMapper) publish(fields []connector.Field) {
	s := &keyShape{in: make([]string, len(fields)), out: make([]string, len(fields))}
	for i := range fields {
		p, cached := m.cache.get(fields[i].Key)
		if !cached {
			return
		}
		s.in[i], s.out[i] = p.in, p.out
	}
	n := m.published.Add(1)
	m.shapes[n%shapeSlots].Store(s)
}

func (m *keyMapper) walkValue(v connector.Value, where string, write bool) error {
	switch v.Kind() {
	case connector.KindObject:
		return m.walk(v.AsObject().Fields, where, write)
	case connector.KindArray:
		for _, e := range v.AsArray() {
			if isComposite(e) {
				if err := m.walkValue(e, where, write); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkUnique reports two keys that map to the same new key. The old keys
// are unique, so every duplicate pair involves at least one changed key.
func (m *keyMapper) checkUnique(fields []connector.Field, newKeys []string, where string) error {
	if len(newKeys) > 64 {
		seen := make(map[string]int, len(newKeys))
		for i, k := range newKeys {
			if j, dup := seen[k]; dup {
				return m.collision(fields[j].Key, fields[i].Key, k, where)
			}
			seen[k] = i
		}
		return nil
	}
	for i, k := range newKeys {
		if k == fields[i].Key {
			continue
		}
		for j := range newKeys {
			if j != i && newKeys[j] == k {
				a, b := i, j
				if b < a {
					a, b = b, a
				}
				return m.collision(fields[a].Key, fields[b].Key, k, where)
			}
		}
	}
	return nil
}

func (m *keyMapper) collision(a, b, to, where string) error {
	return &keyCollisionError{Transform: m.name, A: a, B: b, To: to, In: where}
}

// keyCollisionError says that two keys of one object would get the same name.
type keyCollisionError struct {
	Transform string
	A, B, To  string
	In        string // enclosing key of a nested object, "" at the top level
}

func (e *keyCollisionError) Error() string {
	msg := e.Transform + ": keys " + quote(e.A) + " and " + quote(e.B) + " both become " + quote(e.To)
	if e.In != "" {
		msg += " (inside " + quote(e.In) + ")"
	}
	return msg
}
