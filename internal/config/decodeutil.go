package config

import (
	"fmt"
	"math"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// dec holds the helpers of the strict structural decoder: every value of
// the wrong type and every unknown key becomes an error at its position.
type dec struct {
	errs *errList
}

func (d *dec) typeErr(n *node, path, want string) {
	d.errs.add(n.pos, path, "expected %s, got %s", want, describe(n))
}

// object reports whether n is a mapping; null counts as absent (false, no
// error).
func (d *dec) object(n *node, path string) bool {
	if n.isNull() {
		return false
	}
	if n.kind != connector.KindObject {
		d.typeErr(n, path, "an object")
		return false
	}
	return true
}

func (d *dec) str(n *node, path string) (string, bool) {
	if n.kind != connector.KindString {
		d.typeErr(n, path, "a string")
		return "", false
	}
	return unescape(n.scalar.AsString()), true
}

// nonEmptyStr is str that also rejects "".
func (d *dec) nonEmptyStr(n *node, path string) (string, bool) {
	s, ok := d.str(n, path)
	if ok && strings.TrimSpace(s) == "" {
		d.errs.add(n.pos, path, "must not be empty")
		return "", false
	}
	return s, ok
}

func (d *dec) integer(n *node, path string) (int64, bool) {
	switch n.kind {
	case connector.KindInt:
		return n.scalar.AsInt(), true
	}
	d.typeErr(n, path, "an integer")
	return 0, false
}

// intRange decodes an integer in [lo, hi].
func (d *dec) intRange(n *node, path string, lo, hi int64) (int64, bool) {
	v, ok := d.integer(n, path)
	if !ok {
		return 0, false
	}
	if v < lo || v > hi {
		if hi == math.MaxInt64 {
			d.errs.add(n.pos, path, "must be at least %d, got %d", lo, v)
		} else {
			d.errs.add(n.pos, path, "must be between %d and %d, got %d", lo, hi, v)
		}
		return 0, false
	}
	return v, true
}

func (d *dec) boolean(n *node, path string) (bool, bool) {
	if n.kind != connector.KindBool {
		d.typeErr(n, path, "true or false")
		return false, false
	}
	return n.scalar.AsBool(), true
}

// enum decodes a string that must be one of allowed.
func (d *dec) enum(n *node, path string, allowed ...string) (string, bool) {
	s, ok := d.str(n, path)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	d.errs.add(n.pos, path, "must be one of %s, got %q", strings.Join(allowed, ", "), s)
	return "", false
}

// strList decodes a list of non-empty strings.
func (d *dec) strList(n *node, path string) ([]string, bool) {
	if n.isNull() {
		return nil, true
	}
	if n.kind != connector.KindArray {
		d.typeErr(n, path, "a list of strings")
		return nil, false
	}
	out := make([]string, 0, len(n.items))
	ok := true
	for i, it := range n.items {
		s, good := d.nonEmptyStr(it, indexPath(path, i))
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

// keys describes the keys a block accepts: known ones, and names that the
// original tool accepted but this version does not implement yet.
type keys struct {
	known       []string
	unsupported []string
	hints       map[string]string
}

func (d *dec) unknown(f field, path string, k keys) {
	p := joinPath(path, f.key)
	if h, ok := k.hints[f.key]; ok {
		d.errs.add(f.keyPos, p, "unknown key; %s", h)
		return
	}
	for _, u := range k.unsupported {
		if u == f.key {
			d.errs.add(f.keyPos, p, "is not supported by this version of faucet")
			return
		}
	}
	msg := "unknown key"
	if s := closest(f.key, k.known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	d.errs.add(f.keyPos, p, "%s; valid keys: %s", msg, strings.Join(k.known, ", "))
}

// missing reports a required key absent from the mapping n at path.
func (d *dec) missing(n *node, path, key string) {
	d.errs.add(n.pos, joinPath(path, key), "required key is missing")
}

// closest returns the candidate within edit distance 2 of s, if any.
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if dist := editDistance(s, c); dist < bestD {
			best, bestD = c, dist
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
