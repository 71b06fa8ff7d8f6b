package webclient

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultRetryAfter is the wait after a 429 without a usable Retry-After
// (faucet-cli 1.x's value).
const DefaultRetryAfter = 60 * time.Second

// ParseRetryAfter reads a Retry-After header value: delta-seconds ("120")
// or an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT", also the RFC 850 and
// asctime forms), relative to now. A date in the past means no wait. ok is
// false when the value is absent or in neither form.
func ParseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, true
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := when.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}
