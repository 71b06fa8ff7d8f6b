package config

import (
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// passThroughIDs are deferred references that connectors render themselves.
var passThroughIDs = []string{"bookmark", "window", "job_id"}

// checkTokens validates the deferred `${id.path}` references left in the
// invocation's configs: `${now.*}` must be a known token and is only
// allowed in source and sink configs; references to unknown ids are errors
// in source and sink configs.
func (d *Document) checkTokens(errs *errList, inv *Invocation) {
	d.scanTokens(errs, &inv.Source, true)
	d.scanTokens(errs, &inv.Sink, true)
	for i := range inv.Transforms {
		d.scanTokens(errs, &inv.Transforms[i], false)
	}
	if inv.State != nil {
		d.scanTokens(errs, inv.State, false)
	}
	if inv.DLQ != nil {
		d.scanTokens(errs, &inv.DLQ.Sink, false)
	}
}

func (d *Document) scanTokens(errs *errList, c *ComponentSpec, runtimeOK bool) {
	walkStrings(c.Config.Value, "", func(rel, s string) {
		for _, t := range tokens(s) {
			id, rest, load := directive(t.body)
			if load {
				continue
			}
			abs := c.origin(rel)
			pos := d.pos.at(abs)
			switch {
			case id == "now":
				if !runtimeOK {
					errs.add(pos, abs, "%s is a runtime token: it is only allowed in source and sink configs", t.text)
				} else if _, err := NowToken(rest, time.Time{}); err != nil {
					errs.add(pos, abs, "%v", err)
				}
			case contains(passThroughIDs, id):
			case id == "env" || id == "file" || id == "secret":
				errs.add(pos, abs, "%s is not a valid reference: write ${%s:%s}", t.text, id, rest)
			case id == "partition" || id == "backfill":
				if runtimeOK {
					errs.add(pos, abs, "%s: ${%s.*} references are not supported by this version of faucet", t.text, id)
				}
			case d.isRowID(id):
				errs.add(pos, abs, "%s refers to row %q: parent/child rows are not supported by this version of faucet", t.text, id)
			default:
				if runtimeOK {
					errs.add(pos, abs, "%s refers to unknown id %q", t.text, id)
				}
			}
		}
	})
}

func (d *Document) isRowID(id string) bool {
	for _, r := range d.Matrix {
		if r.ID == id {
			return true
		}
	}
	return false
}

// walkStrings calls fn with every string value of v and its relative path.
func walkStrings(v connector.Value, rel string, fn func(rel, s string)) {
	switch v.Kind() {
	case connector.KindString:
		fn(rel, v.AsString())
	case connector.KindArray:
		for i, e := range v.AsArray() {
			walkStrings(e, indexPath(rel, i), fn)
		}
	case connector.KindObject:
		for _, f := range v.AsObject().Fields {
			walkStrings(f.Value, rel+"."+f.Key, fn)
		}
	}
}
