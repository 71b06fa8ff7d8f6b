package redis_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/faucet-hq/faucet/internal/cli"
	goredis "github.com/redis/go-redis/v9"
)

// These tests run whole pipelines through the CLI (cli.Main, what the
// binary runs), against the shared Redis and, for the faults, a private
// redis-server. The golden harness cannot express them: it has no way to
// seed or clean a Redis, nor to skip when there is none.

func sharedRedis(t *testing.T) (string, *goredis.Client) {
	t.Helper()
	url := connectortest.ServiceURL(t, "FAUCET_TEST_REDIS_URL", "redis://127.0.0.1:6379/0", func(ctx context.Context, url string) error {
		opts, err := goredis.ParseURL(url)
		if err != nil {
			return err
		}
		c := goredis.NewClient(opts)
		defer c.Close()
		return c.Ping(ctx).Err()
	})
	opts, _ := goredis.ParseURL(url)
	c := goredis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return url, c
}

// uniqueName is a pipeline name (and key prefix) no other test uses; every
// key starting with it, and its commit tokens, are deleted at the end.
func uniqueName(t *testing.T, c *goredis.Client) string {
	name := fmt.Sprintf("fe2e%d", rand.Uint64()%1e12)
	t.Cleanup(func() {
		ctx := context.Background()
		for _, pat := range []string{name + "*", "*:" + name + "*", "_faucet_commit_token:" + name + "*"} {
			keys, _ := c.Keys(ctx, pat).Result()
			if len(keys) > 0 {
				c.Del(ctx, keys...)
			}
		}
	})
	return name
}

// faucet runs the CLI in dir and returns its exit code and stderr.
func faucet(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stderr.String()
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addEntries XADDs entries from..to with explicit ids (i-1) and field n=i.
func addEntries(t *testing.T, c *goredis.Client, key string, from, to int) {
	t.Helper()
	ctx := context.Background()
	for start := from; start <= to; start += 1000 {
		_, err := c.Pipelined(ctx, func(p goredis.Pipeliner) error {
			for i := start; i < start+1000 && i <= to; i++ {
				p.XAdd(ctx, &goredis.XAddArgs{Stream: key, ID: strconv.Itoa(i) + "-1", Values: []any{"n", i}})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkOnce checks that list holds {"id":"<i>-1","fields":{"n":i}} for
// i = 1..n, each once, in order.
func checkOnce(t *testing.T, c *goredis.Client, list string, n int) {
	t.Helper()
	got := c.LRange(context.Background(), list, 0, -1).Val()
	if len(got) != n {
		t.Fatalf("list %s holds %d records, want %d", list, len(got), n)
	}
	for i, s := range got {
		want := fmt.Sprintf(`{"id":"%d-1","fields":{"n":%d}}`, i+1, i+1)
		if s != want {
			t.Fatalf("list %s[%d] = %s, want %s", list, i, s, want)
		}
	}
}

// A stream read into a list under delivery: exactly_once, with the state
// in Redis too: the first run copies everything, a rerun after new
// entries copies only those, once.
func TestExactlyOnceStreamToList(t *testing.T) {
	url, c := sharedRedis(t)
	ctx := context.Background()
	name := uniqueName(t, c)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "faucet.yaml"), fmt.Sprintf(`version: 1
name: %[2]s
delivery: exactly_once
pipeline:
  source:
    type: redis
    config: {url: "%[1]s", source_type: {type: Stream, key: %[2]s-in}, batch_size: 100}
  sink:
    type: redis
    config: {url: "%[1]s", sink_type: {type: List, key: %[2]s-out}}
  state:
    type: redis
    config: {url: "%[1]s", namespace: %[2]s-state}
`, url, name))
	if code, stderr := faucet(t, dir, "validate", "faucet.yaml"); code != 0 {
		t.Fatalf("validate: exit %d\n%s", code, stderr)
	}
	addEntries(t, c, name+"-in", 1, 2500)
	if code, stderr := faucet(t, dir, "run", "faucet.yaml", "--quiet"); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	checkOnce(t, c, name+"-out", 2500)
	// 25 pages: the token carries seq 25 and the last entry id; the state
	// keeps the 1.x exactly-once envelope under {namespace}:{state key}.
	if tok := c.Get(ctx, "_faucet_commit_token:"+name+"::row-0").Val(); tok != `00000000000000000025#"2500-1"` {
		t.Errorf("commit token %s", tok)
	}
	if st := c.Get(ctx, name+"-state:"+name+"::row-0").Val(); st != `{"__faucet_eo":1,"bookmark":"2500-1","seq":25}` {
		t.Errorf("state %s", st)
	}
	addEntries(t, c, name+"-in", 2501, 2650)
	if code, stderr := faucet(t, dir, "run", "faucet.yaml", "--quiet"); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	checkOnce(t, c, name+"-out", 2650)
}

// Without exactly-once, a stream with a state store still resumes after
// the last saved entry id; a list source (no bookmark) is read whole again.
func TestIncrementalStreamAndListRerun(t *testing.T) {
	url, c := sharedRedis(t)
	ctx := context.Background()
	name := uniqueName(t, c)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "faucet.yaml"), fmt.Sprintf(`version: 1
name: %[2]s
matrix:
  - id: stream
  - id: list
    source: {config: {source_type: {type: List, key: %[2]s-list}}}
    sink: {config: {sink_type: {type: List, key: %[2]s-list-out}}}
pipeline:
  source:
    type: redis
    config: {url: "%[1]s", source_type: {type: Stream, key: %[2]s-in}, batch_size: 7}
  sink:
    type: redis
    config: {url: "%[1]s", sink_type: {type: List, key: %[2]s-out}}
  state: {type: file, config: {path: state}}
`, url, name))
	addEntries(t, c, name+"-in", 1, 20)
	c.RPush(ctx, name+"-list", `{"a":1}`, `{"a":2}`)
	for run := 1; run <= 2; run++ {
		if code, stderr := faucet(t, dir, "run", "faucet.yaml", "--quiet"); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run, code, stderr)
		}
	}
	checkOnce(t, c, name+"-out", 20)
	if n := c.LLen(ctx, name+"-list-out").Val(); n != 4 {
		t.Errorf("list copied twice should hold 4, holds %d", n)
	}
	if n := c.LLen(ctx, name+"-list").Val(); n != 2 {
		t.Errorf("the source list changed: %d elements", n)
	}
}
