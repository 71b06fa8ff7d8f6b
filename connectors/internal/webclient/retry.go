package webclient

import (
	"math/rand/v2"
	"time"
)

// Policy says how often and how patiently a request is retried.
type Policy struct {
	// MaxRetries is the number of retries after the first attempt for
	// transport errors and 5xx statuses.
	MaxRetries int
	// Base is the first backoff; each retry doubles it.
	Base time.Duration
	// MaxBackoff caps one backoff (before jitter).
	MaxBackoff time.Duration
	// MaxRateLimited is how many 429s in a row are waited out before
	// giving up (0: DefaultMaxRateLimited).
	MaxRateLimited int
}

// DefaultMaxBackoff caps a backoff (faucet-cli 1.x's REST value).
const DefaultMaxBackoff = 60 * time.Second

// DefaultMaxRateLimited is faucet-cli 1.x's limit of consecutive 429s.
const DefaultMaxRateLimited = 10

func (p Policy) maxRateLimited() int {
	if p.MaxRateLimited > 0 {
		return p.MaxRateLimited
	}
	return DefaultMaxRateLimited
}

// backoff is the wait before retry n+1 (n counts from 0): Base·2^n capped
// at MaxBackoff, times a jitter factor in [0.5, 1.5) so that clients that
// failed together do not retry together.
func (p Policy) backoff(n int) time.Duration {
	limit := p.MaxBackoff
	if limit <= 0 {
		limit = DefaultMaxBackoff
	}
	d := p.Base
	for i := 0; i < n && d < limit; i++ {
		d *= 2
	}
	if d > limit {
		d = limit
	}
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}
