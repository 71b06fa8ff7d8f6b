package rest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/webclient"
)

// Source reads a paginated JSON API, one page per response.
type Source struct {
	cfg     SourceConfig
	base    *url.URL         // base_url + path
	body    *connector.Value // the configured request body
	start   *connector.Value // start_replication_value
	records *jsonPath
	client  *webclient.Client

	// State of one run (reset by Open).
	log        *slog.Logger
	pg         *pager
	inc        *incremental // nil for a full-table read
	first      *response    // the first response, read by Open
	pages      int          // responses read
	rows       int64        // record values seen (for row ids)
	done       bool         // no request left to make
	eof        bool
	warnedPath bool
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	var err error
	if s.base, err = joinURL(s.cfg.BaseURL, s.cfg.Path); err != nil {
		return nil, connector.ConfigErrorf(c.Path+".path", "%v", err)
	}
	if v, ok := c.Value.AsObject().Get("body"); ok && !v.IsNull() {
		if s.cfg.Pagination.mode() == pageBodyCursor && v.Kind() != connector.KindObject {
			return nil, connector.ConfigErrorf(c.Path+".body", "must be an object with pagination type cursor_in_body, got %s", v.Kind())
		}
		b := v.Detach()
		s.body = &b
	}
	if v, ok := c.Value.AsObject().Get("start_replication_value"); ok && !v.IsNull() {
		b := v.Detach()
		s.start = &b
	}
	if s.cfg.RecordsPath != "" {
		s.records, _ = parsePath(s.cfg.RecordsPath)
	}
	s.client = webclient.New("rest", s.cfg.Auth, s.cfg.policy(), seconds(s.cfg.Timeout), 2)
	s.client.Redact.AddURL(s.base)
	for k, v := range s.cfg.Headers {
		s.client.Redact.AddCredential(k, v)
	}
	for k, v := range s.cfg.QueryParams {
		s.client.Redact.AddCredential(k, v)
	}
	for k, vs := range s.cfg.QueryParamsMulti {
		for _, v := range vs {
			s.client.Redact.AddCredential(k, v)
		}
	}
	return s, nil
}

// Open reads the first page, so that an unreachable API, wrong
// credentials or a missing resource fail before anything is written.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.client.Logger = s.log
	s.pg = newPager(s.cfg.Pagination)
	s.inc, s.first, s.pages, s.rows, s.done, s.eof, s.warnedPath = nil, nil, 0, 0, false, false, false
	if s.cfg.incremental() {
		start := opts.StartBookmark
		if start == nil {
			start = s.start
		}
		s.inc = newIncremental(s.cfg.ReplicationKey, s.cfg.KeyAscending, start)
		if s.cfg.MaxPages != nil && !s.cfg.KeyAscending {
			s.log.Warn("rest: max_pages with an incremental read assumes the API returns records in ascending replication_key order; " +
				"otherwise records on pages not read yet may fall below the saved bookmark and be skipped next run")
		}
	}
	f, err := s.fetch(ctx, true)
	if err != nil {
		return err
	}
	s.first = f
	return nil
}

// Next returns the next page with records (or a bookmark), making as many
// requests as it takes: pages whose records were all filtered out are not
// emitted.
func (s *Source) Next(ctx context.Context) (*connector.Page, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.eof {
			return nil, io.EOF
		}
		f := s.first
		s.first = nil
		if f == nil {
			if s.done {
				return s.finish()
			}
			if s.cfg.MaxPages != nil && s.pages >= *s.cfg.MaxPages {
				s.log.Warn("rest: max_pages reached; the remaining pages are left for the next run", "max_pages", *s.cfg.MaxPages)
				s.done = true
				continue
			}
			if s.cfg.RequestDelay > 0 {
				if err := s.client.Clock.Sleep(ctx, seconds(s.cfg.RequestDelay)); err != nil {
					return nil, err
				}
			}
			var err error
			if f, err = s.fetch(ctx, false); err != nil {
				return nil, err
			}
		}
		p, err := s.page(f)
		if err != nil || p != nil {
			return p, err
		}
	}
}

// page turns one response into a page, or nil when there is nothing to
// emit (no records left after the filter, no new bookmark, or a repeated
// response).
func (s *Source) page(f *response) (*connector.Page, error) {
	s.pages++
	sum := fingerprint(f.resp.Body)
	body, err := s.parse(f)
	if err != nil {
		return nil, err
	}
	vals := s.extract(body)
	st := step{}
	if !f.tolerated {
		if st, err = s.pg.advance(f.url, f.resp.Header.Values("Link"), body, sum, len(vals)); err != nil {
			return nil, fmt.Errorf("rest: %s %s: %w", s.cfg.Method, f.resp.URL, err)
		}
	}
	if next := s.pg.nextURL(); st.more && next != nil && !strings.EqualFold(next.Host, s.base.Host) && s.client.Auth.Type() != webclient.AuthNone {
		return nil, fmt.Errorf("rest: %s %s: the next page's link points to another host (%s); refusing to send the credentials there",
			s.cfg.Method, f.resp.URL, next.Host)
	}
	if st.loop != "" {
		s.log.Warn("rest: pagination loop detected; stopping", "url", f.resp.URL, "reason", st.loop)
	}
	if !st.more {
		s.done = true
	}
	if st.duplicate {
		return nil, nil
	}
	p := s.build(vals, f.resp.URL)
	if s.inc != nil {
		p.Bookmark = s.inc.pageBookmark(s.done)
	}
	if len(p.Records) == 0 && len(p.Failed) == 0 && p.Bookmark == nil {
		return nil, nil
	}
	return p, nil
}

// finish ends the run: a bookmark no page carried yet goes out on an
// empty checkpoint page, then io.EOF.
func (s *Source) finish() (*connector.Page, error) {
	s.eof = true
	if s.inc != nil {
		s.inc.warn(s.log)
		if bm := s.inc.pending(); bm != nil {
			return &connector.Page{Bookmark: bm}, nil
		}
	}
	return nil, io.EOF
}

// Close releases idle connections.
func (s *Source) Close() error {
	s.client.HTTP.CloseIdleConnections()
	return nil
}

// CheckReplay says whether, as configured, the source replays exactly
// the records after a committed page's bookmark (delivery: exactly_once).
// It does when the read is incremental and the API returns records in
// strictly ascending key order: every page then carries the highest key
// so far, and a run started from it filters out exactly what was
// committed. Otherwise only the last page carries a bookmark and a
// crashed run would read everything since the previous one again.
func (s *Source) CheckReplay() error {
	switch {
	case !s.cfg.incremental():
		return fmt.Errorf("rest: a full-table read has no bookmark to resume from; set replication_key, and replication_key_ascending: true if the API returns records in ascending key order")
	case !s.cfg.KeyAscending:
		return fmt.Errorf("rest: only the last page of a run carries a bookmark, so a crashed run cannot resume from a committed page; if the API returns records in strictly ascending %s order, set replication_key_ascending: true", s.cfg.ReplicationKey)
	}
	return nil
}

var (
	_ connector.Source        = (*Source)(nil)
	_ connector.ReplayChecker = (*Source)(nil)
	_ connector.Checker       = (*Source)(nil)
)
