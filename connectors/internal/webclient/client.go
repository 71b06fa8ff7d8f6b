package webclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// MaxResponseBytes bounds a response body read into memory.
const MaxResponseBytes = 512 << 20

// Client sends requests with credentials and retries. Set the fields, then
// call Do; Logger may be replaced before each run (Open).
type Client struct {
	HTTP   *http.Client
	Auth   *Auth
	Policy Policy
	Clock  Clock
	Redact *Redactor
	Logger *slog.Logger
	// Name prefixes log messages ("rest", "http").
	Name string
}

// New returns a client with a fresh Redactor, the wall clock, policy p, a
// per-request timeout (0: none) and the credentials of auth.
func New(name string, auth *AuthConfig, p Policy, timeout time.Duration, maxConnsPerHost int) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if maxConnsPerHost > tr.MaxIdleConnsPerHost {
		tr.MaxIdleConnsPerHost = maxConnsPerHost
	}
	c := &Client{
		HTTP:   &http.Client{Timeout: timeout, Transport: tr},
		Policy: p,
		Clock:  RealClock,
		Redact: NewRedactor(),
		Name:   name,
	}
	c.Auth = NewAuth(auth, c)
	return c
}

func (c *Client) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c.Logger
}

// Request is one HTTP request, before credentials.
type Request struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
	// Tolerate lists statuses returned as a Response instead of an error
	// (tolerated_http_errors on a first page).
	Tolerate []int
	// NoAuth sends the request without credentials (the token request).
	NoAuth bool
}

// Response is a response read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// URL is the request URL, redacted for messages.
	URL string
	// authz is the Authorization header the request carried.
	authz string
}

// OK reports a 2xx status.
func (r *Response) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Do sends r, retrying as Policy says (see the package comment), and
// returns the 2xx (or tolerated) response. Errors are redacted; a
// non-2xx status is a *StatusError.
func (c *Client) Do(ctx context.Context, r *Request) (*Response, error) {
	retries, limited := 0, 0
	reauthed := false
	for {
		resp, err := c.once(ctx, r)
		if err == nil && (resp.OK() || tolerated(r.Tolerate, resp.Status)) {
			return resp, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		var ae *authError
		if errors.As(err, &ae) {
			// The token request had its own retries.
			return nil, ae.err
		}
		var se *StatusError
		if err == nil {
			se = c.statusError(r, resp)
			err = se
		}
		switch {
		case se != nil && se.Status == http.StatusTooManyRequests:
			limited++
			if limited > c.Policy.maxRateLimited() {
				return nil, fmt.Errorf("%w (rate limited %d times in a row; giving up)", se, limited)
			}
			wait := DefaultRetryAfter
			if se.HasRetryAfter {
				wait = se.RetryAfter
			}
			c.logger().Warn(c.Name+": rate limited, waiting as the server asked", "url", se.URL, "wait", wait.String(), "count", limited)
			if err := c.Clock.Sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		case se != nil && se.Status == http.StatusUnauthorized && !r.NoAuth && c.Auth.Refreshable() && !reauthed:
			reauthed = true
			c.logger().Warn(c.Name+": 401 Unauthorized with a cached oauth2 token; fetching a new token and retrying once", "url", se.URL)
			c.Auth.Invalidate(resp.authz)
			continue
		}
		limited = 0
		if !retryable(se) {
			return nil, err
		}
		if retries >= c.Policy.MaxRetries {
			if retries == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("%w (gave up after %d attempts)", err, retries+1)
		}
		wait := c.Policy.backoff(retries)
		if se != nil && se.HasRetryAfter && se.RetryAfter > wait {
			wait = se.RetryAfter
		}
		retries++
		c.logger().Warn(c.Name+": request failed, retrying", "attempt", retries, "of", c.Policy.MaxRetries+1, "wait", wait.String(), "error", err.Error())
		if err := c.Clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func tolerated(list []int, status int) bool {
	for _, s := range list {
		if s == status {
			return true
		}
	}
	return false
}

// retryable: transport errors and 5xx statuses.
func retryable(se *StatusError) bool {
	return se == nil || se.Status >= 500
}

// once sends r one time. A transport error comes back redacted, with
// ctx's error kept in its chain.
func (c *Client) once(ctx context.Context, r *Request) (*Response, error) {
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.Method, c.Redact.URL(r.URL), err)
	}
	for k, vs := range r.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if !r.NoAuth {
		if err := c.Auth.Apply(ctx, req); err != nil {
			return nil, &authError{err}
		}
	}
	shown := c.Redact.URL(req.URL)
	hresp, err := c.HTTP.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = shown
			if ue.Err != nil {
				ue.Err = &redactedError{msg: c.Redact.String(ue.Err.Error()), err: ue.Err}
			}
			return nil, ue
		}
		return nil, &redactedError{msg: c.Redact.String(err.Error()), err: err}
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read response: %w", r.Method, shown, &redactedError{msg: c.Redact.String(err.Error()), err: err})
	}
	if len(data) > MaxResponseBytes {
		return nil, fmt.Errorf("%s %s: response larger than %d MiB", r.Method, shown, MaxResponseBytes>>20)
	}
	return &Response{Status: hresp.StatusCode, Header: hresp.Header, Body: data, URL: shown, authz: req.Header.Get("Authorization")}, nil
}

// authError is a failure to get credentials for a request (the oauth2
// token request failed).
type authError struct{ err error }

func (e *authError) Error() string { return e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

// redactedError shows a scrubbed message but keeps the original error in
// the chain (errors.Is(err, context.DeadlineExceeded) still holds).
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// ParseHTTPURL parses an absolute http or https URL.
func ParseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// The url.Error would quote the whole URL, password included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("is not a valid URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("must be an http:// or https:// URL")
	}
	if u.Host == "" {
		return nil, fmt.Errorf("has no host")
	}
	return u, nil
}
