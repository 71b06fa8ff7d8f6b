package config

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a 1-based line and column in the config file. The zero Pos means
// "no position" (the error is about the file as a whole).
type Pos struct {
	Line int
	Col  int
}

// Error is one problem found in a config: where it is and what is wrong.
type Error struct {
	File string
	Line int
	Col  int
	Path string // dotted key path, e.g. "pipeline.source.config.path"; may be empty
	Msg  string
}

// Error formats the problem as "file:line:col: path: msg", leaving out the
// parts that are unknown.
func (e Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(":")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, "%d:", e.Col)
		}
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one pass over a config. Loading, expanding
// and checking report all the problems they find, not only the first.
type Errors []Error

// Error joins the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// errList collects errors for one file, dropping exact duplicates (the same
// template checked once per matrix row reports its problem once).
type errList struct {
	file string
	list Errors
	seen map[string]bool
	// quiet holds the positions of values that hold a param which failed
	// to bind: later errors there would only repeat that failure.
	quiet map[Pos]bool
}

func newErrList(file string) *errList {
	return &errList{file: file, seen: map[string]bool{}, quiet: map[Pos]bool{}}
}

func (l *errList) add(pos Pos, path, format string, args ...any) {
	if pos.Line > 0 && l.quiet[pos] {
		return
	}
	e := Error{File: l.file, Line: pos.Line, Col: pos.Col, Path: path, Msg: fmt.Sprintf(format, args...)}
	k := e.Error()
	if l.seen[k] {
		return
	}
	l.seen[k] = true
	l.list = append(l.list, e)
}

func (l *errList) len() int { return len(l.list) }

// err returns the collected errors sorted by position (stable, so errors at
// the same place keep the order they were found in), or nil.
func (l *errList) err() error {
	if len(l.list) == 0 {
		return nil
	}
	out := append(Errors(nil), l.list...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out
}

func sprint(v any) string { return fmt.Sprint(v) }
