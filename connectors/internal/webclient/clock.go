package webclient

import (
	"context"
	"time"
)

// Clock is where a client reads the time (token expiry, Retry-After dates)
// and waits (backoff, rate limits, request_delay). Tests replace it to
// observe the waits without sleeping.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or returns ctx's error when ctx ends first.
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
var RealClock Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
