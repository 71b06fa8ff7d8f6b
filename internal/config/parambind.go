package config

import (
	"sort"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/redact"
)

// bindParams decides each declared param's value: supplied, else default,
// else (placeholder mode) a typed placeholder, else an error. A param that
// fails still gets a placeholder so one mistake does not cascade into type
// errors wherever it is used.
func bindParams(errs *errList, specs []ParamSpec, paramsPos Pos, opts Options) (map[string]connector.Value, map[string]bool) {
	failed := map[string]bool{}
	declared := map[string]bool{}
	names := make([]string, 0, len(specs))
	for _, p := range specs {
		declared[p.Name] = true
		names = append(names, p.Name)
	}
	supplied := make([]string, 0, len(opts.Params))
	for name := range opts.Params {
		supplied = append(supplied, name)
	}
	sort.Strings(supplied)
	for _, name := range supplied {
		if declared[name] {
			continue
		}
		if len(names) == 0 {
			errs.add(paramsPos, "params", "unknown param %q was supplied: this config declares no params", name)
		} else {
			errs.add(paramsPos, "params", "unknown param %q was supplied (declared: %s)", name, strings.Join(names, ", "))
		}
	}
	out := make(map[string]connector.Value, len(specs))
	for _, p := range specs {
		path := joinPath("params", p.Name)
		v := placeholder(p)
		if raw, ok := opts.Params[p.Name]; ok {
			if strings.Contains(raw, "${") {
				errs.add(p.Pos, path, "the value supplied for param %q contains \"${\": param values are literal data, not interpolated", p.Name)
				failed[p.Name] = true
			} else if cv, want := coerceParam(p, raw); want != "" {
				shown := strconv.Quote(raw)
				if p.Secret {
					shown = redact.Mask
				}
				errs.add(p.Pos, path, "the value %s supplied for param %q is not %s", shown, p.Name, want)
				failed[p.Name] = true
			} else {
				v = cv
			}
		} else if p.Default != nil {
			v = *p.Default
		} else if p.Required && !opts.Placeholders {
			msg := "required param %q was not supplied (pass --param %s=VALUE)"
			if p.Description != "" {
				msg += ": " + p.Description
			}
			errs.add(p.Pos, path, msg, p.Name, p.Name)
			failed[p.Name] = true
		} else if !opts.Placeholders {
			// Optional, no default, not supplied: unbound. Referencing it
			// is an error (see lookupParam). The original treated every
			// param without a default as required; an optional param
			// that nothing references should not fail a run.
			continue
		}
		if p.Secret {
			redact.Add(v.Text())
		}
		out[p.Name] = v
	}
	return out, failed
}

// substituteParams replaces `${param.NAME}` everywhere except inside the
// top-level `params:` block: typed when a string is exactly the token,
// stringified when embedded (and in keys).
func substituteParams(errs *errList, n *node, path string, bound map[string]connector.Value, names []string, failed map[string]bool) *node {
	switch n.kind {
	case connector.KindString:
		s := n.scalar.AsString()
		if !strings.Contains(s, "${") {
			return n
		}
		for _, t := range tokens(s) {
			if id, rest, load := directive(t.body); !load && id == "param" && failed[rest] {
				errs.quiet[n.pos] = true
			}
		}
		if body, ok := wholeToken(s); ok {
			if id, rest, load := directive(body); !load && id == "param" {
				v, err := lookupParam(rest, body, bound, names)
				if err != "" {
					errs.add(n.pos, path, "%s", err)
					return n
				}
				return fromValue(v, n.pos)
			}
		}
		out, err := rewriteParams(s, bound, names)
		if err != nil {
			errs.add(n.pos, path, "%v", err)
			return n
		}
		n.scalar = connector.String(out)
	case connector.KindArray:
		for i, it := range n.items {
			n.items[i] = substituteParams(errs, it, indexPath(path, i), bound, names, failed)
		}
	case connector.KindObject:
		for i := range n.fields {
			f := &n.fields[i]
			if path == "" && f.key == "params" {
				continue
			}
			if k, err := rewriteParams(f.key, bound, names); err != nil {
				errs.add(f.keyPos, joinPath(path, f.key), "%v", err)
			} else {
				f.key = k
			}
			f.val = substituteParams(errs, f.val, joinPath(path, f.key), bound, names, failed)
		}
	}
	return n
}

type msgError string

func rewriteParams(s string, bound map[string]connector.Value, names []string) (string, error) {
	return rewrite(s, func(body string) (string, bool, error) {
		id, rest, load := directive(body)
		if load || id != "param" {
			return "", false, nil
		}
		v, err := lookupParam(rest, body, bound, names)
		if err != "" {
			return "", false, msgError(err)
		}
		return v.Text(), true, nil
	})
}

func lookupParam(name, body string, bound map[string]connector.Value, names []string) (connector.Value, string) {
	tok := "${" + body + "}"
	if name == "" {
		return connector.Value{}, tok + " is missing a param name: write ${param.NAME}"
	}
	if strings.Contains(name, ".") {
		return connector.Value{}, tok + " is not a valid param reference: params are scalars, write ${param.NAME}"
	}
	v, ok := bound[name]
	if !ok {
		for _, n := range names {
			if n == name {
				return connector.Value{}, tok + ": param \"" + name + "\" is optional, has no default and was not supplied"
			}
		}
		if len(names) == 0 {
			return connector.Value{}, tok + " refers to an undeclared param: this config declares no params"
		}
		return connector.Value{}, tok + " refers to an undeclared param (declared: " + strings.Join(names, ", ") + ")"
	}
	return v, ""
}

// RedactedParamValues returns the bound param values with every secret
// param shown as *** (for API responses, audit records and logs).
func (d *Document) RedactedParamValues() map[string]connector.Value {
	out := make(map[string]connector.Value, len(d.ParamValues))
	secret := map[string]bool{}
	for _, p := range d.Params {
		secret[p.Name] = p.Secret
	}
	for k, v := range d.ParamValues {
		if secret[k] {
			v = connector.String(redact.Mask)
		}
		out[k] = v
	}
	return out
}
