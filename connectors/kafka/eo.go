package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/faucet-hq/faucet/connector"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The sink is effectively-once (connector.IdempotentSink): each
// bookmarked page is produced together with its commit token, a message
// keyed by the scope in the compacted commit token topic, in one Kafka
// transaction. doc.go has the protocol.
var _ connector.IdempotentSink = (*Sink)(nil)

// txClient returns the transactional producer of scope, creating it (and
// the commit token topic) on first use. Loading its producer id fences
// every earlier producer of the same transactional id (a run that died or
// hangs) and aborts the transaction it left open, so what that run did
// not commit is never visible to read_committed consumers.
func (s *Sink) txClient(ctx context.Context, scope string) (*kgo.Client, error) {
	if s.tx != nil {
		if scope != s.txScope {
			return nil, fmt.Errorf("kafka: the sink already commits for scope %q, not %q", s.txScope, scope)
		}
		return s.tx, nil
	}
	if s.cl == nil {
		return nil, errors.New("kafka: sink is not open")
	}
	if !s.cfg.Idempotent || s.cfg.Acks != "all" {
		return nil, errors.New("kafka: delivery exactly_once needs the sink's acks: all and idempotent: true")
	}
	if err := s.ensureTokenTopic(ctx); err != nil {
		return nil, err
	}
	// One producer for the whole transaction: batches of any message size.
	opts := append(s.producerOpts(s.cfg.MaxMessageBytes), kgo.TransactionalID(s.cfg.TransactionalIDPrefix+"."+scope))
	if s.partitionPath != nil {
		opts = append(opts, kgo.RecordPartitioner(tokenByKey{token: s.cfg.CommitTokenTopic}))
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(mustBrokers(s.cfg.Brokers)...), kgo.WithLogger(logAdapter{s.log})}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	if _, _, err := cl.ProducerID(ctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("kafka: start transactional producer %q: %w", s.cfg.TransactionalIDPrefix+"."+scope, err)
	}
	s.tx, s.txScope = cl, scope
	return cl, nil
}

// tokenByKey partitions token messages by key (so a scope's tokens stay in
// one partition and compact) and data messages by their partition_path.
type tokenByKey struct{ token string }

func (p tokenByKey) ForTopic(t string) kgo.TopicPartitioner {
	if t == p.token {
		return kgo.StickyKeyPartitioner(nil).ForTopic(t)
	}
	return kgo.ManualPartitioner().ForTopic(t)
}

// ensureTokenTopic creates the compacted commit token topic when it does
// not exist.
func (s *Sink) ensureTokenTopic(ctx context.Context) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = s.cfg.CommitTokenTopic
	rt.NumPartitions = int32(s.cfg.CommitTokenTopicPartitions)
	rt.ReplicationFactor = int16(s.cfg.CommitTokenTopicReplication)
	c := kmsg.NewCreateTopicsRequestTopicConfig()
	c.Name, c.Value = "cleanup.policy", kmsg.StringPtr("compact")
	rt.Configs = append(rt.Configs, c)
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = int32(secs(s.cfg.OpenTimeout).Milliseconds())
	resp, err := req.RequestWith(ctx, s.cl)
	if err != nil {
		return fmt.Errorf("kafka: create commit token topic %q: %w", s.cfg.CommitTokenTopic, err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("kafka: create commit token topic %q: %w", s.cfg.CommitTokenTopic, err)
		}
	}
	return nil
}

// LastCommittedToken returns the newest committed token of scope: the
// last message keyed scope in the commit token topic, read committed up
// to the topic's last stable offset.
func (s *Sink) LastCommittedToken(ctx context.Context, scope string) (string, bool, error) {
	if _, err := s.txClient(ctx, scope); err != nil {
		return "", false, err
	}
	topic := s.cfg.CommitTokenTopic
	parts, err := partitions(ctx, s.cl, []string{topic})
	if err != nil {
		return "", false, err
	}
	lo, err := listOffsets(ctx, s.cl, parts, -2)
	if err != nil {
		return "", false, err
	}
	hi, err := listOffsets(ctx, s.cl, parts, -1)
	if err != nil {
		return "", false, err
	}
	start := map[string]map[int32]kgo.Offset{topic: {}}
	left := map[int32]int64{} // partition -> last offset still to reach
	for t, end := range hi {
		if end > lo[t] {
			start[topic][t.partition] = kgo.NewOffset().At(lo[t])
			left[t.partition] = end - 1
		}
	}
	if len(left) == 0 {
		return "", false, nil
	}
	// Control records are kept so the reader sees offsets up to the last
	// stable offset even when the last message is a transaction marker.
	cl, err := kgo.NewClient(append(metricsOpt(s.cfg.ClientMetrics), kgo.SeedBrokers(mustBrokers(s.cfg.Brokers)...), kgo.WithLogger(logAdapter{s.log}),
		kgo.ConsumePartitions(start), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())...)
	if err != nil {
		return "", false, fmt.Errorf("kafka: %w", err)
	}
	defer cl.Close()
	best := ""
	for len(left) > 0 {
		pctx, cancel := context.WithTimeout(ctx, secs(s.cfg.OpenTimeout))
		fs := cl.PollFetches(pctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return "", false, err
		}
		if err := fs.Err(); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("no message for open_timeout (%gs) before its last stable offset", s.cfg.OpenTimeout)
			}
			return "", false, fmt.Errorf("kafka: read commit token topic %q: %w", topic, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if last, ok := left[r.Partition]; ok && r.Offset >= last {
				delete(left, r.Partition)
			}
			if r.Offset > hi[tp{topic, r.Partition}]-1 || r.Attrs.IsControl() || string(r.Key) != scope {
				return
			}
			// Tokens start with a zero-padded sequence number, so the
			// greatest is the newest (one partition holds a scope unless
			// the topic was repartitioned).
			if tok := string(r.Value); tok > best {
				best = tok
			}
		})
	}
	return best, best != "", nil
}

// WriteIdempotent produces the page's records and the token of scope in
// one transaction and commits it: read_committed consumers see all of it
// or none of it.
func (s *Sink) WriteIdempotent(ctx context.Context, p *connector.Page, scope, token string) error {
	cl, err := s.txClient(ctx, scope)
	if err != nil {
		return err
	}
	sent, _, err := s.messages(p, 0, len(p.Records))
	if err != nil {
		return err
	}
	// Not given back to sentPool: the transaction's own promise is used.
	msgs := append(sent.msgs[:len(sent.msgs):len(sent.msgs)], &kgo.Record{Topic: s.cfg.CommitTokenTopic, Key: []byte(scope), Value: []byte(token)})
	if err := cl.BeginTransaction(); err != nil {
		return fmt.Errorf("kafka: begin transaction: %w", err)
	}
	var (
		mu     sync.Mutex
		failed error
	)
	for i, m := range msgs {
		cl.Produce(ctx, m, func(m *kgo.Record, err error) {
			if err == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if failed == nil {
				what := fmt.Sprintf("record %d of page %d to topic %q", i+1, p.Seq, m.Topic)
				if i == len(msgs)-1 {
					what = fmt.Sprintf("commit token to topic %q", m.Topic)
				}
				failed = fmt.Errorf("kafka: %s: %w", what, err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return s.abort(cl, fmt.Errorf("kafka: flush transaction: %w", err))
	}
	mu.Lock()
	err = failed
	mu.Unlock()
	if err != nil {
		return s.abort(cl, err)
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return s.abort(cl, fmt.Errorf("kafka: commit transaction: %w", err))
	}
	return nil
}

// abort ends the open transaction without committing it and returns
// cause. Should the abort itself fail, the transaction is aborted by the
// broker's transaction timeout or by the next run's producer, which
// fences this one.
func (s *Sink) abort(cl *kgo.Client, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), secs(s.cfg.MessageTimeout))
	defer cancel()
	if err := cl.AbortBufferedRecords(ctx); err != nil {
		return fmt.Errorf("%w (and aborting the transaction: %w)", cause, err)
	}
	if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		return fmt.Errorf("%w (and aborting the transaction: %w)", cause, err)
	}
	return cause
}
