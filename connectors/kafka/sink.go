package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/recycle"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Sink produces each record as one message and makes them durable on
// Flush (every message acknowledged with the configured acks):
// at-least-once. Under delivery: exactly_once the engine writes
// bookmarked pages with WriteIdempotent instead (eo.go, doc.go).
type Sink struct {
	cfg SinkConfig
	log *slog.Logger
	cl  *kgo.Client
	// batchMax is cl's batch limit: batch_max_bytes, or max_message_bytes
	// once a larger message came (widen).
	batchMax int

	topicPath, keyPath, partitionPath, headersPath []string
	lastTopic                                      string // topicName's copy

	mu     sync.Mutex
	failed error // the first message the brokers did not take

	// tx is the transactional producer of delivery: exactly_once, made
	// on first use for txScope (eo.go).
	tx      *kgo.Client
	txScope string
}

var _ connector.Sink = (*Sink)(nil)

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	// The paths were checked by Validate.
	s.topicPath, _ = optPath(s.cfg.Topic.Path)
	s.keyPath, _ = optPath(s.cfg.KeyPath)
	s.partitionPath, _ = optPath(s.cfg.PartitionPath)
	s.headersPath, _ = optPath(s.cfg.HeadersPath)
	return s, nil
}

func optPath(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	return parsePath("", p)
}

// Open connects and, for a fixed topic, checks that it exists.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	octx, cancel := context.WithTimeout(ctx, secs(s.cfg.OpenTimeout))
	defer cancel()
	cl, err := newClient(octx, s.cfg.Brokers, s.log, s.producerOpts(s.cfg.BatchMaxBytes)...)
	if err != nil {
		return err
	}
	s.cl, s.batchMax = cl, s.cfg.BatchMaxBytes
	if s.cfg.Topic.Type == "fixed" {
		if _, err := partitions(octx, cl, []string{s.cfg.Topic.Name}); err != nil {
			s.Close()
			return err
		}
	}
	return nil
}

// producerOpts are the producer's options with batches of up to batchMax
// bytes (the buffer holds at least one such message).
func (s *Sink) producerOpts(batchMax int) []kgo.Opt {
	opts := append(metricsOpt(s.cfg.ClientMetrics),
		kgo.ClientID("faucet"),
		kgo.ProducerLinger(secs(s.cfg.Linger)),
		kgo.RecordDeliveryTimeout(secs(s.cfg.MessageTimeout)),
		kgo.ProducerBatchCompression(codec(s.cfg.Compression)),
		// Bounded buffering: franz-go's defaults (50,000 records, no byte
		// limit) let a fast source park tens of MiB in the producer.
		kgo.MaxBufferedBytes(max(s.cfg.MaxBufferedBytes, batchMax)),
		kgo.MaxBufferedRecords(s.cfg.MaxBufferedRecords),
		kgo.ProducerBatchMaxBytes(int32(batchMax)),
	)
	switch s.cfg.Acks {
	case "none":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case "leader":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !s.cfg.Idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	if s.partitionPath != nil {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	return opts
}

func codec(name string) kgo.CompressionCodec {
	switch name {
	case "gzip":
		return kgo.GzipCompression()
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		return kgo.Lz4Compression()
	case "zstd":
		return kgo.ZstdCompression()
	}
	return kgo.NoCompression()
}

// Write hands the page's records to the producer, in order. Every record
// is turned into a message first, so a bad record fails the page before
// any of it is sent. Delivery is confirmed by Flush; a delivery failure
// of an earlier page fails this Write.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if s.cl == nil {
		return errors.New("kafka: sink is not open")
	}
	if err := s.err(); err != nil {
		return err
	}
	// Every record becomes a message before the first is produced.
	parts := make([]*sentPart, 0, (len(p.Records)+partSize-1)/partSize)
	largest := 0
	for lo := 0; lo < len(p.Records); lo += partSize {
		sent, size, err := s.messages(p, lo, min(lo+partSize, len(p.Records)))
		if err != nil {
			releaseAll(parts)
			return err
		}
		parts = append(parts, sent)
		largest = max(largest, size)
	}
	if largest > s.batchMax && s.batchMax < s.cfg.MaxMessageBytes {
		if err := s.widen(ctx, largest); err != nil {
			releaseAll(parts)
			return err
		}
	}
	for _, sent := range parts {
		sent.pending.Store(int64(len(sent.msgs)))
		for _, m := range sent.msgs {
			s.cl.Produce(ctx, m, sent.promise)
		}
	}
	return ctx.Err()
}

// partSize is how many messages of a page share one sentPart: the memory
// of a part is reused once its last message is settled, so what the sink
// holds follows what the producer holds (max_buffered_bytes) rather than
// whole pages waiting for their slowest partition.
const partSize = 256

// sentPart is the messages of a part of one page (up to partSize
// records; a whole page under exactly_once): their records and values
// live in one slab and one buffer, reused (sentPool) once the producer
// has settled every message of the part, and its done is every message's
// promise, so a page costs no allocation per message once warm.
type sentPart struct {
	s       *Sink
	seq     uint64
	first   int // the page's index of msgs[0]
	slab    []kgo.Record
	msgs    []*kgo.Record
	ends    []int
	buf     []byte
	pending atomic.Int64             // messages not yet acknowledged or failed
	promise func(*kgo.Record, error) // done, bound once
}

// sentPool keeps released parts for the next Write (the producer's
// goroutines release them, the engine's writer takes them). The producer
// holds max_buffered_bytes (1 MiB: some 4,000 messages of 250 bytes) or
// max_buffered_records; a part waits for its last acknowledgement. The
// bound only caps what stays pooled after a burst.
var sentPool = recycle.List[*sentPart]{Max: 64}

func (sp *sentPart) done(m *kgo.Record, err error) {
	if err != nil {
		i := slices.Index(sp.msgs, m) // failures only: no per-message index kept
		sp.s.fail(fmt.Errorf("kafka: record %d of page %d to topic %q: %w", sp.first+i+1, sp.seq, m.Topic, err))
	}
	if sp.pending.Add(-1) == 0 {
		// The producer is done with every message: reuse the memory.
		sp.release()
	}
}

// release clears the part and pools it.
func (sp *sentPart) release() {
	clear(sp.slab)
	sp.s = nil
	sentPool.Put(sp)
}

// messages builds the messages of the page's records lo..hi-1 into a
// sentPart and returns the messageSize of the largest.
func (s *Sink) messages(p *connector.Page, lo, hi int) (sp *sentPart, largest int, err error) {
	sp, ok := sentPool.Get()
	if !ok {
		sp = &sentPart{}
		sp.promise = sp.done
	}
	recs := p.Records[lo:hi]
	n := len(recs)
	if cap(sp.slab) < n {
		// A full part's size at least: a part that last held the short
		// end of a page is reused for a full one next.
		c := max(n, partSize)
		sp.slab, sp.msgs, sp.ends = make([]kgo.Record, c), make([]*kgo.Record, c), make([]int, c)
	}
	sp.slab, sp.msgs, sp.ends = sp.slab[:n], sp.msgs[:n], sp.ends[:n]
	sp.s, sp.seq, sp.first = s, p.Seq, lo
	buf := sp.buf[:0]
	for i := range recs {
		buf = connector.AppendRecordJSON(buf, recs[i])
		sp.ends[i] = len(buf)
	}
	sp.buf = buf
	start := 0
	for i := range recs {
		m := &sp.slab[i]
		m.Topic, m.Value = s.cfg.Topic.Name, buf[start:sp.ends[i]:sp.ends[i]]
		start = sp.ends[i]
		if err := s.route(&recs[i], m); err != nil {
			sp.release()
			return nil, 0, fmt.Errorf("kafka: record %d of page %d: %w", lo+i+1, p.Seq, err)
		}
		sp.msgs[i] = m
		largest = max(largest, messageSize(m))
	}
	return sp, largest, nil
}

// releaseAll gives back parts that were built but not produced.
func releaseAll(parts []*sentPart) {
	for _, sp := range parts {
		sp.release()
	}
}

// messageSize bounds what m takes in a batch: its key, value and
// headers, the record's framing (at most six varints and the attributes)
// and a batch header (61 bytes), as a message alone in its batch has.
func messageSize(m *kgo.Record) int {
	n := len(m.Key) + len(m.Value) + 61 + 6*5 + 1
	for _, h := range m.Headers {
		n += len(h.Key) + len(h.Value) + 2*5
	}
	return n
}

// widen moves the sink to batches of max_message_bytes for the rest of
// the run, for a message of size bytes that does not fit batch_max_bytes
// (the producer would refuse it). The messages produced so far are
// acknowledged first and the new producer starts after them, so the
// order within each partition is kept; a delivery failure among them
// fails the write. It happens at most once per run.
func (s *Sink) widen(ctx context.Context, size int) error {
	s.log.Info("kafka: a message is larger than batch_max_bytes; sending batches of up to max_message_bytes from now on",
		"message_bytes", size, "batch_max_bytes", s.cfg.BatchMaxBytes, "max_message_bytes", s.cfg.MaxMessageBytes)
	if err := s.Flush(ctx); err != nil {
		return err
	}
	octx, cancel := context.WithTimeout(ctx, secs(s.cfg.OpenTimeout))
	defer cancel()
	cl, err := newClient(octx, s.cfg.Brokers, s.log, s.producerOpts(s.cfg.MaxMessageBytes)...)
	if err != nil {
		return err
	}
	s.cl.Close()
	s.cl, s.batchMax = cl, s.cfg.MaxMessageBytes
	return nil
}

func (s *Sink) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == nil {
		s.failed = err
	}
}

func (s *Sink) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Flush waits until every message produced so far is acknowledged (or
// failed: the first failure is returned, and stays: the run fails and a
// rerun sends again from the last saved bookmark).
func (s *Sink) Flush(ctx context.Context) error {
	if s.cl == nil {
		return errors.New("kafka: sink is not open")
	}
	if err := s.cl.Flush(ctx); err != nil {
		return fmt.Errorf("kafka: flush: %w", err)
	}
	return s.err()
}

// Close disconnects; messages not flushed are failed.
func (s *Sink) Close() error {
	if s.tx != nil {
		s.tx.Close()
		s.tx = nil
	}
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	return nil
}

// topicName is a copy of t, which points into a page the engine reuses
// after the write, while the producer keeps the topic until the message
// is acknowledged. The last name is kept, so a run of messages to one
// topic copies it once.
func (s *Sink) topicName(t string) string {
	if t != s.lastTopic {
		s.lastTopic = strings.Clone(t)
	}
	return s.lastTopic
}

// route sets what the *_path options take from a record: the message's
// topic, key, partition and headers.
func (s *Sink) route(r *connector.Record, m *kgo.Record) error {
	if s.topicPath != nil {
		v, ok := r.Lookup(s.topicPath)
		if !ok || v.Kind() != connector.KindString {
			return fmt.Errorf("topic path %s: want a string, got %s", s.cfg.Topic.Path, kindOf(v, ok))
		}
		if err := checkTopic(s.cfg.Topic.Path, v.AsString()); err != nil {
			return err
		}
		m.Topic = s.topicName(v.AsString())
	}
	if s.keyPath != nil {
		if v, ok := r.Lookup(s.keyPath); ok && !v.IsNull() {
			m.Key = []byte(v.Text())
		}
	}
	if s.partitionPath != nil {
		v, ok := r.Lookup(s.partitionPath)
		if !ok || v.Kind() != connector.KindInt || v.AsInt() < 0 || v.AsInt() > 1<<31-1 {
			return fmt.Errorf("partition_path %s: want a partition number, got %s", s.cfg.PartitionPath, kindOf(v, ok))
		}
		m.Partition = int32(v.AsInt())
	}
	if s.headersPath != nil {
		return s.headers(r, m)
	}
	return nil
}

func (s *Sink) headers(r *connector.Record, m *kgo.Record) error {
	v, ok := r.Lookup(s.headersPath)
	if !ok || v.IsNull() {
		return nil
	}
	if v.Kind() != connector.KindObject {
		return fmt.Errorf("headers_path %s: want an object, got %s", s.cfg.HeadersPath, v.Kind())
	}
	for _, f := range v.AsObject().Fields {
		vals := []connector.Value{f.Value}
		switch f.Value.Kind() {
		case connector.KindArray:
			vals = f.Value.AsArray()
		case connector.KindObject:
			return fmt.Errorf("headers_path %s: header %q is an object, want a string or a list of strings", s.cfg.HeadersPath, f.Key)
		}
		for _, e := range vals {
			if k := e.Kind(); k == connector.KindObject || k == connector.KindArray {
				return fmt.Errorf("headers_path %s: header %q has a value of type %s, want strings", s.cfg.HeadersPath, f.Key, k)
			}
			// Copies: the page's strings are reused after the write.
			m.Headers = append(m.Headers, kgo.RecordHeader{Key: strings.Clone(f.Key), Value: []byte(e.Text())})
		}
	}
	return nil
}

// kindOf describes a looked-up value for an error message.
func kindOf(v connector.Value, ok bool) string {
	if !ok {
		return "nothing (missing)"
	}
	if v.Kind() == connector.KindInt || v.Kind() == connector.KindString {
		return fmt.Sprintf("%s %s", v.Kind(), v)
	}
	return v.Kind().String()
}
