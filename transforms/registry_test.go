package transforms

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

var builtins = []string{
	"cast", "cdc_unwrap", "coalesce", "drop", "filter", "flatten", "hash", "join", "json_encode", "json_parse",
	"keys_case", "lookup", "redact", "rename_field", "rename_keys", "select", "set", "spell_symbols", "split", "value_case",
}

func TestAllRegisteredWithSchema(t *testing.T) {
	for _, name := range builtins {
		spec, err := connector.Default.Transform(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if spec.Summary == "" || !strings.HasSuffix(spec.Summary, ".") {
			t.Errorf("%s: summary %q should be a sentence", name, spec.Summary)
		}
		schema := connector.SchemaOf(spec.Config)
		props, _ := schema["properties"].(map[string]any)
		if len(props) == 0 {
			t.Errorf("%s: schema has no properties: %v", name, schema)
		}
		for key, p := range props {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s: config key %s has no doc", name, key)
			}
		}
		if _, err := json.Marshal(schema); err != nil {
			t.Errorf("%s: schema does not marshal: %v", name, err)
		}
	}
}

// A config that is not an object is refused by every transform.
func TestConfigMustBeAnObject(t *testing.T) {
	for _, name := range builtins {
		_, err := build(t, name, `[1]`)
		if err == nil || err.Error() != "t: must be an object, got array" {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestSchemaDefaults(t *testing.T) {
	for _, c := range []struct{ transform, key string }{
		{"flatten", "separator"}, {"cast", "on_error"}, {"hash", "algorithm"}, {"hash", "encoding"}, {"json_parse", "on_error"},
	} {
		spec, _ := connector.Default.Transform(c.transform)
		props := connector.SchemaOf(spec.Config)["properties"].(map[string]any)
		if _, ok := props[c.key].(map[string]any)["default"]; !ok {
			t.Errorf("%s.%s: schema has no default", c.transform, c.key)
		}
	}
}
