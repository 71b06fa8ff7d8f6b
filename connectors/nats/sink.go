package nats

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/faucet-hq/faucet/connector"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Sink publishes each record as one message. In core mode a page is
// published and flushed (the server has it; subscribers that are not
// there miss it). In jetstream mode every message is stored by a stream
// and acknowledged before Write returns: at-least-once. Why it is not
// effectively-once is in doc.go.
type Sink struct {
	cfg  SinkConfig
	conn conn
	log  *slog.Logger
	nc   *natsgo.Conn
	js   jetstream.JetStream

	// runID, writes and the last failed page make the Nats-Msg-Id of a
	// message: a retried page gets the ids of its first attempt, so the
	// stream drops what that attempt stored (within its duplicate window).
	runID      string
	writes     uint64
	failedPage *connector.Page
	failedNo   uint64
}

var _ connector.Sink = (*Sink)(nil)

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.conn = s.cfg.conn()
	return s, nil
}

func (s *Sink) jetStream() bool { return s.cfg.Mode == "jetstream" }

// Open connects; in jetstream mode it also checks that a stream will
// store what is published (the named stream, or one capturing subject).
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	nc, err := s.conn.connect(s.log)
	if err != nil {
		return err
	}
	s.nc = nc
	var id [8]byte
	_, _ = rand.Read(id[:])
	s.runID = hex.EncodeToString(id[:])
	if s.jetStream() {
		if err := s.checkStream(ctx); err != nil {
			s.Close()
			return err
		}
	}
	return nil
}

func (s *Sink) checkStream(ctx context.Context) error {
	js, err := jetstream.New(s.nc)
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	s.js = js
	switch {
	case s.cfg.JetStreamStream != "":
		_, err = js.Stream(ctx, s.cfg.JetStreamStream)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("nats: JetStream stream %q does not exist on %s", s.cfg.JetStreamStream, s.conn.where())
		}
	case s.cfg.SubjectField == "":
		_, err = js.StreamNameBySubject(ctx, s.cfg.Subject)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("nats: no JetStream stream on %s stores subject %q (mode: jetstream needs one)", s.conn.where(), s.cfg.Subject)
		}
	}
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
		return fmt.Errorf("nats: JetStream is not enabled on %s (mode: jetstream needs it)", s.conn.where())
	}
	if err != nil {
		return fmt.Errorf("nats: check JetStream stream on %s: %w", s.conn.where(), err)
	}
	return nil
}

// Write publishes the page's records in order. Every record is turned
// into a message first, so a record that cannot be (no subject, a payload
// over the server's limit) fails the page before anything is published.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if s.nc == nil {
		return errors.New("nats: sink is not open")
	}
	if len(p.Records) == 0 {
		return nil
	}
	no := s.writeNumber(p)
	msgs := make([]*natsgo.Msg, len(p.Records))
	for i := range p.Records {
		m, err := s.message(&p.Records[i])
		if err != nil {
			return fmt.Errorf("nats: record %d of page %d: %w", i+1, p.Seq, err)
		}
		if s.jetStream() && m.Header.Get(jetstream.MsgIDHeader) == "" {
			m.Header.Set(jetstream.MsgIDHeader, s.runID+"-"+strconv.FormatUint(no, 10)+"-"+strconv.Itoa(i))
		}
		msgs[i] = m
	}
	var err error
	if s.jetStream() {
		err = s.publishJetStream(ctx, msgs)
	} else {
		err = s.publishCore(msgs)
	}
	if err != nil {
		s.failedPage, s.failedNo = p, no
		return err
	}
	s.failedPage = nil
	return nil
}

// writeNumber numbers a page for its message ids; the engine retries a
// failed write with the same page, which then keeps its number.
func (s *Sink) writeNumber(p *connector.Page) uint64 {
	if p == s.failedPage {
		return s.failedNo
	}
	s.writes++
	return s.writes
}

// burst is how many messages go out before a flush (core) or before the
// oldest acknowledgement is awaited (jetstream).
func (s *Sink) burst(n int) int {
	if s.cfg.BatchSize == 0 {
		return n
	}
	return s.cfg.BatchSize
}

func (s *Sink) publishCore(msgs []*natsgo.Msg) error {
	b := s.burst(len(msgs))
	for i, m := range msgs {
		if err := s.nc.PublishMsg(m); err != nil {
			return s.publishError(i, m.Subject, err)
		}
		if (i+1)%b == 0 {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return s.flush()
}

func (s *Sink) publishJetStream(ctx context.Context, msgs []*natsgo.Msg) error {
	var opts []jetstream.PublishOpt
	if s.cfg.JetStreamStream != "" {
		opts = append(opts, jetstream.WithExpectStream(s.cfg.JetStreamStream))
	}
	deadline := time.NewTimer(secs(s.cfg.AckTimeoutSecs))
	defer deadline.Stop()
	window := s.burst(len(msgs))
	futures := make([]jetstream.PubAckFuture, 0, len(msgs))
	acked := 0
	await := func() error {
		f := futures[acked]
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return s.publishError(acked, msgs[acked].Subject, err)
		case <-deadline.C:
			return s.publishError(acked, msgs[acked].Subject, fmt.Errorf("no acknowledgement within ack_timeout_secs (%gs): %w", s.cfg.AckTimeoutSecs, natsgo.ErrTimeout))
		case <-ctx.Done():
			return ctx.Err()
		}
		acked++
		return nil
	}
	for i, m := range msgs {
		f, err := s.js.PublishMsgAsync(m, opts...)
		if err != nil {
			return s.publishError(i, m.Subject, err)
		}
		futures = append(futures, f)
		for len(futures)-acked >= window {
			if err := await(); err != nil {
				return err
			}
		}
	}
	for acked < len(futures) {
		if err := await(); err != nil {
			return err
		}
	}
	return nil
}

// publishError names the record; errors that a retry can fix (a server
// away for now, a lost acknowledgement) are retryable: the message ids
// make the retry drop what the first attempt stored.
func (s *Sink) publishError(i int, subject string, err error) error {
	err = fmt.Errorf("nats: publish record %d to %q: %w", i+1, subject, err)
	if errors.Is(err, natsgo.ErrConnectionClosed) {
		return fmt.Errorf("%w (%w)", err, closedError(s.conn, s.nc))
	}
	if transient(err) || errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, jetstream.ErrAsyncPublishTimeout) {
		return connector.Retryable(err)
	}
	return err
}

// Flush waits until the server has everything published so far.
func (s *Sink) Flush(context.Context) error {
	if s.nc == nil {
		return errors.New("nats: sink is not open")
	}
	return s.flush()
}

func (s *Sink) flush() error {
	if err := s.nc.FlushTimeout(secs(s.cfg.AckTimeoutSecs)); err != nil {
		if errors.Is(err, natsgo.ErrConnectionClosed) {
			return closedError(s.conn, s.nc)
		}
		return connector.Retryable(fmt.Errorf("nats: flush to %s: %w", s.conn.where(), err))
	}
	return nil
}

// Close disconnects.
func (s *Sink) Close() error {
	if s.nc != nil {
		s.nc.Close()
		s.nc = nil
	}
	return nil
}

// message builds the message of one record.
func (s *Sink) message(r *connector.Record) (*natsgo.Msg, error) {
	subj, err := s.subject(r)
	if err != nil {
		return nil, err
	}
	m := natsgo.NewMsg(subj)
	if err := s.headers(r, m.Header); err != nil {
		return nil, err
	}
	if m.Data, err = s.payload(r); err != nil {
		return nil, err
	}
	if max := s.nc.MaxPayload(); max > 0 && int64(len(m.Data)) > max {
		return nil, fmt.Errorf("payload of %d bytes is over the server's max_payload of %d", len(m.Data), max)
	}
	return m, nil
}

func (s *Sink) subject(r *connector.Record) (string, error) {
	if s.cfg.SubjectField == "" {
		return s.cfg.Subject, nil
	}
	v, ok := r.Get(s.cfg.SubjectField)
	if !ok || v.IsNull() {
		if s.cfg.Subject != "" {
			return s.cfg.Subject, nil
		}
		return "", fmt.Errorf("subject_field %q is missing (and no subject is set to fall back on)", s.cfg.SubjectField)
	}
	if v.Kind() != connector.KindString {
		return "", fmt.Errorf("subject_field %q is of type %s, want a string", s.cfg.SubjectField, v.Kind())
	}
	if err := checkSubject(s.cfg.SubjectField, v.AsString(), false); err != nil {
		return "", err
	}
	return v.AsString(), nil
}

func (s *Sink) headers(r *connector.Record, h natsgo.Header) error {
	if s.cfg.HeadersField == "" {
		return nil
	}
	v, ok := r.Get(s.cfg.HeadersField)
	if !ok || v.IsNull() {
		return nil
	}
	if v.Kind() != connector.KindObject {
		return fmt.Errorf("headers_field %q is of type %s, want an object", s.cfg.HeadersField, v.Kind())
	}
	for _, f := range v.AsObject().Fields {
		switch f.Value.Kind() {
		case connector.KindObject:
			return fmt.Errorf("headers_field %q: header %q is an object, want a string or a list of strings", s.cfg.HeadersField, f.Key)
		case connector.KindArray:
			for _, e := range f.Value.AsArray() {
				if k := e.Kind(); k == connector.KindObject || k == connector.KindArray {
					return fmt.Errorf("headers_field %q: header %q has a value of type %s, want strings", s.cfg.HeadersField, f.Key, k)
				}
				h.Add(f.Key, e.Text())
			}
		case connector.KindNull:
		default:
			h.Add(f.Key, f.Value.Text())
		}
	}
	return nil
}

func (s *Sink) payload(r *connector.Record) ([]byte, error) {
	if s.cfg.ValueField == "" {
		return connector.AppendRecordJSON(nil, *r), nil
	}
	v, ok := r.Get(s.cfg.ValueField)
	if !ok {
		return nil, fmt.Errorf("value_field %q is missing", s.cfg.ValueField)
	}
	switch s.cfg.ValueFormat {
	case "string":
		if v.Kind() != connector.KindString {
			return nil, fmt.Errorf("value_field %q is of type %s; value_format string needs a string", s.cfg.ValueField, v.Kind())
		}
		return []byte(v.AsString()), nil
	case "bytes":
		if v.Kind() != connector.KindString {
			return nil, fmt.Errorf("value_field %q is of type %s; value_format bytes needs a base64 string", s.cfg.ValueField, v.Kind())
		}
		b, err := base64.StdEncoding.DecodeString(v.AsString())
		if err != nil {
			return nil, fmt.Errorf("value_field %q is not base64: %w", s.cfg.ValueField, err)
		}
		return b, nil
	}
	return connector.AppendJSON(nil, v), nil
}
