package connectortest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sort"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// panicError is a panic turned into an error by safeCall.
type panicError struct{ v any }

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.v) }

func isPanic(err error) bool {
	var p *panicError
	return errors.As(err, &p)
}

// safeCall runs fn, turning a panic into a *panicError (with the stack in
// the message, so the failing line is visible).
func safeCall(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{v: fmt.Sprintf("%v\n%s", r, debug.Stack())}
		}
	}()
	return fn()
}

func safeNewSource(spec connector.SourceSpec, c connector.Config) (src connector.Source, err error) {
	err = safeCall(func() error {
		var e error
		src, e = spec.New(c)
		return e
	})
	return src, err
}

func safeNewSink(spec connector.SinkSpec, c connector.Config) (snk connector.Sink, err error) {
	err = safeCall(func() error {
		var e error
		snk, e = spec.New(c)
		return e
	})
	return snk, err
}

// checkSchema checks that the config struct's schema is a JSON Schema
// object whose properties are schemas, whose required keys are properties
// and whose defaults have the property's type.
func checkSchema(t *testing.T, cfg any) {
	data, err := json.Marshal(connector.SchemaOf(cfg))
	if err != nil {
		t.Fatalf("schema does not marshal: %v", err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s["type"] != "object" {
		t.Fatalf("schema type = %v, want object: %s", s["type"], data)
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil && cfg != nil {
		t.Fatalf("schema has no properties: %s", data)
	}
	for name, p := range props {
		ps, ok := p.(map[string]any)
		if !ok {
			t.Errorf("property %s: schema is %T, want an object", name, p)
			continue
		}
		if typ, ok := ps["type"].(string); ok {
			if !validType[typ] {
				t.Errorf("property %s: unknown type %q", name, typ)
			}
			if def, has := ps["default"]; has && !hasType(def, typ) {
				t.Errorf("property %s: default %v is not a %s", name, def, typ)
			}
		}
		if enum, ok := ps["enum"].([]any); ok {
			if def, has := ps["default"]; has && !contains(enum, def) {
				t.Errorf("property %s: default %v is not one of %v", name, def, enum)
			}
		}
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if _, ok := props[fmt.Sprint(r)]; !ok {
				t.Errorf("required key %v is not a property", r)
			}
		}
	}
}

var validType = map[string]bool{"object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true, "null": true}

func hasType(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "number":
		_, ok := v.(float64)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

func contains(list []any, v any) bool {
	for _, e := range list {
		if e == v {
			return true
		}
	}
	return false
}

// badConfigs derives configs New must reject from a valid one: not an
// object, an unknown key, and each property replaced by a value of the
// wrong type; extra are appended.
func badConfigs(t *testing.T, cfg any, valid connector.Value, extra []connector.Value) []connector.Value {
	out := []connector.Value{
		connector.String("not an object"),
		connector.Array([]connector.Value{connector.Int(1)}),
		withKey(valid, "no_such_option_xyz", connector.Int(1)),
	}
	s := connector.SchemaOf(cfg)
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		ps, _ := props[name].(map[string]any)
		typ, _ := ps["type"].(string)
		var wrong connector.Value
		switch typ {
		case "string", "boolean", "integer", "number":
			wrong = connector.Array([]connector.Value{connector.Object(connector.Record{})})
		case "array", "object":
			wrong = connector.Bool(true)
		default:
			continue
		}
		out = append(out, withKey(valid, name, wrong))
	}
	return append(out, extra...)
}

// withKey returns a copy of the object v with key set to val.
func withKey(v connector.Value, key string, val connector.Value) connector.Value {
	r := v.AsObject().Clone()
	r.Set(key, val)
	return connector.Object(r)
}

func defaultN(f *Factory) int {
	switch {
	case f.StreamRecords > 0:
		return f.StreamRecords
	case testing.Short():
		return 20_000
	case raceEnabled:
		return 100_000
	}
	return 1_000_000
}

func heapNow() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// allocatedNow is the total of heap bytes allocated so far.
func allocatedNow() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// streamBounded streams N records, dropping each page, and checks the
// count, the key order and the heap growth.
func streamBounded(t *testing.T, f *Factory, newSrc func(*testing.T, connector.Config) connector.Source) {
	n := defaultN(f)
	limit := f.MaxHeapGrowth
	if limit == 0 {
		limit = 64 << 20
	}
	src := newSrc(t, f.Source(t, n))
	ctx := context.Background()
	runtime.GC()
	base := heapNow()
	allocBase := allocatedNow()
	if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var peak uint64
	got := 0
	var last connector.Value
	for pages := 0; ; pages++ {
		p, err := NextPage(ctx, src)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Failed) > 0 {
			t.Fatalf("page %d: %d failed records, first: %v", pages, len(p.Failed), &p.Failed[0])
		}
		for _, r := range p.Records {
			if f.KeyField != "" {
				k, ok := r.Get(f.KeyField)
				if !ok {
					t.Fatalf("record %d has no %q: %v", got+1, f.KeyField, connector.Object(r))
				}
				if got > 0 && connector.Compare(k, last) <= 0 {
					t.Fatalf("record %d: key %v does not follow %v", got+1, k, last)
				}
				last = k.Detach() // the page's memory is recycled below
			}
			got++
		}
		p.Done() // as the engine does: the source may recycle the page
		if pages%16 == 0 {
			if h := heapNow(); h > peak {
				peak = h
			}
		}
	}
	if got != n {
		t.Fatalf("streamed %d records, want %d", got, n)
	}
	growth := uint64(0)
	if peak > base {
		growth = peak - base
	}
	perRecord := float64(allocatedNow()-allocBase) / float64(n)
	t.Logf("streamed %d records; heap %0.1f MiB at start, peak %0.1f MiB; %0.1f bytes allocated per record", n, float64(base)/(1<<20), float64(peak)/(1<<20), perRecord)
	if growth > limit {
		t.Errorf("heap grew by %d MiB while streaming %d records (limit %d MiB)", growth>>20, n, limit>>20)
	}
	// Under -race sync.Pool (still used by libraries underneath the
	// connectors, compressors among them) drops a share of what is put
	// back on purpose, so recycling cannot be judged there.
	if f.MaxAllocPerRecord > 0 && !raceEnabled && perRecord > f.MaxAllocPerRecord {
		t.Errorf("allocated %0.1f bytes per record while streaming %d records (limit %0.1f): buffers or record memory are not recycled", perRecord, n, f.MaxAllocPerRecord)
	}
}

// bookmarkRoundTrip reads everything, then resumes from the final
// bookmark (nothing left) and from the first page's bookmark (the rest).
func bookmarkRoundTrip(t *testing.T, f *Factory, newSrc func(*testing.T, connector.Config) connector.Source) {
	ctx := context.Background()
	n := 3*f.pageSize() + 7
	cfg := f.Incremental(t, n)
	all, err := Collect(ctx, newSrc(t, cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Records) != n {
		t.Fatalf("first run read %d records, want %d", len(all.Records), n)
	}
	if all.Bookmark == nil {
		t.Fatal("an incremental source emitted no bookmark")
	}
	lastKey, _ := all.Records[n-1].Get(f.KeyField)
	if connector.Compare(*all.Bookmark, lastKey) != 0 {
		t.Errorf("final bookmark %v, want the last key %v", *all.Bookmark, lastKey)
	}
	// Through JSON, as the state store keeps it.
	saved, err := connector.ParseJSON(connector.AppendJSON(nil, *all.Bookmark))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Collect(ctx, newSrc(t, cfg), &saved)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Records) != 0 {
		t.Errorf("resuming from the final bookmark read %d records, want 0 (first: %v)", len(again.Records), connector.Object(again.Records[0]))
	}

	// Resume after the first bookmarked page.
	src := newSrc(t, cfg)
	if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := 0
	var mid *connector.Value
	for mid == nil {
		p, err := src.Next(ctx)
		if err != nil {
			t.Fatalf("before the first bookmark: %v", err)
		}
		if err := p.Materialize(); err != nil {
			t.Fatal(err)
		}
		seen += len(p.Records)
		mid = p.Bookmark
	}
	src.Close()
	rest, err := Collect(ctx, newSrc(t, cfg), mid)
	if err != nil {
		t.Fatal(err)
	}
	if seen+len(rest.Records) != n {
		t.Errorf("read %d records before the first bookmark and %d after resuming, want %d in all", seen, len(rest.Records), n)
	}
	if len(rest.Records) > 0 {
		k, _ := rest.Records[0].Get(f.KeyField)
		if connector.Compare(k, *mid) <= 0 {
			t.Errorf("resumed at key %v, not after the bookmark %v", k, *mid)
		}
	}
}
