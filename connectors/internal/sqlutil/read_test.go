package sqlutil

import (
	"errors"
	"reflect"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestReadStatement(t *testing.T) {
	start := connector.Int(42)
	null := connector.Null()
	text := func(v connector.Value) any { return v.Text() }
	shard := &ShardRange{Key: "id", Lo: 10, Hi: 20}
	cases := []struct {
		name  string
		r     Read
		start *connector.Value
		q     string
		args  []any
	}{
		{"query as is", Read{Dialect: Postgres, Query: " SELECT * FROM t WHERE a = $1 ;", Args: []any{"x"}}, nil,
			"SELECT * FROM t WHERE a = $1 ", []any{"x"}},
		{"table columns", Read{Dialect: MySQL, Table: "t", Columns: []string{"a", "b`c"}}, nil,
			"SELECT `a`, `b``c` FROM `t`", nil},
		{"schema table", Read{Dialect: Postgres, Schema: "s", Table: "t"}, nil, `SELECT * FROM "s"."t"`, nil},
		{"incremental from a bookmark", Read{Dialect: SQLite, Table: "t", ReplicationKey: "at"}, &start,
			`SELECT * FROM (SELECT * FROM "t") AS _faucet_src WHERE "at" > ? ORDER BY "at"`, []any{"42"}},
		{"incremental, null bookmark", Read{Dialect: SQLite, Table: "t", ReplicationKey: "at"}, &null,
			`SELECT * FROM (SELECT * FROM "t") AS _faucet_src ORDER BY "at"`, nil},
		{"shard, incremental and a query param numbered in order", Read{Dialect: Postgres, Query: "SELECT * FROM t WHERE a = $1",
			Args: []any{"x"}, ReplicationKey: "at", ShardKey: "id", Shard: shard}, &start,
			`SELECT * FROM (SELECT * FROM (SELECT * FROM t WHERE a = $1) AS _faucet_shard WHERE "id" >= CAST($2 AS BIGINT) AND "id" < CAST($3 AS BIGINT)) AS _faucet_src WHERE "at" > $4 ORDER BY "at"`,
			[]any{"x", int64(10), int64(20), "42"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, args := tc.r.Statement(tc.start, text)
			if q != tc.q {
				t.Errorf("query\n got %s\nwant %s", q, tc.q)
			}
			if len(args) != 0 || len(tc.args) != 0 {
				if !reflect.DeepEqual(args, tc.args) {
					t.Errorf("args %#v, want %#v", args, tc.args)
				}
			}
		})
	}
	// Statement never appends to the configured arguments in place.
	r := Read{Dialect: Postgres, Query: "SELECT $1", Args: make([]any, 1, 8), ReplicationKey: "k"}
	r.Statement(&start, text)
	if _, args := r.Statement(nil, text); len(args) != 1 {
		t.Errorf("args grew: %v", args)
	}
}

func TestReadShardNotConfigured(t *testing.T) {
	r := Read{Dialect: SQLite, Table: "t"}
	if err := r.ApplyShard(connector.WholeShard()); err == nil {
		t.Error("ApplyShard without shard.key accepted")
	}
}

func TestCheckRead(t *testing.T) {
	cases := []struct {
		name, query, table string
		columns            []string
		batch              int
		params             []any
		shard              *ShardConfig
		path               string // "" means valid
	}{
		{"query", "SELECT 1", "", nil, 10, []any{1.0, "a", nil, []any{1.0}}, &ShardConfig{Key: "id"}, ""},
		{"table", "", "t", []string{"a"}, 1, nil, nil, ""},
		{"neither", " ", "", nil, 10, nil, nil, "query"},
		{"both", "SELECT 1", "t", nil, 10, nil, nil, "query"},
		{"columns without table", "SELECT 1", "", []string{"a"}, 10, nil, nil, "columns"},
		{"batch 0", "", "t", nil, 0, nil, nil, "batch_size"},
		{"batch too large", "", "t", nil, connector.MaxPageSize + 1, nil, nil, "batch_size"},
		{"blank shard key", "", "t", nil, 10, nil, &ShardConfig{}, "shard.key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRead(tc.query, tc.table, tc.columns, tc.batch, tc.params, tc.shard)
			if tc.path == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *connector.ConfigError
			if !errors.As(err, &ce) || ce.Path != tc.path {
				t.Errorf("error %v, want a config error at %s", err, tc.path)
			}
		})
	}
}
