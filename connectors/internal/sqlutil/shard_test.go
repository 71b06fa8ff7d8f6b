package sqlutil

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// inShard is the descriptor's meaning, written out independently of
// Restrict: k nil is a NULL key.
func inShard(r *ShardRange, k *int64) bool {
	if r == nil {
		return true
	}
	if k == nil {
		return r.IncludeNull
	}
	return (r.LoUnbounded || *k >= r.Lo) && (r.HiUnbounded || *k < r.Hi)
}

func TestPlanShards(t *testing.T) {
	const minI, maxI = math.MinInt64, math.MaxInt64
	cases := []struct {
		name    string
		lo, hi  int64
		target  int
		sizes   []int64 // SizeEstimate of each shard
		cutsLos []int64 // Lo of each shard after the first
	}{
		{"target 1 is the whole shard", 1, 10, 1, []int64{10}, nil},
		{"even split", 1, 9, 3, []int64{3, 3, 3}, []int64{4, 7}},
		{"uneven split leaves no empty shard", 1, 5, 4, []int64{1, 1, 1, 2}, []int64{2, 3, 4}},
		{"target above width", 1, 3, 10, []int64{1, 1, 1}, []int64{2, 3}},
		{"single key", 7, 7, 4, []int64{1}, nil},
		{"negatives", -10, 9, 4, []int64{5, 5, 5, 5}, []int64{-5, 0, 5}},
		{"whole int64 range, one shard", minI, maxI, 1, []int64{maxI}, nil},
		{"whole int64 range, two shards", minI, maxI, 2, []int64{maxI, maxI}, []int64{0}},
		{"whole int64 range, seven shards", minI, maxI, 7, nil, nil},
		{"top of int64", maxI - 1, maxI, 3, []int64{1, 1}, []int64{maxI}},
		{"bottom of int64", minI, minI, 5, []int64{1}, nil},
		{"bottom pair", minI, minI + 1, 2, []int64{1, 1}, []int64{minI + 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := PlanShards("id", tc.lo, tc.hi, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			width := new(big.Int).Sub(big.NewInt(tc.hi), big.NewInt(tc.lo))
			width.Add(width, big.NewInt(1))
			wantN := int64(tc.target)
			if width.IsInt64() && width.Int64() < wantN {
				wantN = width.Int64()
			}
			if int64(len(specs)) != wantN {
				t.Fatalf("got %d shards, want %d", len(specs), wantN)
			}
			ranges := make([]*ShardRange, len(specs))
			var sizes, los []int64
			for i, s := range specs {
				r, err := ParseShard(s, "id")
				if err != nil {
					t.Fatalf("shard %d: %v", i, err)
				}
				ranges[i] = r
				if s.SizeEstimate == nil {
					t.Fatalf("shard %d has no size estimate", i)
				}
				sizes = append(sizes, *s.SizeEstimate)
				if i > 0 {
					los = append(los, r.Lo)
				}
				if i > 0 && s.ID <= specs[i-1].ID {
					t.Errorf("ids do not sort: %q after %q", s.ID, specs[i-1].ID)
				}
			}
			if len(specs) == 1 {
				if specs[0].ID != "0" || string(specs[0].Descriptor) != "null" {
					t.Errorf("one shard should be the whole shard, got %+v", specs[0])
				}
			} else {
				checkContiguous(t, ranges)
			}
			if tc.sizes != nil && !reflect.DeepEqual(sizes, tc.sizes) {
				t.Errorf("sizes %v, want %v", sizes, tc.sizes)
			}
			if tc.cutsLos != nil && !reflect.DeepEqual(los, tc.cutsLos) {
				t.Errorf("shard starts %v, want %v", los, tc.cutsLos)
			}
			// Every key, and NULL, is in exactly one shard.
			probes := []int64{minI, minI + 1, tc.lo - 1, tc.lo, tc.lo + 1, 0, -1, 1, tc.hi - 1, tc.hi, tc.hi + 1, maxI - 1, maxI}
			for _, k := range probes {
				k := k
				if n := countIn(ranges, &k); n != 1 {
					t.Errorf("key %d is in %d shards", k, n)
				}
			}
			if n := countIn(ranges, nil); n != 1 {
				t.Errorf("NULL is in %d shards", n)
			}
		})
	}
}

func checkContiguous(t *testing.T, rs []*ShardRange) {
	t.Helper()
	last := len(rs) - 1
	for i, r := range rs {
		if r.LoUnbounded != (i == 0) || r.HiUnbounded != (i == last) || r.IncludeNull != (i == last) {
			t.Errorf("shard %d: open ends or null wrong: %+v", i, r)
		}
		if i < last {
			if r.Lo >= r.Hi {
				t.Errorf("shard %d is empty: %+v", i, r)
			}
			if rs[i+1].Lo != r.Hi {
				t.Errorf("gap or overlap between shard %d (hi %d) and %d (lo %d)", i, r.Hi, i+1, rs[i+1].Lo)
			}
		}
	}
}

func countIn(rs []*ShardRange, k *int64) int {
	n := 0
	for _, r := range rs {
		if inShard(r, k) {
			n++
		}
	}
	return n
}

func TestPlanShardsErrors(t *testing.T) {
	if _, err := PlanShards("id", 5, 4, 3); err == nil || !strings.Contains(err.Error(), `"id"`) {
		t.Errorf("min above max: %v", err)
	}
	if _, err := PlanShards("id", 1, 4, 0); err == nil {
		t.Error("target 0 accepted")
	}
}

func TestPlanShardsIDsPadded(t *testing.T) {
	specs, err := PlanShards("id", 0, 999, 12)
	if err != nil {
		t.Fatal(err)
	}
	if specs[0].ID != "00" || specs[11].ID != "11" {
		t.Errorf("ids %q .. %q", specs[0].ID, specs[11].ID)
	}
	for _, s := range specs {
		if strings.Contains(s.ID, ":") {
			t.Errorf("id %q has a colon", s.ID)
		}
	}
}

func TestParseShard(t *testing.T) {
	good := `{"key":"id","lo":1,"hi":5,"lo_unbounded":false,"hi_unbounded":false,"include_null":false}`
	cases := []struct {
		name, desc, key string
		want            *ShardRange
		err             string // substring; "" means no error
	}{
		{"whole shard", `null`, "id", nil, ""},
		{"empty descriptor", ``, "id", nil, ""},
		{"good", good, "id", &ShardRange{Key: "id", Lo: 1, Hi: 5}, ""},
		{"int64 extremes", `{"key":"id","lo":-9223372036854775808,"hi":9223372036854775807,"lo_unbounded":false,"hi_unbounded":false,"include_null":true}`, "id",
			&ShardRange{Key: "id", Lo: math.MinInt64, Hi: math.MaxInt64, IncludeNull: true}, ""},
		{"other key", good, "user_id", nil, `made for shard.key "id", but this source is sharded on "user_id"`},
		{"not an object", `[1,2]`, "id", nil, "not a key-range descriptor"},
		{"hash descriptor", `{"shards":4,"index":1}`, "id", nil, `unknown field "shards"`},
		{"missing fields", `{"key":"id","lo":1}`, "id", nil, "missing hi, lo_unbounded, hi_unbounded, include_null"},
		{"lo as text", strings.Replace(good, `"lo":1`, `"lo":"1"`, 1), "id", nil, "not a key-range descriptor"},
		{"lo beyond int64", strings.Replace(good, `"lo":1`, `"lo":9223372036854775808`, 1), "id", nil, "not a key-range descriptor"},
		{"trailing data", good + ` {}`, "id", nil, "data after the object"},
		{"empty range", strings.Replace(good, `"hi":5`, `"hi":1`, 1), "id", nil, "empty range: lo 1 is not below hi 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseShard(connector.ShardSpec{ID: "3", Descriptor: json.RawMessage(tc.desc)}, tc.key)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `shard "3"`) {
					t.Fatalf("error %v, want one containing %q and the shard id", err, tc.err)
				}
				if !connector.IsFatal(err) {
					t.Errorf("a bad descriptor should be fatal: %v", err)
				}
				var ce *connector.ConfigError
				if errors.As(err, &ce) {
					t.Errorf("not a config error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRestrict(t *testing.T) {
	mid := &ShardRange{Key: "id", Lo: -3, Hi: 7}
	first := &ShardRange{Key: "id", Lo: -3, Hi: 7, LoUnbounded: true}
	last := &ShardRange{Key: "id", Lo: 7, Hi: 9, HiUnbounded: true, IncludeNull: true}
	cases := []struct {
		name   string
		d      Dialect
		r      *ShardRange
		q      string
		args   []any
		wantQ  string
		wantAr []any
	}{
		{"postgres middle after a param", Postgres, mid, "SELECT * FROM t WHERE a = $1", []any{"x"},
			`SELECT * FROM (SELECT * FROM t WHERE a = $1) AS _faucet_shard WHERE "id" >= CAST($2 AS BIGINT) AND "id" < CAST($3 AS BIGINT)`,
			[]any{"x", int64(-3), int64(7)}},
		{"mysql first", MySQL, first, "SELECT * FROM t", nil,
			"SELECT * FROM (SELECT * FROM t) AS _faucet_shard WHERE `id` < CAST(? AS SIGNED)", []any{int64(7)}},
		{"sqlite last with nulls", SQLite, last, "SELECT * FROM t", nil,
			`SELECT * FROM (SELECT * FROM t) AS _faucet_shard WHERE ("id" >= CAST(? AS INTEGER)) OR "id" IS NULL`, []any{int64(7)}},
		{"whole shard", SQLite, nil, "SELECT 1", nil, "SELECT 1", nil},
		{"open both ends with nulls", Postgres, &ShardRange{Key: "id", LoUnbounded: true, HiUnbounded: true, IncludeNull: true}, "SELECT 1", nil, "SELECT 1", nil},
		{"open both ends without nulls", Postgres, &ShardRange{Key: "id", LoUnbounded: true, HiUnbounded: true}, "SELECT 1", nil,
			`SELECT * FROM (SELECT 1) AS _faucet_shard WHERE "id" IS NOT NULL`, nil},
		{"key needing quotes", MySQL, &ShardRange{Key: "we`ird", Lo: 1, Hi: 2}, "SELECT 1", nil,
			"SELECT * FROM (SELECT 1) AS _faucet_shard WHERE `we``ird` >= CAST(? AS SIGNED) AND `we``ird` < CAST(? AS SIGNED)", []any{int64(1), int64(2)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, args := tc.r.Restrict(tc.d, tc.q, tc.args)
			if q != tc.wantQ {
				t.Errorf("query\n got %s\nwant %s", q, tc.wantQ)
			}
			if !reflect.DeepEqual(args, tc.wantAr) {
				t.Errorf("args %#v, want %#v", args, tc.wantAr)
			}
		})
	}
}

func TestBoundsQuery(t *testing.T) {
	got := BoundsQuery(MySQL, "SELECT * FROM `t`", "id")
	want := "SELECT CAST(MIN(`id`) AS SIGNED), CAST(MAX(`id`) AS SIGNED) FROM (SELECT * FROM `t`) AS _faucet_bounds"
	if got != want {
		t.Errorf("got %s", got)
	}
}

func TestShardConfigCheck(t *testing.T) {
	var none *ShardConfig
	if err := none.Check(); err != nil {
		t.Errorf("no shard option: %v", err)
	}
	err := (&ShardConfig{Key: " "}).Check()
	var ce *connector.ConfigError
	if !errors.As(err, &ce) || ce.Path != "shard.key" {
		t.Errorf("blank key: %v", err)
	}
}
