package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/faucet-hq/faucet/connector"
	goredis "github.com/redis/go-redis/v9"
)

// Source reads one list, stream or key pattern page by page (see doc.go).
type Source struct {
	cfg     SourceConfig
	st      SourceType
	client  *goredis.Client
	log     *slog.Logger
	emitted int64 // records handed out so far
	done    bool

	listPos int64  // List: index of the next element to read
	next    string // Stream: XRANGE start of the next page ("-" or an id)

	chunks  chunker  // read sizes for batch_bytes
	cursor  uint64   // Keys: SCAN cursor
	scanned bool     // Keys: the SCAN iteration came back to cursor 0
	keys    []string // Keys: scanned, not yet read
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.st = *s.cfg.SourceType
	if s.cfg.BatchSize > 0 {
		s.chunks.limit = int64(s.cfg.BatchBytes)
	}
	return s, nil
}

// DatasetURI names what the source reads, without credentials
// (redis://host:port/db?key=..., ?stream=... or ?key=<pattern>).
func (s *Source) DatasetURI() string {
	base := redactURL(s.cfg.URL.Reveal())
	switch s.st.Type {
	case modeStream:
		return base + "?stream=" + s.st.Key
	case modeKeys:
		return base + "?key=" + s.st.Pattern
	}
	return base + "?key=" + s.st.Key
}

// Open connects and checks the key's type, so a wrong key fails before
// anything is written. A stream resumes after the entry id in
// opts.StartBookmark.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	c, err := connect(ctx, s.cfg.URL.Reveal(), false)
	if err != nil {
		return err
	}
	s.client = c
	if s.st.Type == modeStream && (s.st.Group != "" || s.st.Consumer != "") {
		s.log.Warn("redis source: group and consumer are ignored; the stream is read with XRANGE from the saved bookmark (faucet-cli 1.x streaming did not use them either)", "stream", s.st.Key)
	}
	if s.st.Type == modeKeys {
		return nil
	}
	if err := s.checkType(ctx); err != nil {
		return err
	}
	s.next = "-"
	if opts.StartBookmark != nil && !opts.StartBookmark.IsNull() {
		if s.st.Type != modeStream {
			s.log.Warn("redis source: a saved bookmark is ignored: only a stream resumes", "key", s.st.Key, "bookmark", opts.StartBookmark.String())
			return nil
		}
		id, ok := parseStreamID(opts.StartBookmark.AsString())
		if !ok {
			return fmt.Errorf("redis: stream %q: saved bookmark %s is not a stream entry id (ms-seq); delete the state to read the stream from the start", s.st.Key, opts.StartBookmark.String())
		}
		next, more := id.next()
		if !more {
			s.done = true
		}
		s.next = next.String()
	}
	return nil
}

// checkType refuses a key that holds another kind of data.
func (s *Source) checkType(ctx context.Context) error {
	want := map[string]string{modeList: "list", modeStream: "stream"}[s.st.Type]
	got, err := s.client.Type(ctx, s.st.Key).Result()
	if err != nil {
		return s.fail(ctx, "TYPE", err)
	}
	switch got {
	case want:
	case "none":
		s.log.Warn("redis source: the key does not exist; nothing to read", "key", s.st.Key)
	default:
		return fmt.Errorf("redis: key %q holds a %s, not a %s (source_type %s)", s.st.Key, got, want, s.st.Type)
	}
	return nil
}

// Next returns the next page, or io.EOF.
func (s *Source) Next(ctx context.Context) (*connector.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.done || s.client == nil {
		return nil, io.EOF
	}
	want := s.pageWant()
	if want == 0 {
		s.done = true
		return nil, io.EOF
	}
	var (
		p   *connector.Page
		err error
	)
	switch s.st.Type {
	case modeList:
		p, err = s.nextList(ctx, want)
	case modeStream:
		p, err = s.nextStream(ctx, want)
	default:
		p, err = s.nextKeys(ctx, want)
	}
	if err != nil {
		return nil, err
	}
	if p == nil {
		s.done = true
		return nil, io.EOF
	}
	return p, nil
}

// pageWant is how many records the next page may hold: batch_size, cut
// to what max_records leaves; -1 means no bound.
func (s *Source) pageWant() int64 {
	want := int64(s.cfg.BatchSize)
	if want == 0 {
		want = -1
	}
	if m := s.cfg.MaxRecords; m != nil {
		left := *m - s.emitted
		if left <= 0 {
			return 0
		}
		if want < 0 || left < want {
			want = left
		}
	}
	return want
}

// fail names the command and key of a read error.
func (s *Source) fail(ctx context.Context, cmd string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return ctx.Err()
	}
	what := s.st.Key
	if s.st.Type == modeKeys {
		what = s.st.Pattern
	}
	return fmt.Errorf("redis %s: %s %q: %w", redactURL(s.cfg.URL.Reveal()), cmd, what, err)
}

// Close implements connector.Source.
func (s *Source) Close() error {
	if s.client == nil {
		return nil
	}
	err := s.client.Close()
	s.client = nil
	return err
}
