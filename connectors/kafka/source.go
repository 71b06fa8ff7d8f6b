package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pageWait is the longest a partial page waits for more messages before
// it is handed on.
const pageWait = time.Second

// minWait is the shortest poll worth making.
const minWait = 20 * time.Millisecond

// Source reads every partition of the configured topics from the bookmark
// (or auto_offset_reset) on; doc.go has the protocol.
type Source struct {
	cfg SourceConfig
	dec decoder
	log *slog.Logger
	cl  *kgo.Client

	next     positions     // where each partition continues: the bookmark
	taken    int64         // messages put in pages so far
	carry    []*kgo.Record // polled, not yet in a page (batch_bytes was reached)
	lastSeen time.Time     // when the last message (or the open) was
	skipped  atomic.Int64

	// the fetch limits in use (fetchsize.go)
	fetchBytes, fetchPartitionBytes int
}

var (
	_ connector.Source        = (*Source)(nil)
	_ connector.ReplayChecker = (*Source)(nil)
)

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.dec = decoder{format: s.cfg.ValueFormat, skipBad: s.cfg.OnDecodeError == "skip", skipped: &s.skipped}
	return s, nil
}

// Open connects, checks that the topics exist, settles where each
// partition starts and starts fetching from there.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var saved positions
	if opts.StartBookmark != nil && !opts.StartBookmark.IsNull() {
		var err error
		if saved, err = parseBookmark(*opts.StartBookmark); err != nil {
			return err
		}
	}
	octx, cancel := context.WithTimeout(ctx, secs(s.cfg.OpenTimeout))
	defer cancel()
	cl, err := newClient(octx, s.cfg.Brokers, s.log, append(metricsOpt(s.cfg.ClientMetrics), kgo.ClientID(s.clientID()))...)
	if err != nil {
		return err
	}
	s.cl = cl
	parts, err := partitions(octx, cl, s.cfg.Topics)
	if err == nil {
		s.next, err = s.startPositions(octx, parts, saved)
	}
	if err != nil {
		s.Close()
		if octx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("%w (open_timeout %gs)", err, s.cfg.OpenTimeout)
		}
		return err
	}
	var rtt time.Duration
	if s.cfg.FetchMaxBytes == 0 || s.cfg.FetchMaxPartitionBytes == 0 {
		rtt = roundTrip(octx, cl)
	}
	s.fetchBytes, s.fetchPartitionBytes = fetchSizes(s.cfg, rtt)
	s.log.Debug("kafka: fetch sizes", "round_trip", rtt.String(), "fetch_max_bytes", s.fetchBytes, "fetch_max_partition_bytes", s.fetchPartitionBytes)
	cl.Close()
	// A second client consumes: the partitions to read are only known now.
	start := map[string]map[int32]kgo.Offset{}
	for t, off := range s.next {
		if start[t.topic] == nil {
			start[t.topic] = map[int32]kgo.Offset{}
		}
		start[t.topic][t.partition] = kgo.NewOffset().At(off)
	}
	s.cl, err = kgo.NewClient(append(metricsOpt(s.cfg.ClientMetrics),
		kgo.SeedBrokers(mustBrokers(s.cfg.Brokers)...),
		kgo.WithLogger(logAdapter{s.log}),
		kgo.ClientID(s.clientID()),
		kgo.ConsumePartitions(start),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		// Used only when a partition's offset went out of range while
		// reading (retention deleted it): continue at the earliest.
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(500*time.Millisecond),
		// Bounded fetches: franz-go's default of 50 MiB per fetch is what
		// the client may hold of fetched, unread messages per broker.
		kgo.FetchMaxBytes(int32(s.fetchBytes)),
		kgo.FetchMaxPartitionBytes(int32(s.fetchPartitionBytes)),
	)...)
	if err != nil {
		return fmt.Errorf("kafka: %w", err)
	}
	s.lastSeen = time.Now()
	return nil
}

// CheckReplay reports that the source feeds delivery: exactly_once. From
// a bookmark it emits exactly the messages after each partition's offset,
// in partition order; how partitions interleave, and so where pages are
// cut, may differ between runs, which the engine does not rely on: every
// page carries a bookmark, so its commit token does too, and a resumed
// run starts from that bookmark instead of skipping pages by count. The
// one exception, offsets retention deleted before a run, is logged.
func (s *Source) CheckReplay() error { return nil }

func (s *Source) clientID() string {
	if s.cfg.GroupID != "" {
		return "faucet-" + s.cfg.GroupID
	}
	return "faucet"
}

// Next returns the next page: up to batch_size messages and batch_bytes
// of keys, values and header values, handed on a second after its first
// message at the latest. Every page carries the bookmark of all
// partitions.
func (s *Source) Next(ctx context.Context) (*connector.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.cl == nil {
		return nil, errors.New("kafka: source is not open")
	}
	if s.exhausted() {
		return s.eof()
	}
	want := s.pageSize()
	mem := getPageMem()
	s.carry = mem.add(s.carry, want, s.maxBytes())
	var pageDue time.Time
	if len(mem.msgs) > 0 {
		pageDue = time.Now().Add(pageWait)
	}
	for len(mem.msgs) < want && len(s.carry) == 0 {
		wait, ok := s.wait(len(mem.msgs) > 0, pageDue)
		if !ok {
			break
		}
		got, err := s.poll(ctx, wait, want-len(mem.msgs))
		if err != nil {
			mem.put()
			return nil, err
		}
		if len(got) > 0 {
			if len(mem.msgs) == 0 {
				pageDue = time.Now().Add(pageWait)
			}
			s.carry = mem.add(got, want, s.maxBytes())
			s.lastSeen = time.Now()
		}
	}
	if len(mem.msgs) == 0 {
		mem.put()
		return s.eof()
	}
	return s.page(mem), nil
}

// maxBytes is the byte limit of a page (0: none).
func (s *Source) maxBytes() int {
	if s.cfg.BatchSize == 0 {
		return 0
	}
	return s.cfg.BatchBytes
}

// wait is how long the next poll may block; ok is false when the page
// is due (or, with nothing read, the idle timeout passed).
func (s *Source) wait(filling bool, pageDue time.Time) (time.Duration, bool) {
	if filling {
		left := time.Until(pageDue)
		return max(left, minWait), left > 0
	}
	if s.cfg.IdleTimeout == 0 {
		return pageWait, true
	}
	left := secs(s.cfg.IdleTimeout) - time.Since(s.lastSeen)
	return max(min(left, pageWait), minWait), left > 0
}

// poll returns up to n buffered or fetched messages, waiting at most wait.
func (s *Source) poll(ctx context.Context, wait time.Duration, n int) ([]*kgo.Record, error) {
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	fetches := s.cl.PollRecords(pctx, n)
	if err := ctx.Err(); err != nil {
		return nil, err // cancelled: what was fetched is read again next run
	}
	var ferr error
	fetches.EachError(func(topic string, partition int32, err error) {
		if ferr != nil || errors.Is(err, context.DeadlineExceeded) {
			return
		}
		if topic == "" {
			ferr = fmt.Errorf("kafka: fetch: %w", err)
			return
		}
		ferr = fmt.Errorf("kafka: fetch topic %q partition %d: %w", topic, partition, err)
	})
	if ferr != nil {
		return nil, ferr
	}
	return fetches.Records(), nil
}

// page wraps the messages in mem; their values are decoded on a worker.
// The bookmark is every partition's next offset after this page.
func (s *Source) page(mem *pageMem) *connector.Page {
	for i := range mem.msgs {
		m := &mem.msgs[i]
		s.next[tp{m.topic, m.partition}] = m.offset + 1
	}
	first := s.taken
	s.taken += int64(len(mem.msgs))
	bm := s.next.bookmark()
	dec := s.dec
	return &connector.Page{
		Bookmark: &bm,
		Decode: func(p *connector.Page) error {
			dec.decode(p, mem)
			return nil
		},
		// The page is encoded and the engine calls neither Decode nor
		// Locate again: its memory is reused at once, and the Release
		// that follows finds none (put of nil does nothing).
		Trim: func() {
			mem.put()
			mem = nil
		},
		// The engine is done with the page: its memory is reused.
		Release: func() { mem.put() },
		Locate: func(i int) (string, int64) {
			return mem.locate(i, first)
		},
	}
}

// pageSize is how many messages the next page may take.
func (s *Source) pageSize() int {
	n := int64(s.cfg.BatchSize)
	if n == 0 {
		n = s.cfg.MaxMessages
	}
	if s.cfg.MaxMessages > 0 {
		n = min(n, s.cfg.MaxMessages-s.taken)
	}
	return int(n)
}

func (s *Source) exhausted() bool { return s.cfg.MaxMessages > 0 && s.taken >= s.cfg.MaxMessages }

// eof ends the stream, logging why.
func (s *Source) eof() (*connector.Page, error) {
	why := "idle_timeout"
	if s.exhausted() {
		why = "max_messages"
	}
	if n := s.skipped.Load(); n > 0 {
		s.log.Warn("kafka: skipped values that are not JSON (on_decode_error: skip)", "count", n)
	}
	s.log.Info("kafka: source done", "messages", s.taken, "reason", why)
	return nil, io.EOF
}

// Close stops fetching and disconnects.
func (s *Source) Close() error {
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	return nil
}

// mustBrokers is parseBrokers for a config Validate already accepted.
func mustBrokers(s string) []string {
	b, _ := parseBrokers(s)
	return b
}
