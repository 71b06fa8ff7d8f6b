package config

import (
	"errors"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Check expands the document and builds every source, sink, transform and
// DLQ sink through reg (New does no I/O), so unknown kinds and invalid
// connector configs are reported with their file, line and column. State
// stores are left to the engine, which owns their kinds. All problems are
// reported, each once.
func (d *Document) Check(reg *connector.Registry) error {
	errs := newErrList(d.File)
	invs := d.expand(errs)
	if errs.len() > 0 {
		// The rows cannot be built; still check the templates they would
		// be built from, so every problem shows at once.
		d.checkTemplates(errs, reg)
		return errs.err()
	}
	for i := range invs {
		inv, err := finalize(invs[i], d.clock)
		if err != nil {
			errs.add(invs[i].Pos, "", "%v", err)
			continue
		}
		invs[i] = inv
	}
	for i := range invs {
		inv := &invs[i]
		d.checkComponent(errs, reg, "source", &inv.Source)
		d.checkComponent(errs, reg, "sink", &inv.Sink)
		for j := range inv.Transforms {
			d.checkComponent(errs, reg, "transform", &inv.Transforms[j])
		}
		if inv.DLQ != nil {
			d.checkComponent(errs, reg, "sink", &inv.DLQ.Sink)
		}
	}
	return errs.err()
}

func (d *Document) checkComponent(errs *errList, reg *connector.Registry, role string, c *ComponentSpec) {
	var err error
	switch role {
	case "source":
		var spec connector.SourceSpec
		if spec, err = reg.Source(c.Type); err == nil {
			_, err = safeNew(func() error { _, e := spec.New(c.Config); return e })
		}
	case "sink":
		var spec connector.SinkSpec
		if spec, err = reg.Sink(c.Type); err == nil {
			_, err = safeNew(func() error { _, e := spec.New(c.Config); return e })
		}
	case "transform":
		var spec connector.TransformSpec
		if spec, err = reg.Transform(c.Type); err == nil {
			_, err = safeNew(func() error { _, e := spec.New(c.Config); return e })
		}
	}
	if err == nil {
		return
	}
	var uk *connector.UnknownKindError
	if errors.As(err, &uk) {
		errs.add(c.TypePos, c.typePath, "%s", uk.Error())
		return
	}
	var ces connector.ConfigErrors
	if errors.As(err, &ces) {
		for _, ce := range ces {
			d.checkComponentError(errs, c, ce)
		}
		return
	}
	var ce *connector.ConfigError
	if errors.As(err, &ce) {
		d.checkComponentError(errs, c, ce)
		return
	}
	errs.add(d.pos.at(c.Config.Path), c.Config.Path, "%s %q: %v", role, c.Type, err)
}

// checkComponentError places one connector config error at its key.
func (d *Document) checkComponentError(errs *errList, c *ComponentSpec, ce *connector.ConfigError) {
	{
		abs := ce.Path
		if abs == "" {
			abs = c.Config.Path
		} else if ce.Path == c.Config.Path || strings.HasPrefix(ce.Path, c.Config.Path+".") || strings.HasPrefix(ce.Path, c.Config.Path+"[") {
			abs = c.origin(ce.Path[len(c.Config.Path):])
		}
		pos := d.pos.at(abs)
		if e, ok := d.pos[abs]; ok && strings.HasPrefix(ce.Msg, "unknown key") {
			pos = e.key
		}
		errs.add(pos, abs, "%s", ce.Msg)
	}
}

// safeNew runs a connector constructor, turning a panic into an error so
// one broken connector cannot crash validation.
func safeNew(fn func() error) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &connector.ConfigError{Msg: "connector panicked while checking its config: " + strings.TrimSpace(strings.ReplaceAll(sprint(r), "\n", " "))}
		}
	}()
	return true, fn()
}

// checkTemplates checks the components as declared under pipeline:, for
// when the matrix cannot be expanded.
func (d *Document) checkTemplates(errs *errList, reg *connector.Registry) {
	p := &d.Pipeline
	if p.Source != nil {
		d.checkComponent(errs, reg, "source", &p.Source.ComponentSpec)
	}
	if p.Sink != nil {
		d.checkComponent(errs, reg, "sink", &p.Sink.ComponentSpec)
	}
	for i := range p.Sources {
		d.checkComponent(errs, reg, "source", &p.Sources[i].Spec.ComponentSpec)
	}
	for i := range p.Sinks {
		d.checkComponent(errs, reg, "sink", &p.Sinks[i].Spec.ComponentSpec)
	}
	for i := range p.Transforms {
		d.checkComponent(errs, reg, "transform", &p.Transforms[i])
	}
	if p.DLQ != nil {
		d.checkComponent(errs, reg, "sink", &p.DLQ.Sink)
	}
}
