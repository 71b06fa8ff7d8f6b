package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// RetryPolicy says how often and how patiently retryable errors are retried.
type RetryPolicy struct {
	MaxAttempts int           // total attempts, >= 1
	Base        time.Duration // first delay
	Max         time.Duration // cap on one delay
}

// DefaultRetry is 5 attempts from 200ms doubling to at most 30s, the
// defaults of faucet-cli 1.x's resilience.retry.
var DefaultRetry = RetryPolicy{MaxAttempts: 5, Base: 200 * time.Millisecond, Max: 30 * time.Second}

// delay is the wait before attempt n+1 (n counts from 1): Base*2^(n-1)
// capped at Max, times a jitter factor in [0.5, 1.5), and never less than
// what the peer asked for.
func (p RetryPolicy) delay(n int, err error) time.Duration {
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	if d > p.Max {
		d = p.Max
	}
	d = time.Duration(float64(d) * (0.5 + rand.Float64()))
	var re *connector.RetryableError
	if errors.As(err, &re) && re.After > d {
		d = re.After
	}
	return d
}

// do runs op until it succeeds, fails with a non-retryable error, or the
// attempts are used up. onRetry is told of every retry (for logs).
func (p RetryPolicy) do(ctx context.Context, op func() error, onRetry func(attempt int, err error, wait time.Duration)) error {
	attempts := p.MaxAttempts
	if attempts < 1 {
		attempts = 1
	}
	var err error
	for n := 1; ; n++ {
		if err = op(); err == nil || !connector.IsRetryable(err) || n >= attempts {
			return err
		}
		wait := p.delay(n, err)
		if onRetry != nil {
			onRetry(n, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}
