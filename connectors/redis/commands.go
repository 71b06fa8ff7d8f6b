package redis

import (
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

// streamFallbackField holds the whole record as JSON when an XADD would
// otherwise have no field (faucet-cli 1.x's name).
const streamFallbackField = "_data"

// commands builds one command per record, checking every record first.
// List: RPUSH key <record JSON>; Stream: XADD key * field value ...;
// KeyValue: SET <key_prefix><key> <record JSON> [EX ttl].
func (s *Sink) commands(recs []connector.Record) ([][]any, error) {
	out := make([][]any, len(recs))
	for i, r := range recs {
		switch s.st.Type {
		case modeList:
			out[i] = []any{"RPUSH", s.st.Key, connector.AppendRecordJSON(nil, r)}
		case modeStream:
			out[i] = s.xadd(r)
		default:
			key, err := s.recordKey(r)
			if err != nil {
				return nil, fmt.Errorf("redis: record %d of the page: %w", i+1, err)
			}
			cmd := []any{"SET", s.st.KeyPrefix + key, connector.AppendRecordJSON(nil, r)}
			if s.st.TTL > 0 {
				cmd = append(cmd, "EX", s.st.TTL)
			}
			out[i] = cmd
		}
	}
	return out, nil
}

// xadd maps a record to an entry: the configured fields (a missing or
// null path is left out) or every top-level field; strings as they are,
// other values as JSON.
func (s *Sink) xadd(r connector.Record) []any {
	cmd := []any{"XADD", s.st.Key, "*"}
	if len(s.fieldNames) > 0 {
		for i, name := range s.fieldNames {
			if v, ok := r.Lookup(s.fieldPaths[i]); ok && !v.IsNull() {
				cmd = append(cmd, name, fieldText(v))
			}
		}
	} else {
		for _, f := range r.Fields {
			cmd = append(cmd, f.Key, fieldText(f.Value))
		}
	}
	if len(cmd) == 3 {
		cmd = append(cmd, streamFallbackField, connector.AppendRecordJSON(nil, r))
	}
	return cmd
}

// fieldText is a stream field's text: a string as it is, anything else as
// its JSON (so the redis source reads back the same value).
func fieldText(v connector.Value) string {
	if v.Kind() == connector.KindString {
		return v.AsString()
	}
	return string(connector.AppendJSON(nil, v))
}

// recordKey is the Redis key of a record under KeyValue: the value of
// key_field (a top-level field of that exact name, else the dotted path).
func (s *Sink) recordKey(r connector.Record) (string, error) {
	v, ok := r.Get(s.st.KeyField)
	if !ok && len(s.keyPath) > 1 {
		v, ok = r.Lookup(s.keyPath)
	}
	switch {
	case !ok || v.IsNull():
		return "", fmt.Errorf("key_field %q is missing or null", s.st.KeyField)
	case v.Kind() == connector.KindString && v.AsString() == "":
		return "", fmt.Errorf("key_field %q is an empty string", s.st.KeyField)
	case v.Kind() == connector.KindString:
		return v.AsString(), nil
	}
	return string(connector.AppendJSON(nil, v)), nil
}
