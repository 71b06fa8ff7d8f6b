package config

import (
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// Invocation is one matrix row made concrete: the source, sink, transform
// chain, state store and DLQ it runs with.
type Invocation struct {
	ID         string
	Source     ComponentSpec
	Sink       ComponentSpec
	Transforms []ComponentSpec
	State      *ComponentSpec // nil: no durable state
	DLQ        *DLQSpec       // nil: no DLQ
	DependsOn  []string
	StateKey   string // {name}::{row_id}
	Delivery   Delivery
	Pos        Pos // the matrix row (or the pipeline block for the anonymous row)
}

// reservedIDs cannot be row ids: they are the ids of interpolation tokens.
// (vars, sources and sinks are reserved here too, although the original
// did not reserve them, since a row with that id could never be referenced.)
var reservedIDs = []string{"env", "file", "secret", "matrix", "pipeline", "now", "backfill", "param",
	"partition", "bookmark", "job_id", "window", "vars", "sources", "sinks"}

// Expand turns the matrix into invocations (an empty matrix is one row,
// "row-0") in level order: first every row with no depends_on, then the
// rows whose dependencies are all in earlier levels, and so on, declaration
// order within a level. `${now.*}` in source and sink configs is resolved
// with the load's run clock (Options.Clock) and `$${` escapes become `${`:
// invocation configs are final, the Document's own configs are not.
func (d *Document) Expand() ([]Invocation, error) {
	return d.ExpandAt(d.clock)
}

// ExpandAt is Expand with `${now.*}` resolved against clock: a scheduler
// or backfill that needs a fresh clock per invocation calls it per tick.
func (d *Document) ExpandAt(clock time.Time) ([]Invocation, error) {
	errs := newErrList(d.File)
	invs := d.expand(errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	for i := range invs {
		inv, err := finalize(invs[i], clock)
		if err != nil {
			errs.add(inv.Pos, "", "%v", err)
			continue
		}
		invs[i] = inv
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return invs, nil
}

func (d *Document) expand(errs *errList) []Invocation {
	rows := d.Matrix
	if len(rows) == 0 {
		rows = []MatrixRow{{ID: "row-0", InheritTransforms: true, Pos: d.Pipeline.Pos, idPos: d.Pipeline.Pos}}
	}
	d.checkGraph(errs, rows)
	name := d.PipelineName()
	invs := make([]Invocation, 0, len(rows))
	for i := range rows {
		row := &rows[i]
		path := "pipeline"
		if len(d.Matrix) > 0 {
			path = indexPath("matrix", i)
		}
		inv := Invocation{ID: row.ID, DependsOn: row.DependsOn, Pos: row.Pos, Delivery: d.Delivery,
			StateKey: name + "::" + row.ID}
		if row.Delivery != "" {
			inv.Delivery = row.Delivery
		}
		src, srcOK := d.resolveConnector(errs, row.Source, "source", path)
		snk, snkOK := d.resolveConnector(errs, row.Sink, "sink", path)
		if !srcOK || !snkOK {
			continue
		}
		inv.Source, inv.Sink = src.ComponentSpec, snk.ComponentSpec

		// Transforms: pipeline ++ source template ++ row.
		if row.InheritTransforms {
			if src.InheritTransforms {
				inv.Transforms = append(inv.Transforms, d.Pipeline.Transforms...)
			}
			inv.Transforms = append(inv.Transforms, src.Transforms...)
		}
		inv.Transforms = append(inv.Transforms, row.Transforms...)

		inv.State = d.Pipeline.State
		if row.State != nil {
			inv.State = row.State
		}
		inv.DLQ = d.Pipeline.DLQ
		if row.DLQSet {
			inv.DLQ = row.DLQ
		}
		if inv.State != nil {
			d.checkStateKey(errs, inv.StateKey, row)
		}
		d.checkTokens(errs, &inv)
		invs = append(invs, inv)
	}
	return topoOrder(invs)
}

// templates returns the source or sink templates, the legacy singular one
// as "default" first.
func (d *Document) templates(role string) []NamedConnector {
	var legacy *ConnectorSpec
	var named []NamedConnector
	if role == "source" {
		legacy, named = d.Pipeline.Source, d.Pipeline.Sources
	} else {
		legacy, named = d.Pipeline.Sink, d.Pipeline.Sinks
	}
	var out []NamedConnector
	if legacy != nil {
		out = append(out, NamedConnector{Name: "default", Spec: *legacy})
	}
	return append(out, named...)
}

func (d *Document) resolveConnector(errs *errList, p *PartialConnector, role, rowPath string) (ConnectorSpec, bool) {
	ref, refPos, refPath := "default", Pos{}, joinPath(rowPath, role)
	if p != nil && p.Ref != "" {
		ref, refPos, refPath = p.Ref, p.RefPos, p.path+".ref"
	}
	all := d.templates(role)
	var tmpl *ConnectorSpec
	names := make([]string, 0, len(all))
	for i := range all {
		names = append(names, all[i].Name)
		if all[i].Name == ref && tmpl == nil {
			tmpl = &all[i].Spec
		}
	}
	if tmpl == nil {
		switch {
		case p != nil && p.Ref != "":
			known := "none are defined"
			if len(names) > 0 {
				known = "known: " + strings.Join(names, ", ")
			}
			errs.add(refPos, refPath, "unknown %s template %q (%s)", role, ref, known)
		case rowPath == "pipeline":
			errs.add(d.Pipeline.Pos, "pipeline."+role, "required key is missing (a pipeline needs a %s; named pipeline.%ss are picked by matrix rows with ref:)", role, role)
		default:
			at := d.pos.at(rowPath)
			if p != nil {
				at = p.Pos
			}
			errs.add(at, refPath, "no %s template %q: set pipeline.%s or give the row %s.ref", role, "default", role, role)
		}
		return ConnectorSpec{}, false
	}
	out := *tmpl
	if p == nil {
		return out, true
	}
	if p.Type != "" {
		out.Type, out.TypePos, out.typePath = p.Type, p.TypePos, p.path+".type"
	}
	if p.Config != nil {
		origins := map[string]string{}
		out.Config = connector.Config{
			Path:  p.path + ".config",
			Value: deepMerge(tmpl.Config.Value, tmpl.Config.Path, *p.Config, p.path+".config", origins),
		}
		out.origins = origins
	}
	return out, true
}

// RowIDs lists the ids of the expanded rows in declaration order.
func (d *Document) RowIDs() []string {
	if len(d.Matrix) == 0 {
		return []string{"row-0"}
	}
	out := make([]string, len(d.Matrix))
	for i, r := range d.Matrix {
		out[i] = r.ID
	}
	return out
}
