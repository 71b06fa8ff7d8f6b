package config

import (
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// templateRefs resolves `${sources.NAME.PATH}` and `${sinks.NAME.PATH}` in
// connector configs: a dotted lookup into a source or sink template as
// written (after vars), numeric segments indexing lists. The legacy
// pipeline.source / pipeline.sink are the templates named "default". A
// value that itself holds such a reference is followed, with cycle
// detection. The value is substituted as text.
type templateRefs struct {
	errs *errList
	root *node
}

func (tr *templateRefs) substitute(n *node, path string) {
	switch n.kind {
	case connector.KindString:
		s := n.scalar.AsString()
		if !strings.Contains(s, "${sources") && !strings.Contains(s, "${sinks") {
			return
		}
		out, err := tr.resolveString(s, nil)
		if err != nil {
			tr.errs.add(n.pos, path, "%v", err)
			return
		}
		n.scalar = connector.String(out)
	case connector.KindArray:
		for i, it := range n.items {
			tr.substitute(it, indexPath(path, i))
		}
	case connector.KindObject:
		for _, f := range n.fields {
			tr.substitute(f.val, joinPath(path, f.key))
		}
	}
}

func (tr *templateRefs) resolveString(s string, visiting []string) (string, error) {
	return rewrite(s, func(body string) (string, bool, error) {
		id, rest, load := directive(body)
		if load || (id != "sources" && id != "sinks") {
			return "", false, nil
		}
		tok := "${" + body + "}"
		for i, v := range visiting {
			if v == tok {
				return "", false, msgError("interpolation cycle: " + strings.Join(append(visiting[i:], tok), " -> "))
			}
		}
		v, err := tr.lookup(id, rest, tok)
		if err != nil {
			return "", false, err
		}
		if v.kind == connector.KindString {
			out, err := tr.resolveString(v.scalar.AsString(), append(visiting, tok))
			return out, err == nil, err
		}
		return v.value().Text(), true, nil
	})
}

func (tr *templateRefs) lookup(id, rest, tok string) (*node, error) {
	segs := strings.Split(rest, ".")
	if rest == "" || len(segs) < 2 || segs[0] == "" {
		return nil, msgError(tok + " needs a template name and a path: write ${" + id + ".NAME.config.KEY}")
	}
	name := segs[0]
	tmpl := tr.template(id, name)
	if tmpl == nil {
		return nil, msgError(tok + " refers to an unknown " + strings.TrimSuffix(id, "s") + " template \"" + name + "\"")
	}
	cur := tmpl
	for _, seg := range segs[1:] {
		switch cur.kind {
		case connector.KindObject:
			f, ok := cur.get(seg)
			if !ok {
				return nil, msgError(tok + ": template \"" + name + "\" has no " + strings.Join(segs[1:], "."))
			}
			cur = f.val
		case connector.KindArray:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(cur.items) {
				return nil, msgError(tok + ": template \"" + name + "\" has no " + strings.Join(segs[1:], "."))
			}
			cur = cur.items[i]
		default:
			return nil, msgError(tok + ": template \"" + name + "\" has no " + strings.Join(segs[1:], "."))
		}
	}
	return cur, nil
}

func (tr *templateRefs) template(id, name string) *node {
	p, ok := tr.root.get("pipeline")
	if !ok {
		return nil
	}
	if m, ok := p.val.get(id); ok {
		if t, ok := m.val.get(name); ok {
			return t.val
		}
	}
	if name == "default" {
		if t, ok := p.val.get(strings.TrimSuffix(id, "s")); ok {
			return t.val
		}
	}
	return nil
}
