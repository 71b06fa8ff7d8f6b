package redis

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/faucet-hq/faucet/connector"
	goredis "github.com/redis/go-redis/v9"
)

// nextKeys scans until the keys of a chunk are buffered (or the scan is
// complete) and reads their values: one MGET per chunk, then, for the
// keys MGET could not read (not strings), TYPE and the type's read
// command. A key deleted between SCAN and the read is dropped. Chunks
// follow batch_bytes as List and Stream reads do (chunker), with a key's
// bytes its name and its value's strings.
func (s *Source) nextKeys(ctx context.Context, want int64) (*connector.Page, error) {
	p := &connector.Page{}
	taken := 0
	end, err := s.chunks.fill(want, func(k int64) (int, int64, bool, error) {
		if err := s.scan(ctx, k); err != nil {
			return 0, 0, false, err
		}
		n := len(s.keys)
		if k >= 0 && int64(n) > k {
			n = int(k)
		}
		chunk := s.keys[:n:n]
		s.keys = append([]string(nil), s.keys[n:]...)
		taken += n
		b, err := s.readChunk(ctx, chunk, p)
		return n, b, s.scanned && len(s.keys) == 0, err
	})
	if err != nil {
		return nil, err
	}
	s.done = s.done || end
	if taken == 0 {
		return nil, nil
	}
	s.emitted += int64(len(p.Records) + len(p.Failed))
	return p, nil
}

// scan buffers keys until there are want (all when want < 0) or the scan
// is complete.
func (s *Source) scan(ctx context.Context, want int64) error {
	hint := int64(s.cfg.BatchSize)
	if hint == 0 {
		hint = connector.DefaultPageSize
	}
	for !s.scanned && (want < 0 || int64(len(s.keys)) < want) {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, cur, err := s.client.Scan(ctx, s.cursor, s.st.Pattern, hint).Result()
		if err != nil {
			return s.fail(ctx, "SCAN", err)
		}
		s.keys = append(s.keys, keys...)
		s.cursor = cur
		s.scanned = cur == 0
	}
	return nil
}

// readChunk reads the values of keys into p's records (or failures) and
// returns their bytes.
func (s *Source) readChunk(ctx context.Context, keys []string, p *connector.Page) (int64, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	values, err := s.readValues(ctx, keys)
	if err != nil {
		return 0, err
	}
	var bytes int64
	for i, key := range keys {
		v := values[i]
		bytes += int64(len(key)) + v.size
		switch {
		case v.err != nil:
			p.Failed = append(p.Failed, connector.RecordError{
				Stage: connector.StageSource, Component: "redis",
				Location: fmt.Sprintf("redis key %s", key),
				Err:      v.err,
			})
		case v.found:
			p.Records = append(p.Records, connector.Record{Fields: []connector.Field{
				{Key: "key", Value: connector.String(key)},
				{Key: "value", Value: v.value},
			}})
		}
	}
	return bytes, nil
}

// keyValue is what was read for one key.
type keyValue struct {
	value connector.Value
	size  int64 // bytes of the strings Redis sent for it
	found bool  // false: the key was deleted after SCAN
	err   error // the key holds something the source cannot read
}

func (s *Source) readValues(ctx context.Context, keys []string) ([]keyValue, error) {
	out := make([]keyValue, len(keys))
	raw, err := s.client.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, s.fail(ctx, "MGET", err)
	}
	var other []int // keys MGET returned nil for: missing or not strings
	for i, x := range raw {
		if str, ok := asString(x); ok {
			out[i] = keyValue{value: decodeText(str), size: int64(len(str)), found: true}
		} else {
			other = append(other, i)
		}
	}
	if len(other) == 0 {
		return out, nil
	}
	types := make([]*goredis.StatusCmd, len(other))
	_, err = s.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for j, i := range other {
			types[j] = p.Type(ctx, keys[i])
		}
		return nil
	})
	if err != nil {
		return nil, s.fail(ctx, "TYPE", err)
	}
	reads := make([]*goredis.Cmd, len(other))
	_, err = s.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for j, i := range other {
			switch types[j].Val() {
			case "hash":
				reads[j] = p.Do(ctx, "HGETALL", keys[i])
			case "list":
				reads[j] = p.Do(ctx, "LRANGE", keys[i], 0, -1)
			case "set":
				reads[j] = p.Do(ctx, "SMEMBERS", keys[i])
			case "zset":
				reads[j] = p.Do(ctx, "ZRANGE", keys[i], 0, -1, "WITHSCORES")
			case "string":
				reads[j] = p.Do(ctx, "GET", keys[i]) // set after the MGET
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, goredis.Nil) && isConnError(err) {
		// Per-command failures (a key deleted or retyped in between) are
		// looked at below; only a failed round trip stops the run.
		return nil, s.fail(ctx, "read values of", err)
	}
	for j, i := range other {
		typ := types[j].Val()
		if typ == "none" {
			continue // deleted after SCAN
		}
		if reads[j] == nil {
			out[i] = keyValue{err: fmt.Errorf("key holds a %s; the Keys source reads strings, hashes, lists, sets and sorted sets (read a stream with source_type Stream)", typ)}
			continue
		}
		res, err := reads[j].Result()
		if errors.Is(err, goredis.Nil) {
			continue
		}
		if err != nil {
			out[i] = keyValue{err: fmt.Errorf("read %s: %w", typ, err)}
			continue
		}
		v, err := typedValue(typ, res)
		if err != nil {
			out[i] = keyValue{err: err}
			continue
		}
		out[i] = keyValue{value: v, size: replySize(res), found: true}
	}
	return out, nil
}

// replySize is the bytes of the strings in a read command's reply.
func replySize(res any) int64 {
	if str, ok := asString(res); ok {
		return int64(len(str))
	}
	var n int64
	if items, ok := res.([]any); ok {
		for _, x := range items {
			n += replySize(x)
		}
	}
	return n
}

// typedValue converts the reply of a type's read command: a hash to an
// object (fields in Redis's order), a list to an array, a set to a sorted
// array, a sorted set to [{member, score}] by score. Members and values
// are JSON-decoded where they parse.
func typedValue(typ string, res any) (connector.Value, error) {
	if typ == "string" {
		str, _ := asString(res)
		return decodeText(str), nil
	}
	raw, ok := res.([]any)
	if !ok {
		return connector.Value{}, fmt.Errorf("unexpected %s reply %T", typ, res)
	}
	items := make([]string, len(raw))
	for i, x := range raw {
		if items[i], ok = asString(x); !ok {
			return connector.Value{}, fmt.Errorf("unexpected %s reply element %T", typ, x)
		}
	}
	switch typ {
	case "hash":
		fields := make([]connector.Field, 0, len(items)/2)
		for i := 0; i+1 < len(items); i += 2 {
			fields = append(fields, connector.Field{Key: items[i], Value: decodeText(items[i+1])})
		}
		return connector.Object(connector.Record{Fields: fields}), nil
	case "set":
		sort.Strings(items)
	case "zset":
		vals := make([]connector.Value, 0, len(items)/2)
		for i := 0; i+1 < len(items); i += 2 {
			vals = append(vals, connector.Object(connector.Record{Fields: []connector.Field{
				{Key: "member", Value: decodeText(items[i])},
				{Key: "score", Value: decodeText(items[i+1])}, // "inf" stays a string
			}}))
		}
		return connector.Array(vals), nil
	}
	vals := make([]connector.Value, len(items))
	for i, it := range items {
		vals[i] = decodeText(it)
	}
	return connector.Array(vals), nil
}
