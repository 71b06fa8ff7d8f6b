package all

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestRegistered(t *testing.T) {
	for _, name := range []string{"csv", "jsonl", "json"} {
		spec, err := connector.Default.Source(name)
		if err != nil {
			t.Errorf("source %s: %v", name, err)
			continue
		}
		if spec.Summary == "" || spec.Config == nil || spec.New == nil {
			t.Errorf("source %s: incomplete spec %+v", name, spec)
		}
		if s := connector.SchemaOf(spec.Config); s["properties"].(map[string]any)["path"] == nil {
			t.Errorf("source %s: schema has no path: %v", name, s)
		}
	}
	for _, name := range []string{"csv", "jsonl", "stdout"} {
		spec, err := connector.Default.Sink(name)
		if err != nil {
			t.Errorf("sink %s: %v", name, err)
			continue
		}
		if spec.Summary == "" || spec.Config == nil || spec.New == nil {
			t.Errorf("sink %s: incomplete spec", name)
		}
	}
}
