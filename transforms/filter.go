package transforms

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "filter",
		Summary: "Keep the records for which an expression (or a path/op/value test) is true.",
		Config:  &filterConfig{},
		New:     newFilter,
	})
}

// filterConfig has two forms, exactly one of which is used: `expr`, an
// expr-lang boolean expression over the record's fields, or the original's
// structured test `path` + `op` (+ `value`).
type filterConfig struct {
	Expr  string `json:"expr" doc:"Boolean expression (expr-lang) over the record's top-level fields, e.g. amount > 100 && country in [\"DE\", \"FR\"]. A missing field is nil. Fields that are not identifiers are reached as $env[\"First Name\"]. Values read from CSV are strings: write int(amount) > 5, or cast first."`
	Path  string `json:"path" doc:"Structured form: the field to test, a key (status), a dot path (user.status, $.user.status) or a bracketed key ($['order-id'])."`
	Op    string `json:"op" doc:"Structured form: eq, ne, exists, in or not_in. A missing path makes eq, in and exists false and ne, not_in true."`
	Value any    `json:"value" doc:"Structured form: the value to compare with (strict JSON equality: \"5\" is not 5); a list for in and not_in; absent for exists."`

	path []string
}

func (c *filterConfig) Validate() error {
	structured := c.Path != "" || c.Op != "" || c.Value != nil
	switch {
	case c.Expr != "" && structured:
		return connector.ConfigErrorf("", "set either expr or path/op/value, not both")
	case c.Expr != "":
		return nil
	case !structured:
		return connector.ConfigErrorf("", "set expr, or path and op")
	case c.Path == "":
		return connector.ConfigErrorf("path", "required with op")
	}
	switch c.Op {
	case "exists":
		if c.Value != nil {
			return connector.ConfigErrorf("value", "op exists takes no value")
		}
	case "eq", "ne":
		// The value may be null (eq null), so its presence is checked in
		// newFilter, which sees the raw config.
	case "in", "not_in":
		if _, ok := c.Value.([]any); !ok {
			return connector.ConfigErrorf("value", "op %s needs a list", c.Op)
		}
	case "":
		return connector.ConfigErrorf("op", "required with path")
	default:
		return connector.ConfigErrorf("op", "must be one of eq, ne, exists, in, not_in, got %q", c.Op)
	}
	segs, err := parsePath(c.Path)
	if err != nil {
		return connector.ConfigErrorf("path", "%v", err)
	}
	c.path = segs
	return nil
}

func newFilter(cfg connector.Config) (connector.Transform, error) {
	var c filterConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	if c.Expr != "" {
		return compileFilterExpr(cfg, c.Expr)
	}
	value, ok := configValue(cfg, "value")
	if !ok && (c.Op == "eq" || c.Op == "ne") {
		return nil, connector.ConfigErrorf(cfg.Path+".value", "op %s needs a value", c.Op)
	}
	return &pathFilter{path: c.path, op: c.Op, value: value}, nil
}

// pathFilter is the original's structured filter: strict equality of typed
// values, so the string "5" does not equal the number 5, nor 5 equal 5.0.
type pathFilter struct {
	path  []string
	op    string
	value connector.Value
}

func (t *pathFilter) Apply(r *connector.Record) (bool, error) {
	v, ok := lookupKeys(*r, t.path)
	switch t.op {
	case "exists":
		return ok && !v.IsNull(), nil
	case "eq":
		return ok && sameValue(v, t.value), nil
	case "ne":
		return !ok || !sameValue(v, t.value), nil
	case "in":
		return ok && contains(t.value.AsArray(), v), nil
	default: // not_in
		return !ok || !contains(t.value.AsArray(), v), nil
	}
}

func lookupKeys(r connector.Record, path []string) (connector.Value, bool) {
	v, ok := r.Get(path[0])
	for _, k := range path[1:] {
		if !ok || v.Kind() != connector.KindObject {
			return connector.Value{}, false
		}
		v, ok = v.AsObject().Get(k)
	}
	return v, ok
}

// sameValue is equality where 150 and 150.0 are the same number.
func sameValue(a, b connector.Value) bool {
	if isNumber(a) && isNumber(b) {
		return a.AsFloat() == b.AsFloat()
	}
	return a.Equal(b)
}

func isNumber(v connector.Value) bool {
	return v.Kind() == connector.KindInt || v.Kind() == connector.KindFloat
}

func contains(list []connector.Value, v connector.Value) bool {
	for _, e := range list {
		if sameValue(e, v) {
			return true
		}
	}
	return false
}

// parsePath reads the original's JSONPath subset: an optional `$`, then
// `.key` or `['key']` / `["key"]` segments; a path without `$` is a dot
// path from the record. Wildcards, recursive descent and filters are
// rejected, as are array indexes.
func parsePath(raw string) ([]string, error) {
	rest := raw
	if !strings.HasPrefix(rest, "$") {
		rest = "." + rest
	} else {
		rest = rest[1:]
	}
	var segs []string
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			if strings.HasPrefix(rest, ".") {
				return nil, fmt.Errorf("invalid path %q: recursive descent (..) is not supported", raw)
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("invalid path %q: empty segment after '.'", raw)
			}
			segs = append(segs, rest[:end])
			rest = rest[end:]
		case '[':
			rest = rest[1:]
			if rest == "" || (rest[0] != '\'' && rest[0] != '"') {
				return nil, fmt.Errorf("invalid path %q: brackets need a quoted key, as in ['key'] (wildcards, indexes and filters are not supported)", raw)
			}
			q := rest[0]
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				return nil, fmt.Errorf("invalid path %q: unterminated quoted key", raw)
			}
			key := rest[1 : 1+end]
			rest = rest[1+end+1:]
			if !strings.HasPrefix(rest, "]") {
				return nil, fmt.Errorf("invalid path %q: expected ']' after the quoted key", raw)
			}
			rest = rest[1:]
			segs = append(segs, key)
		default:
			return nil, fmt.Errorf("invalid path %q: unexpected %q", raw, rest)
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("invalid path %q: it must name a field", raw)
	}
	return segs, nil
}

// exprFilter evaluates a compiled expr-lang program against each record.
// The program is compiled once with an untyped environment: record fields
// are variables, an unknown one is nil (so `missing == "x"` is false and
// `missing` alone is false). Only the fields the expression names are
// converted into its environment, unless it reads $env. Environments and
// VMs are pooled; the program itself is immutable and shared.
type exprFilter struct {
	src     string
	program *vm.Program
	idents  []string // fields the expression names, in order of first use
	allEnv  bool     // the expression reads $env
	vms     sync.Pool
	envs    sync.Pool
}

func compileFilterExpr(cfg connector.Config, src string) (connector.Transform, error) {
	program, err := expr.Compile(src,
		expr.Env(map[string]any{}),
		expr.AllowUndefinedVariables(),
		expr.AsBool(),
		expr.Timezone("UTC"),
		expr.Patch(builtinFieldPatcher{}),
	)
	if err != nil {
		return nil, connector.ConfigErrorf(cfg.Path+".expr", "%s", exprMessage(err))
	}
	t := &exprFilter{src: src, program: program}
	var v identCollector
	node := program.Node()
	ast.Walk(&node, &v)
	if v.call != "" {
		return nil, connector.ConfigErrorf(cfg.Path+".expr", "unknown function %s", v.call)
	}
	t.idents, t.allEnv = v.idents, v.envReads > v.envConstReads
	t.vms.New = func() any { return new(vm.VM) }
	t.envs.New = func() any { return make(map[string]any, len(t.idents)) }
	return t, nil
}

type identCollector struct {
	idents        []string
	envReads      int    // uses of $env
	envConstReads int    // of which $env["constant"], which name one field
	call          string // first call of something that is not a function
	seen          map[string]bool
}

func (c *identCollector) add(name string) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if !c.seen[name] {
		c.seen[name] = true
		c.idents = append(c.idents, name)
	}
}

func (c *identCollector) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.CallNode:
		// Builtins are BuiltinNodes; with no functions registered, a call of
		// a plain name would call a record field, which is never meant.
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && c.call == "" {
			c.call = id.Value
		}
	case *ast.MemberNode:
		id, ok := n.Node.(*ast.IdentifierNode)
		prop, isConst := n.Property.(*ast.StringNode)
		if ok && isConst && id.Value == "$env" {
			c.envConstReads++
			c.add(prop.Value)
		}
	case *ast.IdentifierNode:
		if n.Value == "$env" {
			c.envReads++
			return
		}
		c.add(n.Value)
	}
}

// builtinFieldPatcher turns a bare identifier that names an expr builtin
// into a field read: `count > 1` means the field count, as `$env["count"]`
// would. Fields called type, date, count, now or len are common, and
// without this the expression would compare a function with a number and
// not compile. A builtin is still a builtin when called (count(xs, # > 1)),
// and expr does not let `let` redeclare one, so no variable is affected.
type builtinFieldPatcher struct{}

func (builtinFieldPatcher) Visit(n *ast.Node) {
	id, ok := (*n).(*ast.IdentifierNode)
	if !ok {
		return
	}
	if _, isBuiltin := builtin.Index[id.Value]; !isBuiltin {
		return
	}
	ast.Patch(n, &ast.MemberNode{
		Node:     &ast.IdentifierNode{Value: "$env"},
		Property: &ast.StringNode{Value: id.Value},
	})
}

func (t *exprFilter) Apply(r *connector.Record) (bool, error) {
	env := t.envs.Get().(map[string]any)
	if t.allEnv {
		for _, f := range r.Fields {
			env[f.Key] = exprValue(f.Value)
		}
	} else {
		for _, id := range t.idents {
			if v, ok := r.Get(id); ok {
				env[id] = exprValue(v)
			}
		}
	}
	machine := t.vms.Get().(*vm.VM)
	out, err := machine.Run(t.program, env)
	t.vms.Put(machine)
	clear(env)
	t.envs.Put(env)
	if err != nil {
		// A record that lacks a field the expression uses does not match
		// (amount > 100 is false without an amount) rather than failing
		// the run; other runtime errors are real errors.
		if !t.allEnv {
			for _, id := range t.idents {
				if v, ok := r.Get(id); !ok || v.IsNull() {
					return false, nil
				}
			}
		}
		return false, t.runtimeError(r, err)
	}
	switch b := out.(type) {
	case bool:
		return b, nil
	case nil:
		return false, nil
	}
	return false, fmt.Errorf("filter: expression %q returned %T, not a boolean", t.src, out)
}

// runtimeError names the expression, the failure and the values of the
// fields involved, with a hint when a string met a number: records read from
// CSV hold strings, which do not compare with numbers.
func (t *exprFilter) runtimeError(r *connector.Record, err error) error {
	var b strings.Builder
	msg := exprMessage(err)
	fmt.Fprintf(&b, "filter: expression %q: %s", t.src, msg)
	names := t.idents
	if t.allEnv {
		names = r.Keys()
	}
	sep := "; fields: "
	strs := false
	for _, id := range names {
		v, ok := r.Get(id)
		b.WriteString(sep)
		sep = ", "
		if !ok {
			fmt.Fprintf(&b, "%s is missing", id)
			continue
		}
		fmt.Fprintf(&b, "%s = %s (%s)", id, show(v), v.Kind())
		strs = strs || v.Kind() == connector.KindString
	}
	// expr names operand types in its message ("string > int").
	if strs && (strings.Contains(msg, "string ") || strings.Contains(msg, " string")) {
		b.WriteString("; string values (all CSV values are) do not compare with numbers: convert with int(...) or float(...) in the expression, or cast the field first")
	}
	return errors.New(b.String())
}

// exprMessage is an expr error on one line: message and line:column, without
// the source snippet.
func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Line > 0 {
			return fmt.Sprintf("%s (at %d:%d)", fe.Message, fe.Line, fe.Column+1)
		}
		return fe.Message
	}
	return err.Error()
}

// exprValue converts a record value into what expr works with: int for
// integers (expr's own integer type), []any and map[string]any for nested
// values.
func exprValue(v connector.Value) any {
	switch v.Kind() {
	case connector.KindBool:
		return v.AsBool()
	case connector.KindInt:
		return int(v.AsInt())
	case connector.KindFloat:
		return v.AsFloat()
	case connector.KindString:
		return v.AsString()
	case connector.KindArray:
		a := v.AsArray()
		out := make([]any, len(a))
		for i := range a {
			out[i] = exprValue(a[i])
		}
		return out
	case connector.KindObject:
		fs := v.AsObject().Fields
		out := make(map[string]any, len(fs))
		for _, f := range fs {
			out[f.Key] = exprValue(f.Value)
		}
		return out
	}
	return nil
}
