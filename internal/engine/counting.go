package engine

import (
	"context"

	"github.com/faucet-hq/faucet/connector"
)

// CountingSink accepts every page and keeps nothing: the sink of --dry-run.
type CountingSink struct{ Records int64 }

// Open implements connector.Sink.
func (s *CountingSink) Open(context.Context, connector.SinkOptions) error { return nil }

// Write implements connector.Sink.
func (s *CountingSink) Write(_ context.Context, p *connector.Page) error {
	s.Records += int64(len(p.Records))
	return nil
}

// Flush implements connector.Sink.
func (s *CountingSink) Flush(context.Context) error { return nil }

// Close implements connector.Sink.
func (s *CountingSink) Close() error { return nil }
