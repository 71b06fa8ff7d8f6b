package nats

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/connector"
	natsgo "github.com/nats-io/nats.go"
)

// CoreSource reads a core NATS subscription. Core NATS keeps nothing for
// absent or slow subscribers, so the source is at-most-once: it sees only
// what is published while it runs, and its pages carry no bookmark.
type CoreSource struct {
	base
	sub     *natsgo.Subscription
	dropped int // messages the client dropped so far (slow consumer)
	// carry is a message received after batch_bytes was reached: the
	// first of the next page.
	carry *natsgo.Msg
}

var _ connector.Source = (*CoreSource)(nil)

// Open connects and subscribes; the subscription is registered with the
// server before Open returns, so nothing published afterwards is missed.
func (s *CoreSource) Open(ctx context.Context, opts connector.SourceOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.open(opts); err != nil {
		return err
	}
	var err error
	if s.cfg.QueueGroup != "" {
		s.sub, err = s.nc.QueueSubscribeSync(s.cfg.Subject, s.cfg.QueueGroup)
	} else {
		s.sub, err = s.nc.SubscribeSync(s.cfg.Subject)
	}
	if err == nil {
		err = s.nc.FlushTimeout(connectTimeout)
	}
	if err != nil {
		s.close()
		return fmt.Errorf("nats: subscribe to %q on %s: %w", s.cfg.Subject, s.conn.where(), err)
	}
	return nil
}

// Next returns the messages received until the page is full (batch_size
// messages, or batch_bytes: a message that would take the page past it
// starts the next page), pageWait after its first message, or the end
// (max_messages, idle_timeout_secs).
func (s *CoreSource) Next(ctx context.Context) (*connector.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.sub == nil {
		return nil, errors.New("nats: source is not open")
	}
	if s.exhausted() {
		return s.eof()
	}
	n, limit := s.pageSize(), s.maxBytes()
	var msgs []message
	var linger time.Time
	size := 0
	take := func(m *natsgo.Msg) {
		msgs, size = append(msgs, message{data: m.Data, subject: m.Subject, header: m.Header}), size+m.Size()
		if len(msgs) == 1 {
			linger = time.Now().Add(pageWait)
		}
	}
	if s.carry != nil {
		take(s.carry)
		s.carry = nil
	}
fill:
	for len(msgs) < n {
		if err := s.waitConnected(ctx); err != nil {
			return nil, err
		}
		wait := s.wait()
		if len(msgs) > 0 {
			if wait = time.Until(linger); wait <= 0 {
				break
			}
		} else if left, ok := s.idleLeft(); ok && left <= 0 {
			return s.eof()
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		m, err := s.sub.NextMsgWithContext(wctx)
		cancel()
		switch {
		case err == nil:
			s.touch()
			if limit > 0 && len(msgs) > 0 && size+m.Size() > limit {
				s.carry = m
				break fill
			}
			take(m)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
		case errors.Is(err, natsgo.ErrSlowConsumer):
			s.reportDropped()
		case errors.Is(err, natsgo.ErrConnectionClosed):
			return nil, closedError(s.conn, s.nc)
		default:
			return nil, fmt.Errorf("nats: read subject %q: %w", s.cfg.Subject, err)
		}
	}
	s.reportDropped()
	return s.page(msgs, func(m *message) string { return "subject " + m.subject }), nil
}

// reportDropped warns about messages the client had to drop because the
// pipeline read slower than they arrived (core NATS does not wait).
func (s *CoreSource) reportDropped() {
	n, err := s.sub.Dropped()
	if err != nil || n <= s.dropped {
		return
	}
	s.log.Warn("nats: messages dropped: the pipeline reads slower than they are published (core NATS does not wait; use JetStream to keep them)",
		"subject", s.cfg.Subject, "dropped", n-s.dropped, "dropped_total", n)
	s.dropped = n
}

// Close unsubscribes and disconnects.
func (s *CoreSource) Close() error {
	if s.sub != nil {
		_ = s.sub.Unsubscribe()
		s.sub = nil
	}
	return s.close()
}
