// Package shardtest is the test driver the SQL sources (postgres, mysql,
// sqlite) share for `shard: {key}`: each package only says how to create
// and fill a table on its server, and Run checks, against that real
// server, that the shards a source enumerates together read every row of
// the table exactly once (NULL keys included), that an empty table is the
// whole shard, that descriptors of another key or garbage are refused, and
// that a shard composes with replication_key.
//
// It is imported by tests only.
package shardtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// Row is one row of the test table (id BIGINT NULL, seq INT, name TEXT):
// id is the shard key and may be NULL or repeat; seq is unique.
type Row struct {
	ID   *int64
	Seq  int
	Name string
}

// JSON is the row as the source emits it.
func (r Row) JSON() string {
	id := "null"
	if r.ID != nil {
		id = fmt.Sprint(*r.ID)
	}
	return fmt.Sprintf(`{"id":%s,"seq":%d,"name":%q}`, id, r.Seq, r.Name)
}

// Setup is what a package provides.
type Setup struct {
	// Name is the registered source type ("postgres").
	Name string
	// New is the package's source constructor.
	New func(connector.Config) (connector.Source, error)
	// Config is a source config reading table, plus the options kv
	// (alternating keys and values).
	Config func(table string, kv ...any) connector.Config
	// Query is a query over table's id, seq and name in that order with
	// one bind parameter, and the params option that selects every row
	// (so that shard bounds are numbered after the query's own).
	Query func(table string) (string, []any)
	// Create creates table (dropping an earlier one) and inserts rows.
	Create func(t *testing.T, table string, rows []Row)
	// Insert adds rows to table.
	Insert func(t *testing.T, table string, rows []Row)
}

func id(v int64) *int64 { return &v }

// Rows is the main data set: negative and positive keys, gaps, a repeated
// key, NULL keys and both ends of the int64 range.
func Rows() []Row {
	ids := []*int64{id(math.MinInt64), id(-1_000_000), id(-5), id(-1), nil, id(0), id(1), id(2), id(3), id(3),
		id(10), id(11), nil, id(500), id(1_000_000_000_000), id(math.MaxInt64 - 1), id(math.MaxInt64), nil}
	rows := make([]Row, len(ids))
	for i, k := range ids {
		rows[i] = Row{ID: k, Seq: i + 1, Name: fmt.Sprintf("row %d", i+1)}
	}
	return rows
}

// Run runs every check; tables are named prefix_*.
func Run(t *testing.T, s Setup, prefix string) {
	t.Run("Cover", func(t *testing.T) { testCover(t, s, prefix+"_cover") })
	t.Run("Empty", func(t *testing.T) { testEmpty(t, s, prefix+"_empty") })
	t.Run("BadDescriptor", func(t *testing.T) { testBadDescriptor(t, s, prefix+"_bad") })
	t.Run("Config", func(t *testing.T) { testConfig(t, s, prefix+"_cfg") })
	t.Run("Incremental", func(t *testing.T) { testIncremental(t, s, prefix+"_inc") })
}

func newSource(t *testing.T, s Setup, c connector.Config) connector.Source {
	t.Helper()
	src, err := s.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func sharder(t *testing.T, src connector.Source) connector.Sharder {
	t.Helper()
	sh, ok := src.(connector.Sharder)
	if !ok {
		t.Fatalf("%T with shard.key set does not implement connector.Sharder", src)
	}
	return sh
}

func enumerate(t *testing.T, s Setup, c connector.Config, target int) []connector.ShardSpec {
	t.Helper()
	specs, err := sharder(t, newSource(t, s, c)).EnumerateShards(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// readShard reads one shard through a fresh source, as a cluster worker
// does: build, ApplyShard, then Open/Next until io.EOF.
func readShard(t *testing.T, s Setup, c connector.Config, spec connector.ShardSpec, start *connector.Value) connectortest.Result {
	t.Helper()
	src := newSource(t, s, c)
	if err := sharder(t, src).ApplyShard(spec); err != nil {
		t.Fatalf("apply shard %s: %v", spec.ID, err)
	}
	res, err := connectortest.Collect(context.Background(), src, start)
	if err != nil {
		t.Fatalf("read shard %s %s: %v", spec.ID, spec.Descriptor, err)
	}
	return res
}

func lines(recs []connector.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = connector.Object(r).String()
	}
	return out
}

func want(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.JSON()
	}
	slices.Sort(out)
	return out
}

// checkUnion reads every shard and compares the multiset of rows read with
// rows; it returns how many shards held at least one row.
func checkUnion(t *testing.T, s Setup, c connector.Config, specs []connector.ShardSpec, rows []Row) int {
	t.Helper()
	var got []string
	nonEmpty := 0
	for _, spec := range specs {
		recs := lines(readShard(t, s, c, spec, nil).Records)
		if len(recs) > 0 {
			nonEmpty++
		}
		got = append(got, recs...)
	}
	slices.Sort(got)
	if w := want(rows); !slices.Equal(got, w) {
		t.Errorf("the %d shards read\n%s\nwant every row once:\n%s", len(specs), strings.Join(got, "\n"), strings.Join(w, "\n"))
	}
	return nonEmpty
}

func testCover(t *testing.T, s Setup, table string) {
	rows := Rows()
	s.Create(t, table, rows)
	byTable := s.Config(table, "shard", map[string]any{"key": "id"})
	q, params := s.Query(table)
	byQuery := s.Config("", "query", q, "params", params, "shard", map[string]any{"key": "id"})
	for _, target := range []int{1, 3, 4, 7} {
		t.Run(fmt.Sprint(target), func(t *testing.T) {
			for name, c := range map[string]connector.Config{"table": byTable, "query": byQuery} {
				specs := enumerate(t, s, c, target)
				if len(specs) != target {
					t.Fatalf("%s: %d shards for target %d over the whole int64 range", name, len(specs), target)
				}
				if target == 1 && (specs[0].ID != "0" || string(specs[0].Descriptor) != "null") {
					t.Errorf("%s: one shard is not the whole shard: %s %s", name, specs[0].ID, specs[0].Descriptor)
				}
				seen := map[string]bool{}
				for _, sp := range specs {
					if seen[sp.ID] || strings.Contains(sp.ID, ":") {
						t.Errorf("%s: bad or repeated shard id %q", name, sp.ID)
					}
					seen[sp.ID] = true
					if sp.SizeEstimate == nil || *sp.SizeEstimate <= 0 {
						t.Errorf("%s: shard %s has no size estimate", name, sp.ID)
					}
				}
				if n := checkUnion(t, s, c, specs, rows); target > 1 && n < 3 {
					t.Errorf("%s: only %d of %d shards held rows; the split is not a split", name, n, target)
				}
			}
		})
	}
	// A narrow range: more shards asked for than there are key values.
	narrow := table + "_narrow"
	few := []Row{{ID: id(5), Seq: 1, Name: "a"}, {ID: id(6), Seq: 2, Name: "b"}, {ID: id(6), Seq: 3, Name: "c"}, {Seq: 4, Name: "d"}}
	s.Create(t, narrow, few)
	c := s.Config(narrow, "shard", map[string]any{"key": "id"})
	specs := enumerate(t, s, c, 7)
	if len(specs) != 2 {
		t.Fatalf("keys 5..6 in 7 shards: got %d shards, want 2", len(specs))
	}
	checkUnion(t, s, c, specs, few)
}

func testEmpty(t *testing.T, s Setup, table string) {
	s.Create(t, table, nil)
	c := s.Config(table, "shard", map[string]any{"key": "id"})
	specs := enumerate(t, s, c, 4)
	if len(specs) != 1 || specs[0].ID != "0" || string(specs[0].Descriptor) != "null" {
		t.Fatalf("empty table: got %+v, want the whole shard", specs)
	}
	if res := readShard(t, s, c, specs[0], nil); len(res.Records) != 0 {
		t.Errorf("empty table read %d records", len(res.Records))
	}
	// Only NULL keys: no range to split, so the whole shard holds them.
	nulls := table + "_nulls"
	rows := []Row{{Seq: 1, Name: "a"}, {Seq: 2, Name: "b"}}
	s.Create(t, nulls, rows)
	c = s.Config(nulls, "shard", map[string]any{"key": "id"})
	specs = enumerate(t, s, c, 4)
	if len(specs) != 1 || string(specs[0].Descriptor) != "null" {
		t.Fatalf("only NULL keys: got %+v, want the whole shard", specs)
	}
	checkUnion(t, s, c, specs, rows)
}

func testBadDescriptor(t *testing.T, s Setup, table string) {
	s.Create(t, table, Rows()[:6])
	specs := enumerate(t, s, s.Config(table, "shard", map[string]any{"key": "id"}), 3)
	other := s.Config(table, "shard", map[string]any{"key": "seq"})
	err := sharder(t, newSource(t, s, other)).ApplyShard(specs[1])
	if err == nil || !strings.Contains(err.Error(), `made for shard.key "id", but this source is sharded on "seq"`) {
		t.Errorf("descriptor of another key: %v", err)
	}
	for _, d := range []string{`{"shards":3,"index":1}`, `[1,2]`, `"id"`, `{"key":"id","lo":1}`, `{`} {
		err := sharder(t, newSource(t, s, other)).ApplyShard(connector.ShardSpec{ID: "1", Descriptor: json.RawMessage(d)})
		if err == nil || !connector.IsFatal(err) || !strings.Contains(err.Error(), `shard "1"`) {
			t.Errorf("descriptor %s: %v", d, err)
		}
	}
}

func testConfig(t *testing.T, s Setup, table string) {
	// `faucet schema` documents the option from the struct tags.
	spec, err := connector.Default.Source(s.Name)
	if err != nil {
		t.Fatal(err)
	}
	shard, _ := connector.SchemaOf(spec.Config)["properties"].(map[string]any)["shard"].(map[string]any)
	key, _ := shard["properties"].(map[string]any)["key"].(map[string]any)
	required, _ := shard["required"].([]string)
	if shard["description"] == nil || key["type"] != "string" || key["description"] == nil || !slices.Equal(required, []string{"key"}) {
		t.Errorf("schema of shard: %v", shard)
	}
	src := newSource(t, s, s.Config(table))
	if _, ok := src.(connector.Sharder); ok {
		t.Errorf("%T without shard.key claims to be shardable", src)
	}
	for _, tc := range []struct {
		shard any
		path  string
	}{
		{map[string]any{}, "shard.key"},
		{map[string]any{"key": " "}, "shard.key"},
		{map[string]any{"key": "id", "count": 4}, "shard.count"},
		{"id", "shard"},
	} {
		_, err := s.New(s.Config(table, "shard", tc.shard))
		if err == nil || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("shard: %v: error %v, want one naming %s", tc.shard, err, tc.path)
		}
	}
}

func testIncremental(t *testing.T, s Setup, table string) {
	var rows []Row
	for i := 1; i <= 20; i++ {
		rows = append(rows, Row{ID: id(int64(i * 10)), Seq: i, Name: fmt.Sprintf("r%d", i)})
	}
	rows = append(rows, Row{Seq: 21, Name: "null key"})
	s.Create(t, table, rows)
	q, params := s.Query(table)
	c := s.Config("", "query", q, "params", params, "replication_key", "seq", "batch_size", 3,
		"shard", map[string]any{"key": "id"})
	specs := enumerate(t, s, c, 3)
	if len(specs) != 3 {
		t.Fatalf("got %d shards", len(specs))
	}
	// First run of every shard: all its rows, in seq order, ending in a bookmark.
	marks := make([]*connector.Value, len(specs))
	var all []Row
	for i, spec := range specs {
		res := readShard(t, s, c, spec, nil)
		got := lines(res.Records)
		if !slices.IsSortedFunc(res.Records, func(a, b connector.Record) int {
			x, _ := a.Get("seq")
			y, _ := b.Get("seq")
			return int(x.AsInt() - y.AsInt())
		}) {
			t.Errorf("shard %s not in replication-key order: %v", spec.ID, got)
		}
		marks[i] = res.Bookmark
		if res.Bookmark == nil {
			t.Fatalf("shard %s: no bookmark", spec.ID)
		}
		for _, r := range rows {
			if slices.Contains(got, r.JSON()) {
				all = append(all, r)
			}
		}
	}
	if len(all) != len(rows) {
		t.Fatalf("first runs read %d of %d rows", len(all), len(rows))
	}
	// Newer rows: below the probed minimum, inside, above the maximum, NULL.
	newer := []Row{{ID: id(-7), Seq: 30, Name: "below"}, {ID: id(105), Seq: 31, Name: "inside"},
		{ID: id(10_000), Seq: 32, Name: "above"}, {Seq: 33, Name: "null again"}, {ID: id(10), Seq: 34, Name: "repeat"}}
	s.Insert(t, table, newer)
	var again []string
	for i, spec := range specs {
		res := readShard(t, s, c, spec, marks[i])
		for _, l := range lines(res.Records) {
			if !slices.Contains(want(newer), l) {
				t.Errorf("shard %s resumed at %v re-read an old row %s", spec.ID, marks[i], l)
			}
		}
		again = append(again, lines(res.Records)...)
	}
	slices.Sort(again)
	if w := want(newer); !slices.Equal(again, w) {
		t.Errorf("resumed shards read\n%s\nwant the newer rows once:\n%s", strings.Join(again, "\n"), strings.Join(w, "\n"))
	}
	// The first shard is open below and the last above and for NULL.
	first := lines(readShard(t, s, c, specs[0], marks[0]).Records)
	last := lines(readShard(t, s, c, specs[2], marks[2]).Records)
	if !slices.Contains(first, newer[0].JSON()) || !slices.Contains(last, newer[2].JSON()) || !slices.Contains(last, newer[3].JSON()) {
		t.Errorf("open ends: first shard %v, last shard %v", first, last)
	}
}
