package sqlutil

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Sharding of the SQL sources by primary-key range (cluster mode B,
// reference engine §6.3). One probe reads the smallest and largest key;
// the range between them is cut into contiguous pieces whose outer ends
// are open, so that every non-null key falls into exactly one shard
// whatever was inserted after the probe, and NULL keys belong to the last.
//
// Only a source configured with `shard: {key}` is shardable. Each SQL
// package's newSource then returns a ShardedSource (its Source plus the
// connector.Sharder methods) and otherwise the plain Source, which does
// not implement connector.Sharder. So a source without the option is
// refused by the cluster from its type, before any enumeration, rather
// than failing in EnumerateShards at run time; and a `shard:` option
// without a key is a config error at shard.key (ShardConfig.Check).

// ShardConfig is the `shard:` option of a SQL source.
type ShardConfig struct {
	Key string `json:"key" required:"true" doc:"Integer column to split the rows on: each shard reads one range of it, the last one also the rows where it is NULL."`
}

// Check validates the option; paths are relative to the source config.
func (c *ShardConfig) Check() error {
	if c != nil && strings.TrimSpace(c.Key) == "" {
		return connector.ConfigErrorf("shard.key", "required key is missing (an integer column of the rows read)")
	}
	return nil
}

// ShardRange is a shard's descriptor: the rows whose key is >= Lo (unless
// LoUnbounded) and < Hi (unless HiUnbounded), and also the rows whose key
// is NULL when IncludeNull. On the last shard Hi is the probed maximum,
// kept for people reading the descriptor; the range is open there.
type ShardRange struct {
	Key         string `json:"key"`
	Lo          int64  `json:"lo"`
	Hi          int64  `json:"hi"`
	LoUnbounded bool   `json:"lo_unbounded"`
	HiUnbounded bool   `json:"hi_unbounded"`
	IncludeNull bool   `json:"include_null"`
}

// BoundsQuery is the probe of the key's smallest and largest value over
// the rows of base (a SELECT), both cast to a 64-bit integer.
func BoundsQuery(d Dialect, base, key string) string {
	k := d.Ident(key)
	return "SELECT CAST(MIN(" + k + ") AS " + d.IntType + "), CAST(MAX(" + k + ") AS " + d.IntType +
		") FROM (" + base + ") AS _faucet_bounds"
}

// BoundsFunc runs a bounds probe and returns its two values (invalid when
// the rows are empty or every key is NULL).
type BoundsFunc func(ctx context.Context, q string, args []any) (lo, hi sql.NullInt64, err error)

// DBBounds is the BoundsFunc of a database/sql connection.
func DBBounds(db *sql.DB) BoundsFunc {
	return func(ctx context.Context, q string, args []any) (lo, hi sql.NullInt64, err error) {
		err = db.QueryRowContext(ctx, q, args...).Scan(&lo, &hi)
		return lo, hi, err
	}
}

// EnumerateShards probes key over base (with its bind args) and plans at
// most target shards (PlanShards); rows with no non-null key are the
// whole shard. Errors name what was probed; the caller adds the source.
func EnumerateShards(ctx context.Context, d Dialect, base string, args []any, key string, target int, probe BoundsFunc) ([]connector.ShardSpec, error) {
	if target < 1 {
		return nil, fmt.Errorf("shard count must be at least 1, got %d", target)
	}
	lo, hi, err := probe(ctx, BoundsQuery(d, base, key), args)
	if err != nil {
		return nil, fmt.Errorf("probe the range of shard.key %q: %w", key, err)
	}
	if !lo.Valid || !hi.Valid {
		return []connector.ShardSpec{connector.WholeShard()}, nil
	}
	return PlanShards(key, lo.Int64, hi.Int64, target)
}

// PlanShards cuts the key range [lo, hi] into n = min(target, hi-lo+1)
// shards with ids "0".."n-1" (zero-padded to one width, so they sort). The
// cut points are lo + floor(i*width/n): every shard is non-empty and the
// sizes differ by at most one, where a fixed step of ceil(width/n) can
// leave the last shards empty (width 5 in 4 steps of 2 needs only 3). The
// first shard is open below, the last open above and holds NULL keys.
// One shard is the whole shard (no restriction at all). SizeEstimate is
// the number of key values in the shard's probed range (capped at the
// int64 maximum). Width and cut points use big integers: hi-lo+1 does
// not fit 64 bits when the keys span the whole int64 range.
func PlanShards(key string, lo, hi int64, target int) ([]connector.ShardSpec, error) {
	if target < 1 {
		return nil, fmt.Errorf("shard count must be at least 1, got %d", target)
	}
	if lo > hi {
		return nil, fmt.Errorf("shard.key %q: probed minimum %d is above maximum %d (are there keys beyond the signed 64-bit range?)", key, lo, hi)
	}
	bLo := big.NewInt(lo)
	width := new(big.Int).Sub(big.NewInt(hi), bLo)
	width.Add(width, big.NewInt(1))
	n := int64(target)
	if width.IsInt64() && width.Int64() < n {
		n = width.Int64()
	}
	if n == 1 {
		whole := connector.WholeShard()
		whole.SizeEstimate = capInt64(width)
		return []connector.ShardSpec{whole}, nil
	}
	// cut(i) = lo + floor(i*width/n), for 0 <= i <= n; cut(n) = hi+1.
	bn := big.NewInt(n)
	cut := func(i int64) *big.Int {
		c := new(big.Int).Mul(big.NewInt(i), width)
		c.Quo(c, bn)
		return c.Add(c, bLo)
	}
	pad := len(strconv.FormatInt(n-1, 10))
	specs := make([]connector.ShardSpec, n)
	from := cut(0)
	for i := int64(0); i < n; i++ {
		to := cut(i + 1)
		r := ShardRange{
			Key:         key,
			Lo:          from.Int64(),
			Hi:          hi,
			LoUnbounded: i == 0,
			HiUnbounded: i == n-1,
			IncludeNull: i == n-1,
		}
		if i < n-1 {
			r.Hi = to.Int64() // < hi+1, so within int64
		}
		desc, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		specs[i] = connector.ShardSpec{
			ID:           fmt.Sprintf("%0*d", pad, i),
			Descriptor:   desc,
			SizeEstimate: capInt64(new(big.Int).Sub(to, from)),
		}
		from = to
	}
	return specs, nil
}

func capInt64(v *big.Int) *int64 {
	n := int64(math.MaxInt64)
	if v.IsInt64() {
		n = v.Int64()
	}
	return &n
}

// ParseShard reads the descriptor of spec for a source sharded on key. The
// whole shard (a null or empty descriptor) is nil: no restriction. Any
// other descriptor must be one PlanShards makes for key: a JSON object
// with exactly the six fields and a non-empty range.
func ParseShard(spec connector.ShardSpec, key string) (*ShardRange, error) {
	raw := bytes.TrimSpace(spec.Descriptor)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	bad := func(format string, args ...any) error {
		shown := string(raw)
		if len(shown) > 200 {
			shown = shown[:200] + "..."
		}
		return connector.Fatal(fmt.Errorf("shard %q: descriptor %s: %s", spec.ID, shown, fmt.Sprintf(format, args...)))
	}
	var w struct {
		Key         *string `json:"key"`
		Lo          *int64  `json:"lo"`
		Hi          *int64  `json:"hi"`
		LoUnbounded *bool   `json:"lo_unbounded"`
		HiUnbounded *bool   `json:"hi_unbounded"`
		IncludeNull *bool   `json:"include_null"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, bad("not a key-range descriptor: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return nil, bad("not a key-range descriptor: data after the object")
	}
	var missing []string
	for _, f := range []struct {
		name string
		ok   bool
	}{{"key", w.Key != nil}, {"lo", w.Lo != nil}, {"hi", w.Hi != nil}, {"lo_unbounded", w.LoUnbounded != nil},
		{"hi_unbounded", w.HiUnbounded != nil}, {"include_null", w.IncludeNull != nil}} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, bad("missing %s", strings.Join(missing, ", "))
	}
	r := &ShardRange{Key: *w.Key, Lo: *w.Lo, Hi: *w.Hi, LoUnbounded: *w.LoUnbounded, HiUnbounded: *w.HiUnbounded, IncludeNull: *w.IncludeNull}
	if r.Key != key {
		return nil, bad("made for shard.key %q, but this source is sharded on %q", r.Key, key)
	}
	if !r.LoUnbounded && !r.HiUnbounded && r.Lo >= r.Hi {
		return nil, bad("empty range: lo %d is not below hi %d", r.Lo, r.Hi)
	}
	return r, nil
}

// Restrict limits the rows of q (a SELECT whose bind arguments are args)
// to the shard: SELECT * FROM (q) AS _faucet_shard WHERE [k >= lo] AND
// [k < hi] [OR k IS NULL], the bounds bound as parameters appended to
// args. A nil range, or one open at both ends that includes NULL keys,
// leaves q as it is.
func (r *ShardRange) Restrict(d Dialect, q string, args []any) (string, []any) {
	if r == nil {
		return q, args
	}
	k := d.Ident(r.Key)
	var conds []string
	if !r.LoUnbounded {
		args = append(args, r.Lo)
		conds = append(conds, k+" >= CAST("+d.Param(len(args))+" AS "+d.IntType+")")
	}
	if !r.HiUnbounded {
		args = append(args, r.Hi)
		conds = append(conds, k+" < CAST("+d.Param(len(args))+" AS "+d.IntType+")")
	}
	var where string
	switch {
	case len(conds) == 0 && r.IncludeNull:
		return q, args
	case len(conds) == 0:
		where = k + " IS NOT NULL"
	case r.IncludeNull:
		where = "(" + strings.Join(conds, " AND ") + ") OR " + k + " IS NULL"
	default:
		where = strings.Join(conds, " AND ")
	}
	return "SELECT * FROM (" + q + ") AS _faucet_shard WHERE " + where, args
}

// String describes the range for error messages: key [lo, hi) or NULL.
func (r *ShardRange) String() string {
	if r == nil {
		return "whole shard"
	}
	lo, hi := "(-inf", "+inf)"
	if !r.LoUnbounded {
		lo = "[" + strconv.FormatInt(r.Lo, 10)
	}
	if !r.HiUnbounded {
		hi = strconv.FormatInt(r.Hi, 10) + ")"
	}
	s := "shard " + strconv.Quote(r.Key) + " in " + lo + ", " + hi
	if r.IncludeNull {
		s += " or NULL"
	}
	return s
}
