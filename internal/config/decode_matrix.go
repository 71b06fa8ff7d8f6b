package config

import (
	"strconv"

	"github.com/faucet-hq/faucet/connector"
)

func (d *structDec) matrix(n *node) []MatrixRow {
	if n.isNull() {
		return nil
	}
	if n.kind != connector.KindArray {
		d.typeErr(n, "matrix", "a list of rows")
		return nil
	}
	rows := make([]MatrixRow, 0, len(n.items))
	for i, it := range n.items {
		path := indexPath("matrix", i)
		row := MatrixRow{ID: "row-" + strconv.Itoa(i), InheritTransforms: true, Pos: it.pos, idPos: it.pos}
		if !d.object(it, path) {
			if it.isNull() {
				d.typeErr(it, path, "an object")
			}
			rows = append(rows, row)
			continue
		}
		for _, f := range it.fields {
			fp := joinPath(path, f.key)
			switch f.key {
			case "id":
				if s, ok := d.nonEmptyStr(f.val, fp); ok {
					row.ID, row.idPos = s, f.val.pos
				}
			case "source":
				row.Source = d.partial(f.val, fp)
			case "sink":
				row.Sink = d.partial(f.val, fp)
			case "transforms":
				row.Transforms = d.transforms(f.val, fp)
			case "inherit_transforms":
				if b, ok := d.boolean(f.val, fp); ok {
					row.InheritTransforms = b
				}
			case "state":
				if !f.val.isNull() {
					if s, ok := d.component(f.val, fp, componentKeys); ok {
						row.State = &s
					}
				}
			case "dlq":
				row.DLQSet = true
				if !f.val.isNull() {
					row.DLQ = d.dlq(f.val, fp)
				}
			case "depends_on":
				if f.val.kind == connector.KindString {
					// A single id is accepted as a one-element list.
					if id, ok := d.nonEmptyStr(f.val, fp); ok {
						row.DependsOn, row.dependsOn = []string{id}, []Pos{f.val.pos}
					}
				} else if ids, ok := d.strList(f.val, fp); ok {
					row.DependsOn = ids
					for _, x := range f.val.items {
						row.dependsOn = append(row.dependsOn, x.pos)
					}
				}
			case "delivery":
				if s, ok := d.enum(f.val, fp, string(AtLeastOnce), string(ExactlyOnce)); ok {
					row.Delivery = Delivery(s)
				}
			default:
				d.unknown(f, path, rowKeys)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func (d *structDec) partial(n *node, path string) *PartialConnector {
	if !d.object(n, path) {
		return nil
	}
	p := &PartialConnector{Pos: n.pos, path: path}
	for _, f := range n.fields {
		fp := joinPath(path, f.key)
		switch f.key {
		case "ref":
			p.Ref, _ = d.nonEmptyStr(f.val, fp)
			p.RefPos = f.val.pos
		case "type":
			p.Type, _ = d.nonEmptyStr(f.val, fp)
			p.TypePos = f.val.pos
		case "config":
			if f.val.isNull() {
				continue
			}
			if f.val.kind != connector.KindObject {
				d.typeErr(f.val, fp, "an object")
				continue
			}
			v := connector.Object(connector.Record{})
			p.Config, p.cfg = &v, f.val
			d.configs = append(d.configs, cfgRef{n: f.val, path: fp})
		default:
			d.unknown(f, path, partialKeys)
		}
	}
	return p
}
