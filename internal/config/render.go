package config

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/redact"
)

// Redacted renders the resolved document (after interpolation, params and
// vars) in its own syntax with every registered secret replaced by ***,
// for `validate --show` and logs. Key order is kept.
func (d *Document) Redacted() []byte {
	v := redactValue(d.root.value())
	if d.Format == FormatJSON {
		var buf bytes.Buffer
		if err := json.Indent(&buf, connector.AppendJSON(nil, v), "", "  "); err != nil {
			return connector.AppendJSON(nil, v)
		}
		buf.WriteByte('\n')
		return buf.Bytes()
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(yamlNode(v)); err != nil {
		return connector.AppendJSON(nil, v)
	}
	_ = enc.Close()
	return buf.Bytes()
}

func redactValue(v connector.Value) connector.Value {
	switch v.Kind() {
	case connector.KindString:
		return connector.String(redact.String(v.AsString()))
	case connector.KindArray:
		a := v.AsArray()
		out := make([]connector.Value, len(a))
		for i := range a {
			out[i] = redactValue(a[i])
		}
		return connector.Array(out)
	case connector.KindObject:
		r := v.AsObject()
		out := connector.NewRecord(len(r.Fields))
		for _, f := range r.Fields {
			out.Fields = append(out.Fields, connector.Field{Key: redact.String(f.Key), Value: redactValue(f.Value)})
		}
		return connector.Object(out)
	}
	return v
}

func yamlNode(v connector.Value) *yaml.Node {
	switch v.Kind() {
	case connector.KindNull:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case connector.KindBool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v.Text()}
	case connector.KindInt:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: v.Text()}
	case connector.KindFloat:
		f := v.AsFloat()
		s := strconv.FormatFloat(f, 'g', -1, 64)
		switch {
		case math.IsNaN(f):
			s = ".nan"
		case math.IsInf(f, 1):
			s = ".inf"
		case math.IsInf(f, -1):
			s = "-.inf"
		case !bytes.ContainsAny([]byte(s), ".eE"):
			s += ".0"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
	case connector.KindString:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v.AsString()}
	case connector.KindArray:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range v.AsArray() {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, f := range v.AsObject().Fields {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.Key}, yamlNode(f.Value))
	}
	return n
}
