package rest

import (
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

// extract returns the record values of a response body. Without
// records_path an array body is the records and any other body one
// record; with it, the values it selects, except that a path selecting a
// single array (no wildcard, such as $.data) yields that array's elements.
func (s *Source) extract(body connector.Value) []connector.Value {
	if s.records == nil {
		switch body.Kind() {
		case connector.KindArray:
			return body.AsArray()
		case connector.KindNull:
			return nil
		}
		return []connector.Value{body}
	}
	vals := s.records.all(body)
	if !s.records.wild() && len(vals) == 1 && vals[0].Kind() == connector.KindArray {
		vals = vals[0].AsArray()
	}
	if len(vals) == 0 && !s.warnedPath && !(body.Kind() == connector.KindArray && len(body.AsArray()) == 0) {
		s.warnedPath = true
		s.log.Warn("rest: records_path selected nothing in a response", "records_path", s.records.String())
	}
	return vals
}

// build turns a response's record values into a page: objects that pass
// the incremental filter become records; anything else is a failed record
// (dead-lettered, or failing the run without a DLQ).
func (s *Source) build(vals []connector.Value, where string) *connector.Page {
	p := &connector.Page{Records: make([]connector.Record, 0, len(vals))}
	base := s.rows
	s.rows += int64(len(vals))
	var pos []int // position in the response of each kept record
	for i, v := range vals {
		if v.Kind() != connector.KindObject {
			p.Failed = append(p.Failed, connector.RecordError{
				Stage: connector.StageSource, Component: "rest",
				Location: fmt.Sprintf("%s record %d", where, i+1), RowID: base + int64(i) + 1,
				Raw: v.String(), Err: fmt.Errorf("the record is %s, not a JSON object", describe(v.Kind())),
			})
			continue
		}
		r := v.AsObject()
		if s.inc != nil && !s.inc.keep(r) {
			continue
		}
		p.Records = append(p.Records, r)
		pos = append(pos, i)
	}
	p.Locate = func(i int) (string, int64) {
		if i < 0 || i >= len(pos) {
			return where, 0
		}
		return fmt.Sprintf("%s record %d", where, pos[i]+1), base + int64(pos[i]) + 1
	}
	return p
}

// describe names a kind with its article ("a number", "null").
func describe(k connector.Kind) string {
	switch k {
	case connector.KindNull:
		return "null"
	case connector.KindInt, connector.KindFloat:
		return "a number"
	case connector.KindBool:
		return "a boolean"
	case connector.KindString:
		return "a string"
	case connector.KindArray:
		return "an array"
	}
	return "an object"
}
