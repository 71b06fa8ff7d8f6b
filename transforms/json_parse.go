package transforms

import (
	"fmt"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "json_parse",
		Summary: "Parse string fields holding JSON into nested values.",
		Config:  &jsonParseConfig{},
		New:     newJSONParse,
	})
}

type jsonParseConfig struct {
	Fields  []string `json:"fields" required:"true" doc:"Top-level fields holding JSON text. Non-string values pass through unchanged."`
	OnError string   `json:"on_error" default:"keep" enum:"keep,null,error" doc:"On text that is not JSON: keep leaves the string, null writes null, error fails the record."`
	Into    string   `json:"into" doc:"Write the parsed value to this field and keep the source (only with exactly one field)."`
}

func (c *jsonParseConfig) Validate() error {
	if err := checkFields("fields", c.Fields); err != nil {
		return err
	}
	if c.Into != "" && len(c.Fields) != 1 {
		return connector.ConfigErrorf("into", "is only valid with exactly one field, got %d", len(c.Fields))
	}
	return nil
}

type jsonParse struct {
	fields  []string
	onError string
	into    string
}

func newJSONParse(cfg connector.Config) (connector.Transform, error) {
	var c jsonParseConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &jsonParse{fields: c.Fields, onError: c.OnError, into: c.Into}, nil
}

func (t *jsonParse) Apply(r *connector.Record) (bool, error) {
	for _, f := range t.fields {
		v, ok := r.Get(f)
		if !ok || v.Kind() != connector.KindString {
			continue
		}
		target := f
		if t.into != "" {
			target = t.into
		}
		parsed, err := connector.ParseJSON([]byte(v.AsString()))
		if err == nil {
			r.Set(target, parsed)
			continue
		}
		switch t.onError {
		case "null":
			r.Set(target, connector.Null())
		case "error":
			return false, fmt.Errorf("json_parse: field %s is not valid JSON: %w", quote(f), err)
		}
	}
	return true, nil
}
