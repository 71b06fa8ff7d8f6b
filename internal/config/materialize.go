package config

// eachComponent calls fn for every component spec of the document.
func (doc *Document) eachComponent(fn func(c *ComponentSpec)) {
	p := &doc.Pipeline
	conn := func(s *ConnectorSpec) {
		if s == nil {
			return
		}
		fn(&s.ComponentSpec)
		for i := range s.Transforms {
			fn(&s.Transforms[i])
		}
	}
	conn(p.Source)
	conn(p.Sink)
	for i := range p.Sources {
		conn(&p.Sources[i].Spec)
	}
	for i := range p.Sinks {
		conn(&p.Sinks[i].Spec)
	}
	for i := range p.Transforms {
		fn(&p.Transforms[i])
	}
	if p.State != nil {
		fn(p.State)
	}
	if p.DLQ != nil {
		fn(&p.DLQ.Sink)
	}
	for i := range doc.Matrix {
		r := &doc.Matrix[i]
		for j := range r.Transforms {
			fn(&r.Transforms[j])
		}
		if r.State != nil {
			fn(r.State)
		}
		if r.DLQ != nil {
			fn(&r.DLQ.Sink)
		}
	}
}

// materialize turns every config subtree into its connector.Value once the
// vars pass has rewritten the tree.
func (doc *Document) materialize() {
	doc.eachComponent(func(c *ComponentSpec) {
		if c.cfg != nil {
			c.Config.Value = c.cfg.value()
			c.cfg = nil
		}
	})
	for i := range doc.Matrix {
		r := &doc.Matrix[i]
		for _, p := range []*PartialConnector{r.Source, r.Sink} {
			if p != nil && p.cfg != nil {
				*p.Config = p.cfg.value()
				p.cfg = nil
			}
		}
	}
}
