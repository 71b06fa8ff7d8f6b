package redis

import (
	"context"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

// nextList reads the next window of up to want elements (all the rest
// when want < 0) with LRANGE, in chunks for batch_bytes (chunker). The
// list is not modified: a rerun reads it again.
func (s *Source) nextList(ctx context.Context, want int64) (*connector.Page, error) {
	first := s.listPos
	var vals []string
	end, err := s.chunks.fill(want, func(k int64) (int, int64, bool, error) {
		stop := int64(-1)
		if k > 0 {
			stop = s.listPos + k - 1
		}
		got, err := s.client.LRange(ctx, s.st.Key, s.listPos, stop).Result()
		if err != nil {
			return 0, 0, false, s.fail(ctx, "LRANGE", err)
		}
		var b int64
		for _, v := range got {
			b += int64(len(v))
		}
		s.listPos += int64(len(got))
		vals = append(vals, got...)
		return len(got), b, false, nil
	})
	if err != nil {
		return nil, err
	}
	s.done = s.done || end
	if len(vals) == 0 {
		return nil, nil
	}
	s.emitted += int64(len(vals))
	key := s.st.Key
	p := &connector.Page{}
	p.Decode = func(p *connector.Page) error {
		p.Records = make([]connector.Record, len(vals))
		for i, v := range vals {
			p.Records[i] = elementRecord(decodeText(v))
		}
		return nil
	}
	p.Locate = func(i int) (string, int64) {
		return fmt.Sprintf("redis list %s[%d]", key, first+int64(i)), first + int64(i) + 1
	}
	return p, nil
}

// elementRecord is the record of one list element: the element itself
// when it is a JSON object, else {"value": element}.
func elementRecord(v connector.Value) connector.Record {
	if v.Kind() == connector.KindObject {
		return v.AsObject()
	}
	return connector.Record{Fields: []connector.Field{{Key: "value", Value: v}}}
}
