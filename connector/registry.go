package connector

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// SourceSpec describes a source kind.
type SourceSpec struct {
	Name    string
	Summary string
	// Config is a pointer to the zero value of the kind's config struct; it
	// defines the JSON Schema and the strict decoding of `config:`.
	Config any
	New    func(cfg Config) (Source, error)
}

// SinkSpec describes a sink kind.
type SinkSpec struct {
	Name    string
	Summary string
	Config  any
	New     func(cfg Config) (Sink, error)
}

// TransformSpec describes a transform kind.
type TransformSpec struct {
	Name    string
	Summary string
	Config  any
	New     func(cfg Config) (Transform, error)
}

// Registry maps `type` names to implementations. The package-level Default
// is what connectors register into from init; tests may build their own.
type Registry struct {
	mu         sync.RWMutex
	sources    map[string]SourceSpec
	sinks      map[string]SinkSpec
	transforms map[string]TransformSpec
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		sources:    map[string]SourceSpec{},
		sinks:      map[string]SinkSpec{},
		transforms: map[string]TransformSpec{},
	}
}

// Default is the registry the binary uses.
var Default = NewRegistry()

var validName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

func checkName(kind, name string) {
	if !validName.MatchString(name) {
		panic(fmt.Sprintf("connector: invalid %s name %q", kind, name))
	}
}

// AddSource registers a source kind; it panics on a duplicate or bad name,
// which is a programming error.
func (r *Registry) AddSource(s SourceSpec) {
	checkName("source", s.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.sources[s.Name]; dup {
		panic("connector: duplicate source " + s.Name)
	}
	r.sources[s.Name] = s
}

// AddSink registers a sink kind.
func (r *Registry) AddSink(s SinkSpec) {
	checkName("sink", s.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.sinks[s.Name]; dup {
		panic("connector: duplicate sink " + s.Name)
	}
	r.sinks[s.Name] = s
}

// AddTransform registers a transform kind.
func (r *Registry) AddTransform(s TransformSpec) {
	checkName("transform", s.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.transforms[s.Name]; dup {
		panic("connector: duplicate transform " + s.Name)
	}
	r.transforms[s.Name] = s
}

// RegisterSource adds a source kind to Default.
func RegisterSource(s SourceSpec) { Default.AddSource(s) }

// RegisterSink adds a sink kind to Default.
func RegisterSink(s SinkSpec) { Default.AddSink(s) }

// RegisterTransform adds a transform kind to Default.
func RegisterTransform(s TransformSpec) { Default.AddTransform(s) }

// Source looks up a source kind.
func (r *Registry) Source(name string) (SourceSpec, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.sources[name]
	if !ok {
		return s, unknown("source", name, keys(r.sources))
	}
	return s, nil
}

// Sink looks up a sink kind.
func (r *Registry) Sink(name string) (SinkSpec, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.sinks[name]
	if !ok {
		return s, unknown("sink", name, keys(r.sinks))
	}
	return s, nil
}

// Transform looks up a transform kind.
func (r *Registry) Transform(name string) (TransformSpec, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.transforms[name]
	if !ok {
		return s, unknown("transform", name, keys(r.transforms))
	}
	return s, nil
}

// Sources lists the registered source kinds by name.
func (r *Registry) Sources() []SourceSpec { return sortedSpecs(r, r.sources) }

// Sinks lists the registered sink kinds by name.
func (r *Registry) Sinks() []SinkSpec { return sortedSpecs(r, r.sinks) }

// Transforms lists the registered transform kinds by name.
func (r *Registry) Transforms() []TransformSpec { return sortedSpecs(r, r.transforms) }

func sortedSpecs[S any](r *Registry, m map[string]S) []S {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]S, 0, len(m))
	for _, k := range keys(m) {
		out = append(out, m[k])
	}
	return out
}

func keys[S any](m map[string]S) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UnknownKindError names a `type` that nothing registered, with the valid ones.
type UnknownKindError struct {
	Role  string // "source", "sink", "transform"
	Name  string
	Known []string
}

func (e *UnknownKindError) Error() string {
	return fmt.Sprintf("unknown %s type %q (valid: %s)", e.Role, e.Name, strings.Join(e.Known, ", "))
}

func unknown(role, name string, known []string) error {
	return &UnknownKindError{Role: role, Name: name, Known: known}
}
