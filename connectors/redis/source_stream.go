package redis

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// streamEntry is one XRANGE entry as Redis sent it.
type streamEntry struct {
	id     string
	fields []string // name, value, name, value, ...
}

// nextStream reads the next page of up to want entries (all the rest
// when want < 0), in id order, with XRANGE, in chunks for batch_bytes
// (chunker). Its bookmark is the page's last id.
func (s *Source) nextStream(ctx context.Context, want int64) (*connector.Page, error) {
	var entries []streamEntry
	end, err := s.chunks.fill(want, func(k int64) (int, int64, bool, error) {
		got, b, more, err := s.xrange(ctx, k)
		entries = append(entries, got...)
		return len(got), b, !more, err
	})
	if err != nil {
		return nil, err
	}
	s.done = s.done || end
	if len(entries) == 0 {
		return nil, nil
	}
	s.emitted += int64(len(entries))
	last := entries[len(entries)-1].id
	bm := connector.String(last)
	key := s.st.Key
	p := &connector.Page{Bookmark: &bm}
	p.Decode = func(p *connector.Page) error {
		p.Records = make([]connector.Record, len(entries))
		for i, e := range entries {
			fields := make([]connector.Field, 0, len(e.fields)/2)
			for j := 0; j+1 < len(e.fields); j += 2 {
				fields = append(fields, connector.Field{Key: e.fields[j], Value: decodeText(e.fields[j+1])})
			}
			p.Records[i] = connector.Record{Fields: []connector.Field{
				{Key: "id", Value: connector.String(e.id)},
				{Key: "fields", Value: connector.Object(connector.Record{Fields: fields})},
			}}
		}
		return nil
	}
	p.Locate = func(i int) (string, int64) {
		return fmt.Sprintf("redis stream %s entry %s", key, entries[i].id), 0
	}
	return p, nil
}

// xrange reads up to k entries (all the rest when k < 0) from s.next
// and moves s.next past them; it returns their bytes (ids, field names
// and values) and whether an id can follow the last one.
func (s *Source) xrange(ctx context.Context, k int64) (entries []streamEntry, bytes int64, more bool, err error) {
	args := []any{"XRANGE", s.st.Key, s.next, "+"}
	if k > 0 {
		args = append(args, "COUNT", k)
	}
	reply, err := s.client.Do(ctx, args...).Slice()
	if err != nil {
		return nil, 0, false, s.fail(ctx, "XRANGE", err)
	}
	if len(reply) == 0 {
		return nil, 0, true, nil
	}
	entries = make([]streamEntry, len(reply))
	for i, x := range reply {
		e, err := parseEntry(x)
		if err != nil {
			return nil, 0, false, fmt.Errorf("redis: stream %q: XRANGE reply entry %d: %w", s.st.Key, i, err)
		}
		entries[i] = e
		bytes += int64(len(e.id))
		for _, f := range e.fields {
			bytes += int64(len(f))
		}
	}
	last := entries[len(entries)-1].id
	id, ok := parseStreamID(last)
	if !ok {
		return nil, 0, false, fmt.Errorf("redis: stream %q: entry id %q is not ms-seq", s.st.Key, last)
	}
	next, more := id.next()
	s.next = next.String()
	return entries, bytes, more, nil
}

// parseEntry reads [id, [field, value, ...]] keeping the field order.
func parseEntry(x any) (streamEntry, error) {
	pair, ok := x.([]any)
	if !ok || len(pair) != 2 {
		return streamEntry{}, fmt.Errorf("unexpected shape %T", x)
	}
	id, ok := asString(pair[0])
	if !ok {
		return streamEntry{}, fmt.Errorf("id is a %T", pair[0])
	}
	raw, _ := pair[1].([]any)
	e := streamEntry{id: id, fields: make([]string, len(raw))}
	for i, f := range raw {
		if e.fields[i], ok = asString(f); !ok {
			return streamEntry{}, fmt.Errorf("entry %s: field %d is a %T", id, i, f)
		}
	}
	return e, nil
}

// streamID is a Redis stream entry id, <milliseconds>-<sequence>.
type streamID struct{ ms, seq uint64 }

func parseStreamID(s string) (streamID, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return streamID{}, false
	}
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil {
		return streamID{}, false
	}
	return streamID{ms, seq}, true
}

func (id streamID) String() string {
	return strconv.FormatUint(id.ms, 10) + "-" + strconv.FormatUint(id.seq, 10)
}

// next is the smallest id after id; more is false for the largest id.
func (id streamID) next() (next streamID, more bool) {
	switch {
	case id.seq < math.MaxUint64:
		return streamID{id.ms, id.seq + 1}, true
	case id.ms < math.MaxUint64:
		return streamID{id.ms + 1, 0}, true
	}
	return id, false
}
