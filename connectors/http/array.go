package http

import (
	"context"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

// writeArrays sends the page as JSON arrays of batch_size records, one
// request after the other. A refused array sends all of its records to
// the DLQ and the next array goes on (faucet-cli 1.x marked the rest of
// the page failed too, though it was never sent); any other failure
// fails the write.
func (s *Sink) writeArrays(ctx context.Context, p *connector.Page) error {
	n := len(p.Records)
	size := s.cfg.BatchSize
	if size <= 0 || size > n {
		size = n
	}
	var body []byte
	for start := 0; start < n; start += size {
		end := min(start+size, n)
		body = append(body[:0:0], '[')
		for i := start; i < end; i++ {
			if i > start {
				body = append(body, ',')
			}
			body = connector.AppendRecordJSON(body, p.Records[i])
		}
		body = append(body, ']')
		_, err := s.client.Do(ctx, s.request(body))
		switch {
		case err == nil:
		case refused(err):
			err = fmt.Errorf("%w (the array of records %d-%d was refused as a whole)", err, start+1, end)
			for i := start; i < end; i++ {
				p.Failed = append(p.Failed, refusal(p, i, err))
			}
		default:
			return failure(err)
		}
	}
	return nil
}
