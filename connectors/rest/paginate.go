package rest

import (
	"fmt"
	"hash/fnv"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Pagination modes (snake_case; faucet-cli 1.x's CamelCase names are
// accepted too).
const (
	pageNone       = "none"
	pageCursor     = "cursor"
	pageBodyCursor = "cursor_in_body"
	pageLink       = "link_header"
	pageNextLink   = "next_link_in_body"
	pageNumber     = "page_number"
	pageOffset     = "offset"
)

var pageModes = []string{pageNone, pageLink, pageCursor, pageBodyCursor, pageNextLink, pageNumber, pageOffset}

// Pagination is `pagination: {type, ...}`: the type's settings sit next
// to it, as in faucet-cli 1.x.
type Pagination struct {
	Type            string `json:"type" doc:"none, link_header, cursor, cursor_in_body, next_link_in_body, page_number or offset."`
	NextTokenPath   string `json:"next_token_path" doc:"cursor, cursor_in_body: JSONPath of the next cursor in a response; null, empty or absent ends."`
	ParamName       string `json:"param_name" doc:"cursor: query parameter that sends the cursor; page_number: the page number's parameter."`
	BodyCursorField string `json:"body_cursor_field" doc:"cursor_in_body: field of the JSON body that sends the cursor."`
	NextLinkPath    string `json:"next_link_path" doc:"next_link_in_body: JSONPath of the next page's URL in a response."`
	StartPage       *int64 `json:"start_page" doc:"page_number: number of the first page (default 1)."`
	PageSize        *int64 `json:"page_size" doc:"page_number: records per page, sent as page_size_param."`
	PageSizeParam   string `json:"page_size_param" doc:"page_number: query parameter that sends page_size."`
	OffsetParam     string `json:"offset_param" doc:"offset: query parameter of the offset (default offset)."`
	LimitParam      string `json:"limit_param" doc:"offset: query parameter of the page size (default limit)."`
	Limit           *int64 `json:"limit" doc:"offset: records asked for per page; a shorter page is the last."`
	TotalPath       string `json:"total_path" doc:"offset: JSONPath of the total record count; reading stops once the offset reaches it."`
}

// mode is the canonical name of the configured type.
func (p *Pagination) mode() string {
	if p == nil {
		return pageNone
	}
	t := strings.ToLower(strings.ReplaceAll(p.Type, "_", ""))
	for _, m := range pageModes {
		if t == strings.ReplaceAll(m, "_", "") {
			return m
		}
	}
	return ""
}

// pageKeys lists, per mode, the keys it requires and allows.
var pageKeys = map[string]struct{ required, optional []string }{
	pageNone:       {},
	pageLink:       {},
	pageCursor:     {required: []string{"next_token_path", "param_name"}},
	pageBodyCursor: {required: []string{"next_token_path", "body_cursor_field"}},
	pageNextLink:   {required: []string{"next_link_path"}},
	pageNumber:     {required: []string{"param_name"}, optional: []string{"start_page", "page_size", "page_size_param"}},
	pageOffset:     {required: []string{"limit"}, optional: []string{"offset_param", "limit_param", "total_path"}},
}

func (p *Pagination) set() map[string]bool {
	return map[string]bool{
		"next_token_path": p.NextTokenPath != "", "param_name": p.ParamName != "",
		"body_cursor_field": p.BodyCursorField != "", "next_link_path": p.NextLinkPath != "",
		"start_page": p.StartPage != nil, "page_size": p.PageSize != nil, "page_size_param": p.PageSizeParam != "",
		"offset_param": p.OffsetParam != "", "limit_param": p.LimitParam != "", "limit": p.Limit != nil,
		"total_path": p.TotalPath != "",
	}
}

func (p *Pagination) validate(path string) error {
	if p == nil {
		return nil
	}
	m := p.mode()
	if m == "" {
		return connector.ConfigErrorf(path+".type", "must be one of %s, got %q", strings.Join(pageModes, ", "), p.Type)
	}
	spec := pageKeys[m]
	set := p.set()
	allowed := map[string]bool{}
	for _, k := range spec.required {
		allowed[k] = true
		if !set[k] {
			return connector.ConfigErrorf(path+"."+k, "required for pagination type %s", m)
		}
	}
	for _, k := range spec.optional {
		allowed[k] = true
	}
	var extra []string
	for k, isSet := range set {
		if isSet && !allowed[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return connector.ConfigErrorf(path+"."+extra[0], "does not apply to pagination type %s", m)
	}
	for key, jp := range map[string]string{"next_token_path": p.NextTokenPath, "next_link_path": p.NextLinkPath, "total_path": p.TotalPath} {
		if jp != "" {
			if _, err := parsePath(jp); err != nil {
				return connector.ConfigErrorf(path+"."+key, "%v", err)
			}
		}
	}
	if p.PageSize != nil && *p.PageSize < 1 {
		return connector.ConfigErrorf(path+".page_size", "must be at least 1, got %d", *p.PageSize)
	}
	if (p.PageSize == nil) != (p.PageSizeParam == "") {
		return connector.ConfigErrorf(path+".page_size_param", "page_size and page_size_param go together")
	}
	if p.Limit != nil && *p.Limit < 1 {
		return connector.ConfigErrorf(path+".limit", "must be at least 1, got %d", *p.Limit)
	}
	return nil
}

// pager walks the pages of one run: it adds the page's parameters to each
// request and, from each response, decides whether there is another page.
//
// Loop guards: a cursor or next URL that was already requested in this
// run, and (page_number, offset without total_path) a response byte for
// byte equal to the previous one, end the run with a warning, as
// faucet-cli 1.x does. A repeated response is dropped, not emitted.
type pager struct {
	mode  string
	cfg   Pagination
	token *jsonPath // next_token_path or next_link_path
	total *jsonPath

	cursor    string
	hasCursor bool
	next      *url.URL // link modes: the next page's URL
	page      int64
	offset    int64
	seen      map[string]bool
	lastHash  uint64
	hasHash   bool
}

func newPager(p *Pagination) *pager {
	pg := &pager{mode: p.mode(), seen: map[string]bool{}}
	if p == nil {
		return pg
	}
	pg.cfg = *p
	switch {
	case p.NextTokenPath != "":
		pg.token, _ = parsePath(p.NextTokenPath)
	case p.NextLinkPath != "":
		pg.token, _ = parsePath(p.NextLinkPath)
	}
	if p.TotalPath != "" {
		pg.total, _ = parsePath(p.TotalPath)
	}
	if p.StartPage != nil {
		pg.page = *p.StartPage
	} else {
		pg.page = 1
	}
	return pg
}

// params sets the query parameters of the next request on q.
func (p *pager) params(q url.Values) {
	switch p.mode {
	case pageCursor:
		if p.hasCursor {
			q.Set(p.cfg.ParamName, p.cursor)
		}
	case pageNumber:
		q.Set(p.cfg.ParamName, strconv.FormatInt(p.page, 10))
		if p.cfg.PageSize != nil {
			q.Set(p.cfg.PageSizeParam, strconv.FormatInt(*p.cfg.PageSize, 10))
		}
	case pageOffset:
		q.Set(p.offsetParam(), strconv.FormatInt(p.offset, 10))
		q.Set(p.limitParam(), strconv.FormatInt(*p.cfg.Limit, 10))
	}
}

func (p *pager) offsetParam() string {
	if p.cfg.OffsetParam != "" {
		return p.cfg.OffsetParam
	}
	return "offset"
}

func (p *pager) limitParam() string {
	if p.cfg.LimitParam != "" {
		return p.cfg.LimitParam
	}
	return "limit"
}

// bodyCursor returns the cursor to put in the JSON body, if any.
func (p *pager) bodyCursor() (field, cursor string, ok bool) {
	if p.mode == pageBodyCursor && p.hasCursor {
		return p.cfg.BodyCursorField, p.cursor, true
	}
	return "", "", false
}

// nextURL is the URL of the next request in the link modes (nil: the
// configured one).
func (p *pager) nextURL() *url.URL { return p.next }

// sent records the URL of a request (for the link-loop guard).
func (p *pager) sent(u string) {
	if p.mode == pageLink || p.mode == pageNextLink {
		p.seen[u] = true
	}
}

// step is what a response says about the pages after it.
type step struct {
	more bool
	// duplicate marks the response as a repeat of the previous one: it is
	// dropped.
	duplicate bool
	// loop explains a stop by a loop guard (logged as a warning).
	loop string
}

// advance reads the response to the request just made: its URL (for
// relative links), Link headers, parsed body, the fingerprint of its raw
// body and the number of records it held.
func (p *pager) advance(reqURL *url.URL, links []string, body connector.Value, sum uint64, records int) (step, error) {
	switch p.mode {
	case pageCursor, pageBodyCursor:
		tok, ok, err := p.cursorIn(body)
		if err != nil || !ok {
			return step{}, err
		}
		if p.seen[tok] {
			return step{loop: fmt.Sprintf("cursor %s came back a second time", quoteShort(tok))}, nil
		}
		p.seen[tok] = true
		p.cursor, p.hasCursor = tok, true
		return step{more: true}, nil
	case pageLink, pageNextLink:
		var link string
		if p.mode == pageLink {
			link = nextLink(links)
		} else {
			v, found := p.token.first(body)
			switch {
			case !found || v.IsNull():
			case v.Kind() == connector.KindString:
				link = strings.Clone(strings.TrimSpace(v.AsString()))
			default:
				return step{}, fmt.Errorf("pagination.next_link_path %s selected %s; the next page's link must be a URL string", p.token, describe(v.Kind()))
			}
		}
		if link == "" {
			p.next = nil
			return step{}, nil
		}
		u, err := reqURL.Parse(link)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return step{}, fmt.Errorf("pagination: the next page's link %s is not an http(s) URL", quoteShort(link))
		}
		if p.seen[u.String()] {
			p.next = nil
			return step{loop: "the next page's link points to a page already read"}, nil
		}
		p.next = u
		return step{more: true}, nil
	case pageNumber:
		p.page++
		if records == 0 {
			return step{}, nil
		}
		if p.repeated(sum) {
			return step{duplicate: true, loop: fmt.Sprintf("page %d returned the same response as page %d (is %s ignored?)", p.page-1, p.page-2, p.cfg.ParamName)}, nil
		}
		return step{more: true}, nil
	case pageOffset:
		if records == 0 {
			return step{}, nil
		}
		p.offset += int64(records)
		if p.total != nil {
			if v, found := p.total.first(body); found {
				if n, ok := count(v); ok {
					return step{more: p.offset < n}, nil
				}
				// As faucet-cli 1.x: fall back to the short-page rule.
			}
		}
		more := int64(records) >= *p.cfg.Limit
		if more && p.total == nil && p.repeated(sum) {
			return step{duplicate: true, loop: fmt.Sprintf("offset %d returned the same response as the previous page (is %s ignored?)", p.offset-int64(records), p.offsetParam())}, nil
		}
		return step{more: more}, nil
	}
	return step{}, nil
}

// cursorIn reads the next cursor: a string, number or boolean; null,
// empty or absent means the last page.
func (p *pager) cursorIn(body connector.Value) (string, bool, error) {
	v, found := p.token.first(body)
	if !found {
		return "", false, nil
	}
	switch v.Kind() {
	case connector.KindNull:
		return "", false, nil
	case connector.KindString:
		// Cloned: the body it points into must not outlive its page.
		s := strings.Clone(v.AsString())
		return s, s != "", nil
	case connector.KindInt, connector.KindFloat, connector.KindBool:
		return v.Text(), true, nil
	}
	return "", false, fmt.Errorf("pagination.next_token_path %s selected %s; a cursor must be a string, number or boolean", p.token, describe(v.Kind()))
}

// fingerprint identifies a raw response body for the repeated-page guard.
func fingerprint(raw []byte) uint64 {
	h := fnv.New64a()
	h.Write(raw)
	return h.Sum64()
}

// repeated reports whether the response with fingerprint sum equals the
// previous one.
func (p *pager) repeated(sum uint64) bool {
	dup := p.hasHash && sum == p.lastHash
	p.lastHash, p.hasHash = sum, true
	return dup
}

// count reads a total: a non-negative integer, or a string holding one.
func count(v connector.Value) (int64, bool) {
	switch v.Kind() {
	case connector.KindInt:
		return v.AsInt(), v.AsInt() >= 0
	case connector.KindFloat:
		f := v.AsFloat()
		return int64(f), f >= 0 && f == float64(int64(f))
	case connector.KindString:
		n, err := strconv.ParseInt(strings.TrimSpace(v.AsString()), 10, 64)
		return n, err == nil && n >= 0
	}
	return 0, false
}

// quoteShort quotes s for a message, cut to 80 bytes.
func quoteShort(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strconv.Quote(s)
}
