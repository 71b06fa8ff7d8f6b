package state

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector/connectortest"
	"github.com/redis/go-redis/v9"
)

// redisURL returns the test server or skips (fails under CI=true).
func redisURL(t *testing.T) string {
	return connectortest.ServiceURL(t, "FAUCET_TEST_REDIS_URL", "redis://127.0.0.1:6379/0", func(ctx context.Context, url string) error {
		opts, err := redis.ParseURL(url)
		if err != nil {
			return err
		}
		c := redis.NewClient(opts)
		defer c.Close()
		return c.Ping(ctx).Err()
	})
}

// redisNamespace returns a namespace no other test uses and removes its
// keys when t ends.
func redisNamespace(t *testing.T, url string) string {
	ns := fmt.Sprintf("faucet-test-%d", rand.Uint64()%1e12)
	t.Cleanup(func() {
		opts, _ := redis.ParseURL(url)
		c := redis.NewClient(opts)
		defer c.Close()
		ctx := context.Background()
		keys, _ := c.Keys(ctx, ns+":*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	})
	return ns
}

func TestRedisStore(t *testing.T) {
	url := redisURL(t)
	storeSuite(t, func(t *testing.T) Store {
		s, err := Open("redis", cfgOf(t, map[string]any{"url": url, "namespace": redisNamespace(t, url)}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// The layout is faucet-cli 1.x's: {namespace}:{key} holds the JSON text,
// so a store written by either implementation is read by the other.
func TestRedisStoreLayoutAndCorruption(t *testing.T) {
	url := redisURL(t)
	ctx := context.Background()
	ns := redisNamespace(t, url)
	s, err := Open("redis", cfgOf(t, map[string]any{"url": url, "namespace": ns}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := s.(*Redis).client
	if err := s.Put(ctx, "orders::row-0", []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	got, err := raw.Get(ctx, ns+":orders::row-0").Result()
	if err != nil || got != `{"a":1}` {
		t.Fatalf("raw value %q err %v", got, err)
	}
	// Written by someone else (faucet-cli 1.x) is read back as is.
	raw.Set(ctx, ns+":legacy::row-0", `"2024-05-01T00:00:00Z"`, 0)
	v, ok, err := s.Get(ctx, "legacy::row-0")
	if err != nil || !ok || string(v) != `"2024-05-01T00:00:00Z"` {
		t.Fatalf("legacy value %s %v %v", v, ok, err)
	}
	// A value that is not JSON is reported as corrupt, never as "no bookmark".
	raw.Set(ctx, ns+":broken::row-0", `{"trunc`, 0)
	_, _, err = s.Get(ctx, "broken::row-0")
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), ns+":broken::row-0") {
		t.Fatalf("err = %v", err)
	}
	if err := s.Put(ctx, "p::row-0", []byte(`{`)); err == nil {
		t.Fatal("invalid JSON accepted")
	}
}

func TestRedisStoreConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  map[string]any
		want string
	}{
		{"no url", map[string]any{}, "url: required key is missing"},
		{"bad url", map[string]any{"url": "http://x"}, "not a valid Redis URL"},
		{"namespace with colon", map[string]any{"url": "redis://127.0.0.1:1", "namespace": "a:b"}, `character ':' is not allowed`},
		{"empty namespace", map[string]any{"url": "redis://127.0.0.1:1", "namespace": ""}, "namespace: must not be empty"},
		{"unknown key", map[string]any{"url": "redis://127.0.0.1:1", "table": "x"}, `unknown key "table"`},
		{"unreachable", map[string]any{"url": "redis://127.0.0.1:1"}, "state redis redis://127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open("redis", cfgOf(t, tc.cfg))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// A password never shows in an error.
	_, err := Open("redis", cfgOf(t, map[string]any{"url": "redis://u:hunter2@127.0.0.1:1"}))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}
