package rest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/webclient"
)

// response is one page's response as read.
type response struct {
	url  *url.URL // requested, without credentials
	resp *webclient.Response
	// tolerated: a tolerated_http_errors status on the first request,
	// which means "no records".
	tolerated bool
}

// joinURL appends path to base_url: exactly one slash between them, and a
// query string in either kept.
func joinURL(base, path string) (*url.URL, error) {
	b, err := webclient.ParseHTTPURL(base)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return b, nil
	}
	p, err := url.Parse(path)
	if err != nil || p.Scheme != "" || p.Host != "" {
		return nil, fmt.Errorf("path %q must be a path relative to base_url", path)
	}
	u := *b
	u.Path = strings.TrimRight(b.Path, "/") + "/" + strings.TrimLeft(p.Path, "/")
	u.RawPath = ""
	q := b.Query()
	for k, vs := range p.Query() {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return &u, nil
}

// request builds the next page's request (credentials are added by the
// client). In the link modes the server's next link is used as it is;
// otherwise base_url+path with query_params, query_params_multi and the
// pagination parameters.
func (s *Source) request() *webclient.Request {
	var u *url.URL
	if next := s.pg.nextURL(); next != nil {
		c := *next
		u = &c
	} else {
		c := *s.base
		u = &c
		q := u.Query()
		for _, k := range sortedKeys(s.cfg.QueryParams) {
			q.Set(k, s.cfg.QueryParams[k])
		}
		for _, k := range sortedKeys(s.cfg.QueryParamsMulti) {
			for _, v := range s.cfg.QueryParamsMulti[k] {
				q.Add(k, v)
			}
		}
		s.pg.params(q)
		u.RawQuery = q.Encode()
	}
	h := http.Header{}
	h.Set("Accept", "application/json")
	for k, v := range s.cfg.Headers {
		h.Set(k, v)
	}
	body := s.body
	if field, cursor, ok := s.pg.bodyCursor(); ok {
		rec := connector.NewRecord(1)
		if body != nil {
			rec = body.AsObject().Clone()
		}
		rec.Set(field, connector.String(cursor))
		v := connector.Object(rec)
		body = &v
	}
	r := &webclient.Request{Method: s.cfg.Method, URL: u, Header: h}
	if body != nil {
		r.Body = connector.AppendJSON(nil, *body)
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
	}
	return r
}

// fetch sends the next page's request.
func (s *Source) fetch(ctx context.Context, first bool) (*response, error) {
	r := s.request()
	if first {
		r.Tolerate = s.cfg.ToleratedErrors
	}
	s.pg.sent(r.URL.String())
	resp, err := s.client.Do(ctx, r)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("rest: %w", err)
	}
	f := &response{url: r.URL, resp: resp}
	if !resp.OK() {
		s.log.Info("rest: tolerated status on the first request; reading no records", "url", resp.URL, "status", resp.Status)
		f.tolerated = true
	}
	return f, nil
}

// parse decodes a response body. A 204, an empty or blank body and a
// tolerated error status are an empty array.
func (s *Source) parse(f *response) (connector.Value, error) {
	raw := f.resp.Body
	if f.tolerated || f.resp.Status == http.StatusNoContent || len(bytes.TrimSpace(raw)) == 0 {
		return connector.Array(nil), nil
	}
	v, err := connector.ParseJSONZeroCopy(raw)
	if err != nil {
		ct := f.resp.Header.Get("Content-Type")
		if ct == "" {
			ct = "no Content-Type"
		}
		return connector.Value{}, fmt.Errorf("rest: %s %s: the response (%s) is not JSON: %w", s.cfg.Method, f.resp.URL, ct, err)
	}
	return v, nil
}
