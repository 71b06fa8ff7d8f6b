package config

import (
	"sort"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// varsPass resolves the `vars:` block (vars may reference vars; a cycle is
// an error) and substitutes `${vars.NAME[.path]}` into every connector
// config. Vars are always substituted as text, as the original does, so a
// connector that accepted a var there still accepts it.
type varsPass struct {
	errs     *errList
	raw      map[string]*node
	order    []string
	done     map[string]bool
	visiting []string
	pos      map[string]Pos
}

// errReported stops a substitution whose cause was already reported.
var errReported = msgError("(reported)")

func resolveVars(errs *errList, root *node) (connector.Value, *varsPass) {
	vp := &varsPass{errs: errs, raw: map[string]*node{}, done: map[string]bool{}, pos: map[string]Pos{}}
	f, ok := root.get("vars")
	if !ok || f.val.kind != connector.KindObject {
		return connector.Null(), vp
	}
	for _, g := range f.val.fields {
		vp.raw[g.key] = g.val
		vp.pos[g.key] = g.keyPos
		vp.order = append(vp.order, g.key)
	}
	for _, name := range vp.order {
		vp.resolveVar(name)
	}
	return f.val.value(), vp
}

func (vp *varsPass) resolveVar(name string) bool {
	if vp.done[name] {
		return true
	}
	for i, v := range vp.visiting {
		if v == name {
			chain := append(append([]string(nil), vp.visiting[i:]...), name)
			for j := range chain {
				chain[j] = "vars." + chain[j]
			}
			vp.errs.add(vp.pos[vp.visiting[i]], "vars."+vp.visiting[i], "interpolation cycle: %s", strings.Join(chain, " -> "))
			return false
		}
	}
	vp.visiting = append(vp.visiting, name)
	ok := vp.substitute(vp.raw[name], "vars."+name, true)
	vp.visiting = vp.visiting[:len(vp.visiting)-1]
	vp.done[name] = true
	return ok
}

// substitute rewrites `${vars.X}` in the string values of n (keys are left
// alone). inVars resolves referenced vars on demand.
func (vp *varsPass) substitute(n *node, path string, inVars bool) bool {
	switch n.kind {
	case connector.KindString:
		s := n.scalar.AsString()
		if !strings.Contains(s, "${") {
			return true
		}
		out, err := rewrite(s, func(body string) (string, bool, error) {
			id, rest, load := directive(body)
			if load || id != "vars" {
				return "", false, nil
			}
			return vp.lookup(body, rest, inVars)
		})
		if err != nil {
			if err != errReported {
				vp.errs.add(n.pos, path, "%v", err)
			}
			return false
		}
		n.scalar = connector.String(out)
	case connector.KindArray:
		ok := true
		for i, it := range n.items {
			ok = vp.substitute(it, indexPath(path, i), inVars) && ok
		}
		return ok
	case connector.KindObject:
		ok := true
		for _, f := range n.fields {
			ok = vp.substitute(f.val, joinPath(path, f.key), inVars) && ok
		}
		return ok
	}
	return true
}

func (vp *varsPass) lookup(body, rest string, inVars bool) (string, bool, error) {
	tok := "${" + body + "}"
	if rest == "" {
		return "", false, msgError(tok + " is missing a var name: write ${vars.NAME}")
	}
	segs := strings.Split(rest, ".")
	raw, ok := vp.raw[segs[0]]
	if !ok {
		names := append([]string(nil), vp.order...)
		sort.Strings(names)
		if len(names) == 0 {
			return "", false, msgError(tok + " refers to an unknown var: this config has no vars: block")
		}
		return "", false, msgError(tok + " refers to an unknown var (declared: " + strings.Join(names, ", ") + ")")
	}
	if inVars && !vp.done[segs[0]] {
		if !vp.resolveVar(segs[0]) {
			return "", false, errReported
		}
	}
	v := raw.value()
	if len(segs) > 1 {
		if v.Kind() != connector.KindObject {
			return "", false, msgError(tok + ": var \"" + segs[0] + "\" is not an object")
		}
		var found bool
		v, found = v.AsObject().Lookup(segs[1:])
		if !found {
			return "", false, msgError(tok + ": var \"" + segs[0] + "\" has no field " + strings.Join(segs[1:], "."))
		}
	}
	return v.Text(), true, nil
}
