package redis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	goredis "github.com/redis/go-redis/v9"
)

// testURL returns the shared test Redis, skipping (failing under CI=true)
// when it does not answer.
func testURL(t testing.TB) string {
	t.Helper()
	return connectortest.ServiceURL(t, "FAUCET_TEST_REDIS_URL", "redis://127.0.0.1:6379/0", func(ctx context.Context, url string) error {
		c, err := rawClient(url)
		if err != nil {
			return err
		}
		defer c.Close()
		return c.Ping(ctx).Err()
	})
}

func rawClient(url string) (*goredis.Client, error) {
	opts, err := goredis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opts.Protocol = 2
	return goredis.NewClient(opts), nil
}

// testRedis is the shared server with a key prefix of its own: every key
// a test touches starts with prefix and is deleted when the test ends.
type testRedis struct {
	url    string
	prefix string
	c      *goredis.Client
}

func newTestRedis(t testing.TB) *testRedis {
	t.Helper()
	url := testURL(t)
	c, err := rawClient(url)
	if err != nil {
		t.Fatal(err)
	}
	r := &testRedis{url: url, prefix: fmt.Sprintf("faucet-test:%d:", rand.Uint64()%1e12), c: c}
	t.Cleanup(func() {
		r.deleteAll(t)
		c.Close()
	})
	return r
}

// key returns a key under the test's prefix.
func (r *testRedis) key(name string) string { return r.prefix + name }

func (r *testRedis) deleteAll(t testing.TB) {
	ctx := context.Background()
	iter := r.c.Scan(ctx, 0, r.prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		r.c.Unlink(ctx, keys[:n]...)
		keys = keys[n:]
	}
	// Commit tokens of scopes the test used live outside the prefix.
	r.c.Del(ctx, tokenKey(r.prefix+"scope"))
}

// loadList pushes n records {"id": i, "name": "name-i"} (i = 1..n).
func (r *testRedis) loadList(t testing.TB, key string, n int) {
	t.Helper()
	ctx := context.Background()
	for from := 1; from <= n; from += 1000 {
		args := []any{"RPUSH", key}
		for i := from; i < from+1000 && i <= n; i++ {
			args = append(args, fmt.Sprintf(`{"id":%d,"name":"name-%d"}`, i, i))
		}
		if err := r.c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// streamID returns entry i's id: fixed-width milliseconds, so ids also
// sort as strings.
func testStreamID(i int) string { return fmt.Sprintf("%d-0", 1_000_000_000_000+i) }

// loadStream adds n entries {n: i, name: name-i} with ids testStreamID(i).
func (r *testRedis) loadStream(t testing.TB, key string, from, to int) {
	t.Helper()
	ctx := context.Background()
	for start := from; start <= to; start += 1000 {
		_, err := r.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
			for i := start; i < start+1000 && i <= to; i++ {
				p.Do(ctx, "XADD", key, testStreamID(i), "n", i, "name", fmt.Sprintf("name-%d", i))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// loadKeys sets n string keys <base>i = {"id": i}.
func (r *testRedis) loadKeys(t testing.TB, base string, n int) {
	t.Helper()
	ctx := context.Background()
	for from := 1; from <= n; from += 1000 {
		args := []any{"MSET"}
		for i := from; i < from+1000 && i <= n; i++ {
			args = append(args, fmt.Sprintf("%s%d", base, i), fmt.Sprintf(`{"id":%d}`, i))
		}
		if err := r.c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// collect reads everything a source config gives.
func collect(t *testing.T, c connector.Config, start *connector.Value) connectortest.Result {
	t.Helper()
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := connectortest.Collect(context.Background(), src, start)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// write writes pages of records through a new sink.
func write(t *testing.T, c connector.Config, pages ...[]connector.Record) {
	t.Helper()
	snk, err := newSink(c)
	if err != nil {
		t.Fatal(err)
	}
	var ps []*connector.Page
	for _, r := range pages {
		ps = append(ps, &connector.Page{Records: r})
	}
	if err := connectortest.WritePages(context.Background(), snk, ps...); err != nil {
		t.Fatal(err)
	}
}

// rec builds a record from alternating keys and values.
func rec(kv ...any) connector.Record {
	var r connector.Record
	for i := 0; i < len(kv); i += 2 {
		v, err := connector.FromAny(kv[i+1])
		if err != nil {
			panic(err)
		}
		r.Set(kv[i].(string), v)
	}
	return r
}

// jsonOf renders records as one JSON line each.
func jsonOf(recs []connector.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(connector.AppendRecordJSON(nil, r))
	}
	return out
}

func redisZ(score float64, member string) goredis.Z { return goredis.Z{Score: score, Member: member} }
