// Package redact keeps the set of secret values seen while loading a
// pipeline (interpolated env vars and files, secret params, auth tokens) and
// scrubs them from any text faucet prints: logs, errors, summaries, HTTP
// responses. Values shorter than MinLen are not registered, since masking
// "a" or "1" would garble unrelated text.
package redact

import (
	"sort"
	"strings"
	"sync"
)

// Mask replaces every registered secret.
const Mask = "***"

// MinLen is the shortest value that is registered.
const MinLen = 4

// Set is a concurrency-safe set of secret values.
type Set struct {
	mu       sync.RWMutex
	values   map[string]struct{}
	ordered  []string // longest first
	replacer *strings.Replacer
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{values: map[string]struct{}{}} }

// Global is the process-wide set used by the CLI and the server.
var Global = NewSet()

// Add registers a secret value (ignored when shorter than MinLen).
func (s *Set) Add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < MinLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.values[v]; ok {
		return
	}
	s.values[v] = struct{}{}
	s.ordered = append(s.ordered, v)
	sort.Slice(s.ordered, func(i, j int) bool { return len(s.ordered[i]) > len(s.ordered[j]) })
	pairs := make([]string, 0, 2*len(s.ordered))
	for _, o := range s.ordered {
		pairs = append(pairs, o, Mask)
	}
	s.replacer = strings.NewReplacer(pairs...)
}

// String returns text with every registered secret replaced by Mask.
func (s *Set) String(text string) string {
	s.mu.RLock()
	r := s.replacer
	s.mu.RUnlock()
	if r == nil {
		return text
	}
	return r.Replace(text)
}

// Len reports how many secrets are registered.
func (s *Set) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.ordered)
}

// Longest returns the length of the longest registered secret (0 if none).
func (s *Set) Longest() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.ordered) == 0 {
		return 0
	}
	return len(s.ordered[0])
}

// Add registers v in Global.
func Add(v string) { Global.Add(v) }

// String scrubs text with Global.
func String(text string) string { return Global.String(text) }
