package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	nethttp "net/http"
	"net/url"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/webclient"
)

// Sink sends records to an HTTP endpoint.
type Sink struct {
	cfg    SinkConfig
	url    *url.URL
	client *webclient.Client
	log    *slog.Logger
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.url, _ = webclient.ParseHTTPURL(s.cfg.URL)
	policy := webclient.Policy{MaxRetries: s.cfg.MaxRetries, Base: time.Duration(s.cfg.RetryBackoff * float64(time.Second))}
	s.client = webclient.New("http", s.cfg.Auth, policy, time.Duration(s.cfg.Timeout*float64(time.Second)), s.cfg.Concurrency)
	for k, v := range s.cfg.Headers {
		s.client.Redact.AddCredential(k, v)
	}
	s.client.Redact.AddURL(s.url)
	return s, nil
}

// Open fetches an oauth2 token up front (other auth types need nothing),
// so that wrong client credentials fail before the first page.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.client.Logger = s.log
	if err := s.client.Auth.Prepare(ctx); err != nil {
		return fmt.Errorf("http: %w", err)
	}
	return nil
}

// Write sends the page's records. Records the endpoint refuses (a 4xx
// other than 401, 407 and 429) are reported in p.Failed for the DLQ; a
// failure that is not the record's (transport errors and 5xx after the
// retries, 401) fails the write.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if len(p.Records) == 0 {
		return nil
	}
	if s.cfg.array() {
		return s.writeArrays(ctx, p)
	}
	return s.writeEach(ctx, p)
}

// Flush does nothing: a record is delivered when its request returned 2xx.
func (s *Sink) Flush(context.Context) error { return nil }

// Close releases idle connections.
func (s *Sink) Close() error {
	s.client.HTTP.CloseIdleConnections()
	return nil
}

// request is one request with body.
func (s *Sink) request(body []byte) *webclient.Request {
	h := nethttp.Header{}
	h.Set("Content-Type", "application/json")
	for k, v := range s.cfg.Headers {
		h.Set(k, v)
	}
	u := *s.url
	return &webclient.Request{Method: s.cfg.Method, URL: &u, Header: h, Body: body}
}

// refused reports whether err is the endpoint refusing the record itself:
// a 4xx status other than 401 (credentials), 407 (proxy credentials) and
// 429 (rate limiting, which remained after the waits).
func refused(err error) bool {
	var se *webclient.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
	case nethttp.StatusUnauthorized, nethttp.StatusProxyAuthRequired, nethttp.StatusTooManyRequests:
		return false
	}
	return se.Status >= 400 && se.Status < 500
}

// failure is the error that fails a write: the endpoint or the network,
// not one record.
func failure(err error) error {
	var se *webclient.StatusError
	if errors.As(err, &se) && se.Status == nethttp.StatusUnauthorized {
		return connector.Fatal(fmt.Errorf("http: %w (check the auth credentials)", err))
	}
	return fmt.Errorf("http: %w", err)
}

// refusal is the dead-letter entry of record i of p.
func refusal(p *connector.Page, i int, err error) connector.RecordError {
	return connector.RecordError{
		Stage: connector.StageSink, Component: "http",
		Location: fmt.Sprintf("record %d of the page", i+1),
		Record:   &p.Records[i], Err: err, PageIndex: i + 1,
	}
}

var _ connector.Sink = (*Sink)(nil)
