package redis

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
	goredis "github.com/redis/go-redis/v9"
)

func init() {
	// go-redis logs dial retries to stderr on its own; the errors it
	// returns carry the same facts, with the key they concern.
	goredis.SetLogger(quietLog{})
	connector.RegisterSource(connector.SourceSpec{
		Name:    "redis",
		Summary: "Read a Redis list (LRANGE, non-destructive), stream (XRANGE, resumable from the last entry id) or the keys matching a pattern (SCAN).",
		Config:  &SourceConfig{},
		New:     newSource,
	})
	connector.RegisterSink(connector.SinkSpec{
		Name:    "redis",
		Summary: "Write records to a Redis list (RPUSH), stream (XADD) or one key per record (SET, optional TTL), pipelined; exactly_once with MULTI/EXEC commit tokens.",
		Config:  &SinkConfig{},
		New:     newSink,
	})
}

type quietLog struct{}

func (quietLog) Printf(context.Context, string, ...any) {}

// dialTimeout bounds the connection check in Open.
const dialTimeout = 10 * time.Second

// writeTimeout is how long a sink waits for the reply to one pipeline or
// MULTI/EXEC (a whole page) unless the URL says otherwise (read_timeout).
const writeTimeout = 60 * time.Second

// connect builds a client for raw and checks that the server answers. A
// client for writes gets no go-redis retries (a write is never repeated
// blindly: token.go decides) and a reply timeout fit for whole pages.
func connect(ctx context.Context, raw string, forWrites bool) (*goredis.Client, error) {
	opts, err := goredis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("redis %s: invalid url", redactURL(raw))
	}
	if forWrites {
		opts.MaxRetries = -1
		if opts.ReadTimeout == 0 {
			opts.ReadTimeout = writeTimeout
		}
	}
	// RESP2 replies keep the order of hash fields and stream entry fields
	// (RESP3 turns them into maps).
	opts.Protocol = 2
	c := goredis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("redis %s: %s", redactURL(raw), scrub(err, raw))
	}
	return c, nil
}

// redactURL hides the password of a Redis URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return strings.Replace(u.String(), ":xxxxx@", ":***@", 1)
}

// scrub removes the URL's password from an error message.
func scrub(err error, raw string) string {
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "***")
		}
	}
	return msg
}

// isConnError reports a failure of the connection rather than a refusal
// by the server: anything that is not a Redis error reply (the server went
// away, refused or timed out), or a server still loading its data set.
// A cancelled or expired context is not one.
func isConnError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var re goredis.Error
	return !errors.As(err, &re) || goredis.IsLoadingError(err)
}

// decodeText turns a stored string into a value: its JSON when it parses,
// else the string itself (faucet-cli 1.x did the same).
func decodeText(s string) connector.Value {
	if v, err := connector.ParseJSON([]byte(s)); err == nil {
		return v
	}
	return connector.String(s)
}

// asString reads a reply element that Redis sends as a bulk string.
func asString(x any) (string, bool) {
	switch v := x.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}
