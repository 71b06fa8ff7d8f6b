package config

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// ParamType is the declared type of a param.
type ParamType string

// The param types. Dates are "YYYY-MM-DD" strings; enums are strings that
// must be one of ParamSpec.Values.
const (
	ParamString ParamType = "string"
	ParamInt    ParamType = "int"
	ParamFloat  ParamType = "float"
	ParamBool   ParamType = "bool"
	ParamDate   ParamType = "date"
	ParamEnum   ParamType = "enum"
)

// ParamSpec is one entry of the `params:` block.
type ParamSpec struct {
	Name        string
	Type        ParamType // default string
	Required    bool
	Default     *connector.Value
	Secret      bool
	Description string
	Values      []string // enum only
	Pos         Pos
}

var paramNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var paramKeys = keys{known: []string{"type", "required", "default", "secret", "description", "values"}}

// decodeParams reads the `params:` block strictly.
func decodeParams(d *dec, n *node) []ParamSpec {
	if !d.object(n, "params") {
		return nil
	}
	var out []ParamSpec
	for _, f := range n.fields {
		path := joinPath("params", f.key)
		if !paramNameRe.MatchString(f.key) {
			d.errs.add(f.keyPos, path, "invalid param name %q: names must match ^[A-Za-z_][A-Za-z0-9_]*$", f.key)
			continue
		}
		p := ParamSpec{Name: f.key, Type: ParamString, Pos: f.keyPos}
		if !d.object(f.val, path) {
			if f.val.isNull() {
				out = append(out, p) // `name:` alone declares an optional string
			}
			continue
		}
		ok := true
		var defNode, valuesNode *node
		for _, g := range f.val.fields {
			gp := joinPath(path, g.key)
			switch g.key {
			case "type":
				t, good := d.enum(g.val, gp, "string", "int", "float", "bool", "date", "enum")
				p.Type, ok = ParamType(t), ok && good
			case "required":
				p.Required, _ = d.boolean(g.val, gp)
			case "secret":
				p.Secret, _ = d.boolean(g.val, gp)
			case "description":
				p.Description, _ = d.str(g.val, gp)
			case "default":
				defNode = g.val
			case "values":
				valuesNode = g.val
			default:
				d.unknown(g, path, paramKeys)
			}
		}
		if !ok {
			out = append(out, p)
			continue
		}
		if valuesNode != nil {
			if p.Type != ParamEnum {
				d.errs.add(valuesNode.pos, joinPath(path, "values"), "only params of type enum take values")
			} else if vs, good := d.strList(valuesNode, joinPath(path, "values")); good {
				p.Values = vs
			}
		}
		if p.Type == ParamEnum && len(p.Values) == 0 && valuesNode == nil {
			d.errs.add(f.val.pos, joinPath(path, "values"), "an enum param needs values: [...]")
		}
		if defNode != nil {
			dp := joinPath(path, "default")
			switch {
			case defNode.isNull():
				d.errs.add(defNode.pos, dp, "default: null is not a value; leave default out instead")
			case p.Required:
				d.errs.add(defNode.pos, dp, "a param with a default is optional; drop required: true or the default")
			default:
				if v, msg := coerceDefault(p, defNode); msg != "" {
					d.errs.add(defNode.pos, dp, "%s", msg)
				} else {
					p.Default = &v
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// coerceDefault checks a declared default against the type (stricter than
// a supplied value: an int default must be written as an integer).
func coerceDefault(p ParamSpec, n *node) (connector.Value, string) {
	bad := func() (connector.Value, string) {
		return connector.Value{}, "default " + describe(n) + " is not a valid " + string(p.Type) + " value"
	}
	switch p.Type {
	case ParamString:
		switch n.kind {
		case connector.KindString, connector.KindInt, connector.KindFloat, connector.KindBool:
			return connector.String(n.scalar.Text()), ""
		}
		return bad()
	case ParamInt:
		if n.kind == connector.KindInt {
			return n.scalar, ""
		}
		return bad()
	case ParamFloat:
		if n.kind == connector.KindInt || n.kind == connector.KindFloat {
			return connector.Float(n.scalar.AsFloat()), ""
		}
		return bad()
	case ParamBool:
		if n.kind == connector.KindBool {
			return n.scalar, ""
		}
		return bad()
	}
	if n.kind != connector.KindString {
		return bad()
	}
	v, err := coerceParam(p, n.scalar.AsString())
	if err != "" {
		return bad()
	}
	return v, ""
}

// coerceParam converts a supplied string to the param's type. It returns a
// message ("" on success) describing what was expected.
func coerceParam(p ParamSpec, s string) (connector.Value, string) {
	switch p.Type {
	case ParamInt:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return connector.Value{}, "an integer"
		}
		return connector.Int(n), ""
	case ParamFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return connector.Value{}, "a number"
		}
		return connector.Float(f), ""
	case ParamBool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "1":
			return connector.Bool(true), ""
		case "false", "no", "0":
			return connector.Bool(false), ""
		}
		return connector.Value{}, "a boolean (true/false, yes/no, 1/0)"
	case ParamDate:
		t := strings.TrimSpace(s)
		if len(t) != 10 {
			return connector.Value{}, "a date (YYYY-MM-DD)"
		}
		if _, err := time.Parse("2006-01-02", t); err != nil {
			return connector.Value{}, "a date (YYYY-MM-DD)"
		}
		return connector.String(t), ""
	case ParamEnum:
		for _, v := range p.Values {
			if v == s {
				return connector.String(s), ""
			}
		}
		return connector.Value{}, "one of " + strings.Join(p.Values, ", ")
	}
	return connector.String(s), ""
}

func placeholder(p ParamSpec) connector.Value {
	switch p.Type {
	case ParamInt:
		return connector.Int(0)
	case ParamFloat:
		return connector.Float(0)
	case ParamBool:
		return connector.Bool(false)
	case ParamDate:
		return connector.String("1970-01-01")
	case ParamEnum:
		if len(p.Values) > 0 {
			return connector.String(p.Values[0])
		}
	}
	return connector.String("<param>")
}

func (e msgError) Error() string { return string(e) }
