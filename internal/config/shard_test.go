package config

import "testing"

func TestShardCount(t *testing.T) {
	const pipe = "pipeline:\n  source: {type: csv}\n  sink: {type: jsonl}\n"
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"absent", pipe, 0},
		{"four", "shard: {count: 4}\n" + pipe, 4},
		{"one runs whole", "shard: {count: 1}\n" + pipe, 1},
		{"empty block", "shard: {}\n" + pipe, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustLoad(t, tc.text, noEnv()).ShardCount; got != tc.want {
				t.Fatalf("ShardCount = %d, want %d", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"zero", "shard: {count: 0}\n" + pipe, []string{`pipeline.yaml:1:16: shard.count: must be between 1 and 1024, got 0`}},
		{"not an integer", "shard: {count: many}\n" + pipe, []string{`pipeline.yaml:1:16: shard.count: expected an integer, got "many"`}},
		{"unknown key", "shard: {key: id}\n" + pipe, []string{`pipeline.yaml:1:9: shard.key: unknown key; valid keys: count`}},
		{"not an object", "shard: 4\n" + pipe, []string{`pipeline.yaml:1:8: shard: expected an object, got 4`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErrs(t, loadErrs(t, tc.text, noEnv()), tc.want...)
		})
	}
}
