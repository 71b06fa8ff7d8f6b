package redis

import (
	"context"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

// nextList reads the next LRANGE window of up to want elements (all the
// rest when want < 0). The list is not modified: a rerun reads it again.
func (s *Source) nextList(ctx context.Context, want int64) (*connector.Page, error) {
	stop := int64(-1)
	if want > 0 {
		stop = s.listPos + want - 1
	}
	vals, err := s.client.LRange(ctx, s.st.Key, s.listPos, stop).Result()
	if err != nil {
		return nil, s.fail(ctx, "LRANGE", err)
	}
	if len(vals) == 0 {
		return nil, nil
	}
	first := s.listPos
	s.listPos += int64(len(vals))
	s.emitted += int64(len(vals))
	if want < 0 || int64(len(vals)) < want {
		s.done = true
	}
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
