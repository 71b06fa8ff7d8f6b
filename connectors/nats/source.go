package nats

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/faucet-hq/faucet/connector"
	natsgo "github.com/nats-io/nats.go"
)

// pageWait is the longest a partial page waits for more messages (and
// the longest one JetStream fetch waits) before it is handed on.
const pageWait = time.Second

// minWait is the shortest wait worth asking the server for.
const minWait = 50 * time.Millisecond

func newSource(c connector.Config) (connector.Source, error) {
	var cfg SourceConfig
	if err := c.Decode(&cfg); err != nil {
		return nil, err
	}
	if cfg.jetStream() {
		s := &JetStreamSource{}
		s.init(cfg)
		return s, nil
	}
	s := &CoreSource{}
	s.init(cfg)
	return s, nil
}

// base is what the core and JetStream sources share: the connection,
// the decoder, the message count and the idle clock.
type base struct {
	cfg  SourceConfig
	conn conn
	dec  decoder
	log  *slog.Logger
	nc   *natsgo.Conn

	taken    int64        // messages put in pages so far
	activity atomic.Int64 // unix nanos of the last sign of life (see touch)
	// troubleSince is when the server started failing transiently (zero
	// while it answers).
	troubleSince time.Time
}

func (b *base) init(cfg SourceConfig) {
	b.cfg, b.conn, b.dec = cfg, cfg.conn(), newDecoder(cfg.ValueFormat, cfg.Include)
}

func (b *base) open(opts connector.SourceOptions) error {
	b.log = opts.Logger
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	nc, err := b.conn.connect(b.log)
	if err != nil {
		return err
	}
	b.nc = nc
	b.touch()
	return nil
}

// touch restarts the idle clock: a message arrived, a page was committed,
// or the server was unreachable (an outage is not idleness).
func (b *base) touch() { b.activity.Store(time.Now().UnixNano()) }

// idleLeft is how much of idle_timeout_secs is left; ok is false when
// there is no idle timeout.
func (b *base) idleLeft() (left time.Duration, ok bool) {
	if b.cfg.IdleTimeoutSecs == 0 {
		return 0, false
	}
	since := time.Since(time.Unix(0, b.activity.Load()))
	return secs(b.cfg.IdleTimeoutSecs) - since, true
}

// wait is how long the next read may block: pageWait, or less when the
// idle timeout comes first.
func (b *base) wait() time.Duration {
	w := pageWait
	if left, ok := b.idleLeft(); ok && left < w {
		w = left
	}
	return max(w, minWait)
}

// pageSize is how many messages the next page may take.
func (b *base) pageSize() int {
	n := int64(b.cfg.BatchSize)
	if n == 0 {
		n = b.cfg.MaxMessages
	}
	if b.cfg.MaxMessages > 0 {
		n = min(n, b.cfg.MaxMessages-b.taken)
	}
	return int(n)
}

// maxBytes is the byte limit of a page (0: none).
func (b *base) maxBytes() int {
	if b.cfg.BatchSize == 0 {
		return 0
	}
	return b.cfg.BatchBytes
}

// exhausted reports that max_messages were read.
func (b *base) exhausted() bool { return b.cfg.MaxMessages > 0 && b.taken >= b.cfg.MaxMessages }

// waitConnected blocks while the client is reconnecting (the idle clock
// stands still meanwhile) and fails once the connection was given up.
func (b *base) waitConnected(ctx context.Context) error {
	for b.nc.IsReconnecting() {
		b.touch()
		t := time.NewTimer(minWait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	if b.nc.IsClosed() {
		return closedError(b.conn, b.nc)
	}
	return nil
}

// trouble notes a transient failure; it becomes an error once the server
// has failed for longer than reconnect_timeout_secs.
func (b *base) trouble(err error) error {
	b.touch()
	if b.troubleSince.IsZero() {
		b.troubleSince = time.Now()
		b.log.Warn("nats: server not answering, retrying", "servers", b.conn.where(), "error", err)
		return nil
	}
	if time.Since(b.troubleSince) > b.conn.reconnect {
		return fmt.Errorf("nats: %s has not answered for %s (reconnect_timeout_secs): %w", b.conn.where(), b.conn.reconnect, err)
	}
	return nil
}

// page wraps received messages; their payloads are decoded on a worker.
func (b *base) page(msgs []message, where func(m *message) string) *connector.Page {
	first := b.taken
	b.taken += int64(len(msgs))
	dec := b.dec
	return &connector.Page{
		Decode: func(p *connector.Page) error {
			dec.decode(p, msgs)
			return nil
		},
		Locate: func(i int) (string, int64) {
			if i < 0 || i >= len(msgs) {
				return "", 0
			}
			return where(&msgs[i]), first + int64(i) + 1
		},
	}
}

func (b *base) close() error {
	if b.nc != nil {
		b.nc.Close()
		b.nc = nil
	}
	return nil
}

// eof ends the stream, logging why.
func (b *base) eof() (*connector.Page, error) {
	why := "idle_timeout_secs"
	if b.exhausted() {
		why = "max_messages"
	}
	b.log.Info("nats: source done", "messages", b.taken, "reason", why)
	return nil, io.EOF
}
