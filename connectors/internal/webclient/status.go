package webclient

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// maxErrorBody is how much of a response body an error quotes.
const maxErrorBody = 1024

// StatusError is a response with a status that is neither 2xx nor
// tolerated. URL and Body are already redacted.
type StatusError struct {
	Method string
	URL    string
	Status int
	// Body is the start of the response body (at most 1 KiB).
	Body string
	// RetryAfter is the server's Retry-After, when it sent a usable one.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d %s", e.Method, e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

func (c *Client) statusError(r *Request, resp *Response) *StatusError {
	// Scrub before cutting, so that no half of a secret survives the cut.
	body := resp.Body[:min(len(resp.Body), 1<<20)]
	se := &StatusError{Method: r.Method, URL: resp.URL, Status: resp.Status, Body: quoteBody([]byte(c.Redact.String(string(body))))}
	se.RetryAfter, se.HasRetryAfter = ParseRetryAfter(resp.Header.Get("Retry-After"), c.Clock.Now())
	return se
}

// quoteBody is the body as one line, cut at maxErrorBody bytes on a rune
// boundary.
func quoteBody(b []byte) string {
	truncated := false
	if len(b) > maxErrorBody {
		b, truncated = b[:maxErrorBody], true
		// Drop a rune cut in half (invalid bytes elsewhere become "?").
		start := len(b) - 1
		for start > 0 && len(b)-start < utf8.UTFMax && !utf8.RuneStart(b[start]) {
			start--
		}
		if start >= 0 && !utf8.FullRune(b[start:]) {
			b = b[:start]
		}
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "?")), " ")
	if truncated {
		s += "...(truncated)"
	}
	return s
}
