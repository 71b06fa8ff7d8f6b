package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/redis/go-redis/v9"
)

// RedisConfig is the `config:` of `state: {type: redis}`, as in
// faucet-cli 1.x.
type RedisConfig struct {
	URL       connector.Secret `json:"url" required:"true" doc:"redis://[user:password@]host:port[/db] (rediss:// for TLS)."`
	Namespace string           `json:"namespace" default:"faucet" doc:"Prefix of every key: a bookmark lives at {namespace}:{state key} (letters, digits, _ - .)."`
}

// Validate implements connector.Validator.
func (c *RedisConfig) Validate() error {
	if strings.TrimSpace(c.URL.Reveal()) == "" {
		return connector.ConfigErrorf("url", "must not be empty")
	}
	if _, err := redis.ParseURL(c.URL.Reveal()); err != nil {
		return connector.ConfigErrorf("url", "not a valid Redis URL (redis://host:port[/db])")
	}
	if c.Namespace == "" {
		return connector.ConfigErrorf("namespace", "must not be empty")
	}
	for i := 0; i < len(c.Namespace); i++ {
		ch := c.Namespace[i]
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-' || ch == '.'
		if !ok {
			return connector.ConfigErrorf("namespace", "character %q is not allowed (letters, digits, _ - .), got %q", ch, c.Namespace)
		}
	}
	return nil
}

func init() {
	// go-redis logs dial retries to stderr on its own; the errors it
	// returns say the same, with the key and the store they concern.
	redis.SetLogger(quietRedisLog{})
	Register(Kind{
		Name:    "redis",
		Summary: "one Redis string per state key at {namespace}:{key} (faucet-cli 1.x layout); as durable as the server's persistence",
		Config:  &RedisConfig{},
		Open: func(cfg connector.Config) (Store, error) {
			var c RedisConfig
			if err := cfg.Decode(&c); err != nil {
				return nil, err
			}
			return OpenRedis(context.Background(), c)
		},
	})
}

type quietRedisLog struct{}

func (quietRedisLog) Printf(context.Context, string, ...any) {}

// Redis keeps each bookmark as a JSON string under {namespace}:{key},
// written with SET and read with GET. Durability is the server's: with
// AOF (appendfsync always or everysec) a Put survives a server restart,
// without persistence it does not (an exactly-once run then resumes from
// the sink's commit token, which is ahead of the lost state).
type Redis struct {
	client    *redis.Client
	namespace string
	where     string // redacted URL for messages
}

// redisDialTimeout bounds the first connection attempt in OpenRedis.
const redisDialTimeout = 10 * time.Second

// OpenRedis connects and checks that the server answers.
func OpenRedis(ctx context.Context, c RedisConfig) (*Redis, error) {
	where := redactURL(c.URL.Reveal())
	opts, err := redis.ParseURL(c.URL.Reveal())
	if err != nil {
		return nil, fmt.Errorf("state redis %s: invalid url", where)
	}
	s := &Redis{client: redis.NewClient(opts), namespace: c.Namespace, where: where}
	pctx, cancel := context.WithTimeout(ctx, redisDialTimeout)
	defer cancel()
	if err := s.client.Ping(pctx).Err(); err != nil {
		s.client.Close()
		return nil, fmt.Errorf("state redis %s: %s", where, scrub(err, c.URL.Reveal()))
	}
	return s, nil
}

// RedisKey is the Redis key that holds the bookmark of state key key.
func (s *Redis) RedisKey(key string) string { return s.namespace + ":" + key }

// Get implements Store.
func (s *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := ValidateKey(key); err != nil {
		return nil, false, err
	}
	v, err := s.client.Get(ctx, s.RedisKey(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.fail("read", key, err)
	}
	if !json.Valid(v) {
		return nil, false, &CorruptError{Path: s.where + " (key " + s.RedisKey(key) + ")", Err: errors.New("not valid JSON")}
	}
	return v, true, nil
}

// Put implements Store: one SET, atomic on the server.
func (s *Redis) Put(ctx context.Context, key string, value []byte) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if !json.Valid(value) {
		return fmt.Errorf("state value for %q is not valid JSON", key)
	}
	if err := s.client.Set(ctx, s.RedisKey(key), value, 0).Err(); err != nil {
		return s.fail("write", key, err)
	}
	return nil
}

// Delete implements Store.
func (s *Redis) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := s.client.Del(ctx, s.RedisKey(key)).Err(); err != nil {
		return s.fail("delete", key, err)
	}
	return nil
}

// Close implements Store.
func (s *Redis) Close() error { return s.client.Close() }

// fail wraps a Redis error; a lost connection is retryable (GET, SET and
// DEL of one key can be repeated safely).
func (s *Redis) fail(op, key string, err error) error {
	err = fmt.Errorf("state redis %s: %s %q (key %s): %w", s.where, op, key, s.RedisKey(key), err)
	if isConnError(err) {
		return connector.Retryable(err)
	}
	return err
}

// isConnError reports a failure of the connection rather than a refusal
// by the server: anything that is not a Redis error reply (the server went
// away, refused or timed out), or a server still loading its data set.
// A cancelled or expired context is not one.
func isConnError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var re redis.Error
	return !errors.As(err, &re) || redis.IsLoadingError(err)
}
