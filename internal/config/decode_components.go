package config

import (
	"math"

	"github.com/faucet-hq/faucet/connector"
)

// component decodes `{type, config}`. Other keys listed in k.known are
// left for the caller (connectorSpec reads transforms and
// inherit_transforms); any other key is an error.
func (d *structDec) component(n *node, path string, k keys) (ComponentSpec, bool) {
	c := ComponentSpec{Pos: n.pos, typePath: joinPath(path, "type")}
	if n.isNull() {
		d.errs.add(n.pos, path, "expected an object with type and config, got null")
		return c, false
	}
	if !d.object(n, path) {
		return c, false
	}
	ok := true
	var cfg *node
	var typeSeen bool
	for _, f := range n.fields {
		fp := joinPath(path, f.key)
		switch f.key {
		case "type":
			typeSeen = true
			c.TypePos = f.val.pos
			t, good := d.nonEmptyStr(f.val, fp)
			c.Type, ok = t, ok && good
		case "config":
			cfg = f.val
		default:
			if !contains(k.known, f.key) {
				d.unknown(f, path, k)
				ok = false
			}
		}
	}
	if !typeSeen {
		d.missing(n, path, "type")
		ok = false
	}
	cp := joinPath(path, "config")
	c.Config.Path = cp
	c.Config.Value = connector.Object(connector.Record{})
	if cfg != nil && !cfg.isNull() {
		if cfg.kind != connector.KindObject {
			d.typeErr(cfg, cp, "an object")
			ok = false
		} else {
			c.cfg = cfg
			d.configs = append(d.configs, cfgRef{n: cfg, path: cp})
		}
	}
	return c, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *structDec) connectorSpec(n *node, path string) (ConnectorSpec, bool) {
	s := ConnectorSpec{InheritTransforms: true}
	c, ok := d.component(n, path, connectorKeys)
	s.ComponentSpec = c
	if n.isNull() || n.kind != connector.KindObject {
		return s, false
	}
	for _, f := range n.fields {
		fp := joinPath(path, f.key)
		switch f.key {
		case "transforms":
			s.Transforms = d.transforms(f.val, fp)
			s.transformsSet, s.transformsPos = true, f.keyPos
		case "inherit_transforms":
			if b, good := d.boolean(f.val, fp); good {
				s.InheritTransforms = b
				if !b && !s.transformsSet {
					s.transformsSet, s.transformsPos = true, f.keyPos
				}
			}
		}
	}
	return s, ok
}

func (d *structDec) transforms(n *node, path string) []ComponentSpec {
	if n.isNull() {
		return nil
	}
	if n.kind != connector.KindArray {
		d.typeErr(n, path, "a list of transforms")
		return nil
	}
	out := make([]ComponentSpec, 0, len(n.items))
	for i, it := range n.items {
		if c, ok := d.component(it, indexPath(path, i), componentKeys); ok {
			out = append(out, c)
		}
	}
	return out
}

func (d *structDec) dlq(n *node, path string) *DLQSpec {
	if !d.object(n, path) {
		return nil
	}
	q := &DLQSpec{IncludeOriginalPayload: true, OnBatchError: "propagate", Pos: n.pos}
	sinkSeen := false
	for _, f := range n.fields {
		fp := joinPath(path, f.key)
		switch f.key {
		case "sink":
			sinkSeen = true
			if s, ok := d.component(f.val, fp, componentKeys); ok {
				q.Sink = s
			}
		case "on_batch_error":
			if s, ok := d.enum(f.val, fp, "propagate", "dlq_all"); ok {
				q.OnBatchError = s
			}
		case "max_failures_total":
			if !f.val.isNull() {
				if v, ok := d.intRange(f.val, fp, 1, math.MaxInt64); ok {
					q.MaxFailuresTotal = v
				}
			}
		case "max_failures_per_page":
			if !f.val.isNull() {
				if v, ok := d.intRange(f.val, fp, 1, math.MaxInt64); ok {
					q.MaxFailuresPerPage = v
				}
			}
		case "include_original_payload":
			q.IncludeOriginalPayload, _ = d.boolean(f.val, fp)
		default:
			d.unknown(f, path, dlqKeys)
		}
	}
	if !sinkSeen {
		d.missing(n, path, "sink")
	}
	return q
}
