package http

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/faucet-hq/faucet/connector"
)

// writeEach sends one request per record, at most `concurrency` at a
// time. Refused records are appended to p.Failed in page order. The
// first failure that is not a record's cancels the requests in flight
// and is returned (records already delivered stay delivered: the page is
// at-least-once, and the engine does not save its bookmark).
func (s *Sink) writeEach(ctx context.Context, p *connector.Page) error {
	n := len(p.Records)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var (
		next   atomic.Int64
		mu     sync.Mutex
		failed error
		wg     sync.WaitGroup
	)
	for range min(s.cfg.Concurrency, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				// A fresh buffer per request: the transport may still read
				// a body after Do returned.
				body := connector.AppendRecordJSON(nil, p.Records[i])
				_, err := s.client.Do(ctx, s.request(body))
				switch {
				case err == nil:
				case refused(err):
					errs[i] = err
				default:
					mu.Lock()
					if failed == nil {
						failed = err
						cancel()
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if failed != nil {
		return failure(failed)
	}
	for i, err := range errs {
		if err != nil {
			p.Failed = append(p.Failed, refusal(p, i, err))
		}
	}
	return nil
}
