package config

import (
	"gopkg.in/yaml.v3"

	"github.com/faucet-hq/faucet/connector"
)

// maxNodes bounds the size of a parsed document after alias expansion, so a
// "billion laughs" document cannot exhaust memory.
const maxNodes = 200_000

// maxDepth bounds nesting so deeply nested input cannot exhaust the stack.
const maxDepth = 200

type converter struct {
	errs  *errList
	count int
	over  bool
}

func ypos(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

func (c *converter) convert(y *yaml.Node, depth int) *node {
	if c.over {
		return nil
	}
	c.count++
	if c.count > maxNodes || depth > maxDepth {
		c.over = true
		c.errs.add(ypos(y), "", "the document is too large or too deeply nested (aliases expand to more than %d values or %d levels)", maxNodes, maxDepth)
		return nil
	}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			c.errs.add(ypos(y), "", "invalid YAML: unknown alias")
			return nil
		}
		n := c.convert(y.Alias, depth+1)
		return n
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &node{kind: connector.KindNull, pos: ypos(y)}
		}
		return c.convert(y.Content[0], depth+1)
	case yaml.SequenceNode:
		n := &node{kind: connector.KindArray, pos: ypos(y), items: make([]*node, 0, len(y.Content))}
		for _, it := range y.Content {
			v := c.convert(it, depth+1)
			if v == nil {
				return nil
			}
			n.items = append(n.items, v)
		}
		return n
	case yaml.MappingNode:
		return c.mapping(y, depth)
	case yaml.ScalarNode:
		return c.scalar(y)
	}
	c.errs.add(ypos(y), "", "invalid YAML node")
	return nil
}

func (c *converter) mapping(y *yaml.Node, depth int) *node {
	n := &node{kind: connector.KindObject, pos: ypos(y)}
	seen := map[string]Pos{}
	var merges []*node
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			m := c.convert(v, depth+1)
			if m == nil {
				return nil
			}
			switch m.kind {
			case connector.KindObject:
				merges = append(merges, m)
			case connector.KindArray:
				for _, it := range m.items {
					if it.kind != connector.KindObject {
						c.errs.add(ypos(v), "", "invalid YAML: a merge key (<<) takes a mapping or a list of mappings")
						return nil
					}
					merges = append(merges, it)
				}
			default:
				c.errs.add(ypos(v), "", "invalid YAML: a merge key (<<) takes a mapping or a list of mappings")
				return nil
			}
			continue
		}
		if k.Kind != yaml.ScalarNode {
			c.errs.add(ypos(k), "", "keys must be plain strings, not lists or mappings")
			return nil
		}
		key := k.Value
		if first, dup := seen[key]; dup {
			c.errs.add(ypos(k), "", "duplicate key %q (first defined at %d:%d)", key, first.Line, first.Col)
			continue
		}
		seen[key] = ypos(k)
		val := c.convert(v, depth+1)
		if val == nil {
			return nil
		}
		n.fields = append(n.fields, field{key: key, keyPos: ypos(k), val: val})
	}
	// Merged keys come after the explicit ones and never override them; an
	// earlier merge source wins over a later one (YAML merge-key rules).
	for _, m := range merges {
		for _, f := range m.fields {
			if _, ok := seen[f.key]; ok {
				continue
			}
			seen[f.key] = f.keyPos
			n.fields = append(n.fields, f)
		}
	}
	return n
}

func (c *converter) scalar(y *yaml.Node) *node {
	n := &node{pos: ypos(y)}
	switch y.ShortTag() {
	case "!!null":
		n.kind = connector.KindNull
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			c.errs.add(n.pos, "", "invalid boolean %q", y.Value)
			return nil
		}
		n.kind, n.scalar = connector.KindBool, connector.Bool(b)
	case "!!int":
		var x any
		if err := y.Decode(&x); err != nil {
			c.errs.add(n.pos, "", "invalid integer %q", y.Value)
			return nil
		}
		switch t := x.(type) {
		case int:
			n.kind, n.scalar = connector.KindInt, connector.Int(int64(t))
		case int64:
			n.kind, n.scalar = connector.KindInt, connector.Int(t)
		case uint64:
			n.kind, n.scalar = connector.KindFloat, connector.Float(float64(t))
		case float64:
			n.kind, n.scalar = connector.KindFloat, connector.Float(t)
		default:
			n.kind, n.scalar = connector.KindString, connector.String(y.Value)
		}
	case "!!float":
		var f float64
		if err := y.Decode(&f); err != nil {
			c.errs.add(n.pos, "", "invalid number %q", y.Value)
			return nil
		}
		n.kind, n.scalar = connector.KindFloat, connector.Float(f)
	case "!!str", "!!timestamp", "!!binary":
		n.kind, n.scalar = connector.KindString, connector.String(y.Value)
	default:
		c.errs.add(n.pos, "", "unsupported YAML tag %s (composition tags such as !include are not supported)", y.Tag)
		return nil
	}
	return n
}
