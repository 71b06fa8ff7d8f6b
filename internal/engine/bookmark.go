package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

// decodeBookmark reads a stored bookmark, keeping integers as integers.
func decodeBookmark(data []byte) (connector.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return connector.Value{}, fmt.Errorf("bookmark is not valid JSON: %w", err)
	}
	return connector.FromAny(numbers(x))
}

func numbers(x any) any {
	switch t := x.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []any:
		for i := range t {
			t[i] = numbers(t[i])
		}
	case map[string]any:
		for k, v := range t {
			t[k] = numbers(v)
		}
	}
	return x
}
