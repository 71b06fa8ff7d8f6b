package nats

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/faucet-hq/faucet/connector"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ackTimeout bounds the synchronous acknowledgement that closes a commit.
const ackTimeout = 5 * time.Second

// JetStreamSource pulls from a durable JetStream consumer, one fetch per
// page, and acknowledges a page's messages only when the engine reports it
// committed (connector.Committer). See doc.go for the protocol.
type JetStreamSource struct {
	base
	cons          jetstream.Consumer
	maxAckPending int // 0: unlimited
	in            *inflight
}

var (
	_ connector.Source    = (*JetStreamSource)(nil)
	_ connector.Committer = (*JetStreamSource)(nil)
)

// Open connects, finds the stream and binds the durable consumer,
// creating it from the config when it does not exist yet.
func (s *JetStreamSource) Open(ctx context.Context, opts connector.SourceOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.open(opts); err != nil {
		return err
	}
	s.in = newInflight()
	if err := s.bind(ctx); err != nil {
		s.close()
		return err
	}
	return nil
}

func (s *JetStreamSource) what() string {
	return fmt.Sprintf("consumer %q of stream %q", s.cfg.JetStreamConsumer, s.cfg.JetStreamStream)
}

func (s *JetStreamSource) bind(ctx context.Context) error {
	js, err := jetstream.New(s.nc)
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	stream, err := js.Stream(ctx, s.cfg.JetStreamStream)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return fmt.Errorf("nats: JetStream stream %q does not exist on %s (create it, or fix jetstream_stream)", s.cfg.JetStreamStream, s.conn.where())
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		return fmt.Errorf("nats: JetStream is not enabled on %s (jetstream_stream needs it)", s.conn.where())
	case err != nil:
		return fmt.Errorf("nats: look up JetStream stream %q on %s: %w", s.cfg.JetStreamStream, s.conn.where(), err)
	}
	cons, err := stream.Consumer(ctx, s.cfg.JetStreamConsumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		cons, err = s.create(ctx, stream)
	}
	if errors.Is(err, jetstream.ErrNotPullConsumer) || (err == nil && cons.CachedInfo().Config.DeliverSubject != "") {
		return fmt.Errorf("nats: %s is a push consumer; faucet pulls (use a pull consumer, or a new jetstream_consumer name and faucet creates one)", s.what())
	}
	if err != nil {
		return fmt.Errorf("nats: %s: %w", s.what(), err)
	}
	info := cons.CachedInfo()
	switch {
	case info.Config.AckPolicy != jetstream.AckExplicitPolicy:
		return fmt.Errorf("nats: %s has ack policy %s; faucet acknowledges each message after the sink committed it and needs ack policy explicit", s.what(), info.Config.AckPolicy)
	}
	if s.cfg.Subject != "" && info.Config.FilterSubject != s.cfg.Subject {
		s.log.Warn("nats: the existing consumer's filter subject governs, not subject (as in faucet-cli 1.x)",
			"consumer", s.cfg.JetStreamConsumer, "filter_subject", info.Config.FilterSubject, "subject", s.cfg.Subject)
	}
	if info.Config.MaxAckPending > 0 {
		s.maxAckPending = info.Config.MaxAckPending
	}
	s.cons = cons
	return nil
}

// create makes the durable consumer from the config.
func (s *JetStreamSource) create(ctx context.Context, stream jetstream.Stream) (jetstream.Consumer, error) {
	cc := jetstream.ConsumerConfig{
		Durable:       s.cfg.JetStreamConsumer,
		Description:   "faucet: acknowledged after the sink committed",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       secs(s.cfg.AckWaitSecs),
		MaxAckPending: s.cfg.MaxAckPending,
		FilterSubject: s.cfg.Subject,
	}
	if cc.MaxAckPending == 0 {
		page := max(s.cfg.BatchSize, int(min(s.cfg.MaxMessages, connector.MaxPageSize)))
		cc.MaxAckPending = min(max(64*page, 1000), max(page, connector.MaxPageSize))
	}
	switch s.cfg.DeliverPolicy {
	case "last":
		cc.DeliverPolicy = jetstream.DeliverLastPolicy
	case "new":
		cc.DeliverPolicy = jetstream.DeliverNewPolicy
	case "last_per_subject":
		cc.DeliverPolicy = jetstream.DeliverLastPerSubjectPolicy
	case "by_start_sequence":
		cc.DeliverPolicy, cc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, s.cfg.StartSequence
	case "by_start_time":
		t, _ := time.Parse(time.RFC3339Nano, s.cfg.StartTime) // checked by Validate
		cc.DeliverPolicy, cc.OptStartTime = jetstream.DeliverByStartTimePolicy, &t
	}
	cons, err := stream.CreateConsumer(ctx, cc)
	if errors.Is(err, jetstream.ErrConsumerExists) {
		return stream.Consumer(ctx, s.cfg.JetStreamConsumer) // created meanwhile by another run
	}
	if err == nil {
		s.log.Info("nats: created durable consumer", "stream", s.cfg.JetStreamStream, "consumer", s.cfg.JetStreamConsumer,
			"deliver_policy", s.cfg.DeliverPolicy, "filter_subject", s.cfg.Subject)
	}
	return cons, err
}

// Next fetches up to a page of messages. When max_ack_pending leaves no
// room, or nothing new arrives while pages wait for their commit, it
// returns an empty page so the engine gets to commit (see doc.go).
func (s *JetStreamSource) Next(ctx context.Context) (*connector.Page, error) {
	if s.cons == nil {
		return nil, errors.New("nats: source is not open")
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.exhausted() {
			return s.eof()
		}
		if err := s.waitConnected(ctx); err != nil {
			return nil, err
		}
		if left, ok := s.idleLeft(); ok && left <= 0 {
			return s.eof()
		}
		n := s.pageSize()
		if s.maxAckPending > 0 {
			n = min(n, s.maxAckPending-s.in.outstanding())
		}
		if n <= 0 {
			// Every message the consumer may hand out waits for a commit.
			if err := s.awaitCommit(ctx); err != nil {
				return nil, err
			}
			if s.maxAckPending-s.in.outstanding() <= 0 {
				return s.emptyPage(), nil
			}
			continue
		}
		msgs, err := s.fetch(ctx, n)
		if err != nil {
			return nil, err
		}
		if len(msgs) > 0 {
			seqs := make([]uint64, len(msgs))
			for i := range msgs {
				seqs[i] = msgs[i].seq
			}
			s.in.returned(seqs)
			return s.page(msgs, func(m *message) string {
				return "stream " + s.cfg.JetStreamStream + " sequence " + strconv.FormatUint(m.seq, 10)
			}), nil
		}
		if s.in.outstanding() > 0 {
			return s.emptyPage(), nil
		}
	}
}

func (s *JetStreamSource) emptyPage() *connector.Page {
	s.in.returned(nil)
	return &connector.Page{}
}

// awaitCommit waits up to pageWait for a commit.
func (s *JetStreamSource) awaitCommit(ctx context.Context) error {
	t := time.NewTimer(pageWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.in.committed:
	case <-t.C:
	}
	return nil
}

// fetch pulls up to n messages and batch_bytes, waiting at most
// s.wait(), and keeps the new ones (redeliveries of messages this run
// already holds are dropped). A fetch is not cut short by ctx: the server
// would go on sending to a request nobody reads, and those messages would
// wait out ack_wait_secs; read to its end, they are held and handed back
// by Close.
//
// The server leaves a message that does not fit in the byte budget for a
// later request, and a request whose first message is larger than the
// budget ends with none, immediately. So when a fetch with a byte limit
// brings nothing, one message is asked for without a limit and without
// waiting: it is the page of its own of a message larger than
// batch_bytes (or none, when there is nothing to read). Not while the
// server is failing: the next Next asks again.
func (s *JetStreamSource) fetch(ctx context.Context, n int) ([]message, error) {
	opts := []jetstream.FetchOpt{jetstream.FetchMaxWait(s.wait())}
	limit := s.maxBytes()
	if limit > 0 {
		opts = append(opts, jetstream.FetchMaxBytes(limit))
	}
	batch, err := s.cons.Fetch(n, opts...)
	if err != nil {
		return nil, s.fetchError(ctx, err)
	}
	msgs, received, err := s.take(ctx, batch)
	if err != nil || received > 0 || limit == 0 || !s.troubleSince.IsZero() {
		return msgs, err
	}
	if batch, err = s.cons.FetchNoWait(1); err != nil {
		return nil, s.fetchError(ctx, err)
	}
	msgs, _, err = s.take(ctx, batch)
	return msgs, err
}

// take reads a fetch to its end and returns its new messages and how many
// messages it brought.
func (s *JetStreamSource) take(ctx context.Context, batch jetstream.MessageBatch) (msgs []message, received int, err error) {
	for m := range batch.Messages() {
		received++
		meta, err := m.Metadata()
		if err != nil {
			return nil, received, fmt.Errorf("nats: %s: message on %q without JetStream metadata: %w", s.what(), m.Subject(), err)
		}
		switch s.in.deliver(meta.Sequence.Stream, m.Reply()) {
		case emit:
			msgs = append(msgs, message{data: m.Data(), subject: m.Subject(), header: m.Headers(), seq: meta.Sequence.Stream, time: meta.Timestamp})
		case settled:
			// The server lost our acknowledgement (a restart): the sink
			// has the message, so acknowledge it again.
			_ = s.nc.Publish(m.Reply(), ackBody)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, received, err
	}
	if len(msgs) > 0 {
		s.touch()
		s.troubleSince = time.Time{}
		return msgs, received, nil
	}
	if err := batch.Error(); err != nil {
		return nil, received, s.fetchError(ctx, err)
	}
	s.troubleSince = time.Time{}
	return nil, received, nil
}

// fetchError sorts a failed fetch: cancellation, a server that is away
// for now (retried until reconnect_timeout_secs), or a real error.
func (s *JetStreamSource) fetchError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case transient(err):
		// The connection dropped meanwhile, or JetStream is still
		// starting after a server restart.
		return s.trouble(err)
	case errors.Is(err, natsgo.ErrConnectionClosed):
		return closedError(s.conn, s.nc)
	case errors.Is(err, jetstream.ErrConsumerDeleted), errors.Is(err, jetstream.ErrConsumerNotFound):
		return fmt.Errorf("nats: %s was deleted during the run", s.what())
	}
	return fmt.Errorf("nats: fetch from %s: %w", s.what(), err)
}

var (
	ackBody = []byte("+ACK")
	nakBody = []byte("-NAK")
)

// Committed acknowledges the messages of every page up to seq: all but the
// last are published, the last is a request the server answers once it
// processed the acknowledgements before it. A failure leaves the pages
// unacknowledged (the engine retries, or a later run gets them again).
func (s *JetStreamSource) Committed(ctx context.Context, seq uint64) error {
	if s.nc == nil {
		return errors.New("nats: source is not open")
	}
	replies, pages := s.in.upTo(seq)
	if pages == 0 {
		return nil
	}
	if err := s.waitConnected(ctx); err != nil {
		return err
	}
	for _, r := range replies[:len(replies)-1] {
		if err := s.nc.Publish(r, ackBody); err != nil {
			return s.ackError(len(replies), err)
		}
	}
	actx, cancel := context.WithTimeout(ctx, ackTimeout)
	defer cancel()
	if _, err := s.nc.RequestWithContext(actx, replies[len(replies)-1], ackBody); err != nil {
		return s.ackError(len(replies), err)
	}
	s.in.done(pages)
	s.touch()
	return nil
}

func (s *JetStreamSource) ackError(n int, err error) error {
	err = fmt.Errorf("nats: acknowledge %d messages to %s (they stay pending and are redelivered): %w", n, s.what(), err)
	if errors.Is(err, natsgo.ErrConnectionClosed) {
		return fmt.Errorf("%w (%w)", err, closedError(s.conn, s.nc))
	}
	return connector.Retryable(err)
}

// Close returns every message this run holds but did not get committed
// (pages read ahead, a failed or dry run) to the consumer with a negative
// acknowledgement, so the next run gets them at once instead of after
// ack_wait_secs, then disconnects.
func (s *JetStreamSource) Close() error {
	if s.nc != nil && s.in != nil && s.nc.IsConnected() {
		for _, r := range s.in.unacked() {
			_ = s.nc.Publish(r, nakBody)
		}
		_ = s.nc.FlushTimeout(ackTimeout)
	}
	s.cons = nil
	return s.close()
}
