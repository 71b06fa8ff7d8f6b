package redis

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	goredis "github.com/redis/go-redis/v9"
)

// Sink writes pages to one list, one stream or one key per record, in
// pipelined round trips of batch_size commands (see doc.go).
type Sink struct {
	cfg    SinkConfig
	st     SinkType
	client *goredis.Client
	log    *slog.Logger

	fieldNames []string   // Stream with fields: entry field names, sorted
	fieldPaths [][]string // their record paths
	keyPath    []string   // KeyValue: key_field split on '.'

	// known is the commit token this sink last saw committed per scope
	// ("" = none); an exactly-once write refuses to go on when the
	// server no longer holds it (see token.go).
	known map[string]string
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{known: map[string]string{}}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.st = *s.cfg.SinkType
	for name := range s.st.Fields {
		s.fieldNames = append(s.fieldNames, name)
	}
	sort.Strings(s.fieldNames)
	for _, name := range s.fieldNames {
		s.fieldPaths = append(s.fieldPaths, strings.Split(s.st.Fields[name], "."))
	}
	s.keyPath = strings.Split(s.st.KeyField, ".")
	return s, nil
}

// DatasetURI names the destination without credentials
// (redis://host:port/db?key=... or ?key_field=...).
func (s *Sink) DatasetURI() string {
	base := redactURL(s.cfg.URL.Reveal())
	if s.st.Type == modeKeyValue {
		return base + "?key_field=" + s.st.KeyField
	}
	return base + "?key=" + s.st.Key
}

// Open connects with go-redis's own retries off (a write is never
// repeated without checking what the server holds) and checks that a list
// or stream key is free or of the right type.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	c, err := connect(ctx, s.cfg.URL.Reveal(), true)
	if err != nil {
		return err
	}
	s.client = c
	if s.st.Type == modeKeyValue {
		return nil
	}
	want := map[string]string{modeList: "list", modeStream: "stream"}[s.st.Type]
	got, err := c.Type(ctx, s.st.Key).Result()
	if err != nil {
		return s.fail("TYPE", err)
	}
	if got != want && got != "none" {
		return fmt.Errorf("redis: key %q holds a %s, not a %s (sink_type %s)", s.st.Key, got, want, s.st.Type)
	}
	return nil
}

// Write sends the page's commands in pipelines of batch_size. Every record
// is checked before anything is sent, so a bad record writes nothing of
// its page. A failed round trip is not retried: part of the page may have
// landed, and RPUSH or XADD again would duplicate it (delivery:
// exactly_once makes pages atomic).
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if len(p.Records) == 0 {
		return nil
	}
	cmds, err := s.commands(p.Records)
	if err != nil {
		return err
	}
	size := len(cmds)
	if s.cfg.BatchSize > 0 {
		size = s.cfg.BatchSize
	}
	for from := 0; from < len(cmds); from += size {
		chunk := cmds[from:min(from+size, len(cmds))]
		_, err := s.client.Pipelined(ctx, func(pipe goredis.Pipeliner) error {
			s.queue(ctx, pipe, chunk)
			return nil
		})
		if err != nil {
			return s.fail(fmt.Sprintf("write records %d-%d of the page to", from+1, from+len(chunk)), err)
		}
	}
	return nil
}

// queue adds cmds to pipe; consecutive RPUSHes to the list become one
// RPUSH with many values.
func (s *Sink) queue(ctx context.Context, pipe goredis.Pipeliner, cmds [][]any) {
	if s.st.Type == modeList {
		args := make([]any, 0, 2+len(cmds))
		args = append(args, "RPUSH", s.st.Key)
		for _, c := range cmds {
			args = append(args, c[2])
		}
		pipe.Do(ctx, args...)
		return
	}
	for _, c := range cmds {
		pipe.Do(ctx, c...)
	}
}

// Flush has nothing to do: every round trip was acknowledged by the
// server. How durable that is depends on the server's persistence (AOF
// with appendfsync always or everysec).
func (s *Sink) Flush(context.Context) error { return nil }

// Close implements connector.Sink.
func (s *Sink) Close() error {
	if s.client == nil {
		return nil
	}
	err := s.client.Close()
	s.client = nil
	return err
}

// fail names the operation and the destination of a failed command.
func (s *Sink) fail(op string, err error) error {
	what := "key " + s.st.Key
	if s.st.Type == modeKeyValue {
		what = "keys from " + s.st.KeyField
	}
	return fmt.Errorf("redis %s: %s %s: %w", redactURL(s.cfg.URL.Reveal()), op, what, err)
}
