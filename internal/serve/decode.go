package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// decodeBody reads a JSON request body strictly: the body limit applies
// (413), malformed JSON is 400, a wrong type, an unknown field or trailing
// data is 422 (the original's extractor split: syntax 400, data 422).
func decodeBody(r *http.Request, dst any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return errBadRequest("cannot read request body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return errBadRequest("request body is empty (expected a JSON object)")
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return errBadRequest("malformed JSON body: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		msg := err.Error()
		var field string
		if strings.HasPrefix(msg, "json: unknown field ") {
			field = strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
			return errUnprocessable(map[string]string{"field": field}, "unknown field %q in request body", field)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return errUnprocessable(map[string]string{"field": te.Field}, "field %q: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return errUnprocessable(nil, "invalid request body: %s", strings.TrimPrefix(msg, "json: "))
	}
	if dec.More() {
		return errUnprocessable(nil, "invalid request body: trailing data after the JSON object")
	}
	return nil
}
