package transforms

import (
	"strings"
	"testing"
)

func TestFilterExpr(t *testing.T) {
	const rec = `{"id": 7, "count": 3, "type": "sale", "date": "2024-05-01", "amount": 150, "price": 9.5, "country": "DE", "qty": "12", "vip": true, "tags": ["a", "b"], "user": {"name": "Ada", "age": 36}, "note": null, "First Name": "Ada"}`
	keep := func(name, expr string) applyCase {
		return applyCase{name: name, cfg: `{"expr": ` + quote(expr) + `}`, in: rec, want: recordJSON(record(t, rec))}
	}
	drop := func(name, expr string) applyCase {
		return applyCase{name: name, cfg: `{"expr": ` + quote(expr) + `}`, in: rec, drop: true}
	}
	runApply(t, "filter", []applyCase{
		keep("and with in", `amount > 100 && country in ["DE", "FR"]`),
		drop("and false", `amount > 200 && country in ["DE", "FR"]`),
		keep("int compares with float", `price < 10 && amount == 150.0`),
		keep("string to int conversion", `int(qty) > 5`),
		keep("string to float conversion", `float(qty) == 12.0`),
		keep("bool field", `vip`),
		drop("negation", `!vip`),
		keep("nested object", `user.name == "Ada" && user.age >= 18`),
		keep("array builtins", `len(tags) == 2 && "b" in tags`),
		keep("predicate", `any(tags, # == "a")`),
		keep("string operators", `country startsWith "D" && country matches "^[A-Z]{2}$"`),
		keep("null field", `note == nil`),
		drop("missing field is nil", `missing == "x"`),
		keep("missing field is nil so != is true", `missing != "x"`),
		drop("missing field alone is false", `missing`),
		keep("nil coalescing", `(missing ?? 5) == 5`),
		keep("optional chaining", `missing?.deep == nil`),
		keep("field that is not an identifier", `$env["First Name"] == "Ada"`),
		keep("fields named like builtins", `count == 3 && type == "sale" && date startsWith "2024" && len(tags) == 2`),
		keep("builtins still work when called", `count(tags, # == "a") == 1 && type(id) == "int"`),
		keep("let variables", `let limit = 100; amount > limit`),
		drop("$env sees a missing field as absent", `"zz" in $env`),
		{name: "string compared with a number",
			cfg: `{"expr": "qty > 5"}`,
			in:  `{"qty": "12"}`,
			err: `filter: expression "qty > 5": invalid operation: string > int (at 1:5); fields: qty = "12" (string); string values (all CSV values are) do not compare with numbers: convert with int(...) or float(...) in the expression, or cast the field first`},
		{name: "a missing field does not match",
			cfg:  `{"expr": "amount > 5"}`,
			in:   `{"id": 1}`,
			drop: true},
		{name: "a null field does not match",
			cfg:  `{"expr": "amount > 5"}`,
			in:   `{"amount": null}`,
			drop: true},
		{name: "conversion of a bad string",
			cfg: `{"expr": "int(qty) > 5"}`,
			in:  `{"qty": "abc"}`,
			err: `filter: expression "int(qty) > 5": invalid operation: int(abc) (at 1:1); fields: qty = "abc" (string)`},
		{name: "non-boolean result at run time",
			cfg: `{"expr": "amount + 1"}`,
			in:  `{"amount": 1}`,
			err: `filter: expression "amount + 1": invalid operation: bool(int) (at 1:1); fields: amount = 1 (int)`},
	})
}

func TestFilterPath(t *testing.T) {
	const rec = `{"id": 1, "status": "active", "n": 5, "f": 5.0, "deleted": false, "nil": null, "user": {"tier": "gold", "order-id": 9}, "a.b": "dotted"}`
	keep := func(name, cfg string) applyCase {
		return applyCase{name: name, cfg: cfg, in: rec, want: recordJSON(record(t, rec))}
	}
	drop := func(name, cfg string) applyCase {
		return applyCase{name: name, cfg: cfg, in: rec, drop: true}
	}
	runApply(t, "filter", []applyCase{
		keep("eq string", `{"path": "status", "op": "eq", "value": "active"}`),
		drop("eq other string", `{"path": "status", "op": "eq", "value": "gone"}`),
		drop("eq is strict: string vs number", `{"path": "n", "op": "eq", "value": "5"}`),
		keep("eq compares numbers by value: int vs float", `{"path": "n", "op": "eq", "value": 5.0}`),
		keep("eq float", `{"path": "f", "op": "eq", "value": 5.0}`),
		keep("eq null", `{"path": "nil", "op": "eq", "value": null}`),
		drop("eq on a missing path is false", `{"path": "zz", "op": "eq", "value": 1}`),
		keep("ne", `{"path": "deleted", "op": "ne", "value": true}`),
		keep("ne on a missing path is true", `{"path": "zz", "op": "ne", "value": 1}`),
		keep("exists", `{"path": "status", "op": "exists"}`),
		drop("exists is false for null", `{"path": "nil", "op": "exists"}`),
		drop("exists is false for missing", `{"path": "zz", "op": "exists"}`),
		keep("in", `{"path": "status", "op": "in", "value": ["active", "pending"]}`),
		drop("in, not member", `{"path": "status", "op": "in", "value": ["pending"]}`),
		drop("in on a missing path is false", `{"path": "zz", "op": "in", "value": [1]}`),
		keep("not_in", `{"path": "status", "op": "not_in", "value": ["archived"]}`),
		drop("not_in, member", `{"path": "n", "op": "not_in", "value": [5]}`),
		keep("not_in on a missing path is true", `{"path": "zz", "op": "not_in", "value": [1]}`),
		keep("dot path", `{"path": "user.tier", "op": "eq", "value": "gold"}`),
		keep("rooted dot path", `{"path": "$.user.tier", "op": "eq", "value": "gold"}`),
		keep("bracket key", `{"path": "$.user['order-id']", "op": "eq", "value": 9}`),
		keep("bracket key with a dot", `{"path": "$[\"a.b\"]", "op": "eq", "value": "dotted"}`),
		drop("through a scalar is missing", `{"path": "status.x", "op": "exists"}`),
	})
}

func TestFilterConfig(t *testing.T) {
	runConfig(t, "filter", []configCase{
		{"nothing", `{}`, `t: set expr, or path and op`},
		{"both forms", `{"expr": "a", "path": "a", "op": "exists"}`, `t: set either expr or path/op/value, not both`},
		{"expr syntax", `{"expr": "amount > "}`, `t.expr: unexpected token EOF (at 1:9)`},
		{"expr not boolean", `{"expr": "1 + 2"}`, `t.expr: expected bool, but got int`},
		{"unknown function", `{"expr": "foo(amount) > 1"}`, `t.expr: unknown function foo`},
		{"path without op", `{"path": "a"}`, `t.op: required with path`},
		{"op without path", `{"op": "exists"}`, `t.path: required with op`},
		{"unknown op", `{"path": "a", "op": "gt", "value": 1}`, `t.op: must be one of eq, ne, exists, in, not_in, got "gt"`},
		{"eq without value", `{"path": "a", "op": "eq"}`, `t.value: op eq needs a value`},
		{"exists with value", `{"path": "a", "op": "exists", "value": 1}`, `t.value: op exists takes no value`},
		{"in with a scalar", `{"path": "a", "op": "in", "value": 1}`, `t.value: op in needs a list`},
		{"wildcard", `{"path": "$.items[*]", "op": "exists"}`, `t.path: invalid path "$.items[*]": brackets need a quoted key, as in ['key'] (wildcards, indexes and filters are not supported)`},
		{"recursive descent", `{"path": "$..a", "op": "exists"}`, `t.path: invalid path "$..a": recursive descent (..) is not supported`},
		{"empty segment", `{"path": "a.", "op": "exists"}`, `t.path: invalid path "a.": empty segment after '.'`},
		{"unterminated key", `{"path": "$['a", "op": "exists"}`, `t.path: invalid path "$['a": unterminated quoted key`},
		{"root only", `{"path": "$", "op": "exists"}`, `t.path: invalid path "$": it must name a field`},
	})
}

func TestFilterConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "filter", `{"expr": "int(qty) > 5 && user.tier in [\"gold\"] && $env[\"id\"] == 1"}`),
		`{"id":1,"qty":"12","user":{"tier":"gold"}}`, `{"id":1,"qty":"12","user":{"tier":"gold"}}`)
	runConcurrently(t, mustBuild(t, "filter", `{"path": "user.tier", "op": "in", "value": ["gold"]}`),
		`{"user":{"tier":"gold"}}`, `{"user":{"tier":"gold"}}`)
}

// Only the fields an expression names are converted for it, unless it reads
// $env as a whole.
func TestFilterExprEnvironment(t *testing.T) {
	for _, c := range []struct {
		expr   string
		idents string
		all    bool
	}{
		{`amount > 1 && country in ["DE"]`, "amount,country", false},
		{`$env["First Name"] == "x" && amount > 1`, "First Name,amount", false},
		{`count > 1 && type == "a"`, "count,type", false},
		{`"x" in $env`, "", true},
		{`all(items, .qty > 0)`, "items", false},
	} {
		tr := mustBuild(t, "filter", `{"expr": `+quote(c.expr)+`}`).(*exprFilter)
		if got := strings.Join(tr.idents, ","); got != c.idents || tr.allEnv != c.all {
			t.Errorf("%s: idents %q all %v, want %q %v", c.expr, got, tr.allEnv, c.idents, c.all)
		}
	}
}
