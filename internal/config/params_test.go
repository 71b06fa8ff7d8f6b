package config

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/redact"
)

func TestParamCoercion(t *testing.T) {
	enum := ParamSpec{Name: "e", Type: ParamEnum, Values: []string{"eu", "us"}}
	for _, tc := range []struct {
		typ  ParamType
		in   string
		want string // JSON of the bound value, "" = error
	}{
		{ParamString, "abc", `"abc"`},
		{ParamString, " 12 ", `" 12 "`},
		{ParamInt, "42", `42`},
		{ParamInt, " -7 ", `-7`},
		{ParamInt, "1.5", ``},
		{ParamInt, "abc", ``},
		{ParamInt, "99999999999999999999", ``},
		{ParamFloat, "1.5", `1.5`},
		{ParamFloat, "2", `2.0`},
		{ParamFloat, "x", ``},
		{ParamBool, "true", `true`},
		{ParamBool, "YES", `true`},
		{ParamBool, "1", `true`},
		{ParamBool, "False", `false`},
		{ParamBool, "no", `false`},
		{ParamBool, "0", `false`},
		{ParamBool, "maybe", ``},
		{ParamDate, "2024-02-29", `"2024-02-29"`},
		{ParamDate, "2023-02-29", ``},
		{ParamDate, "2024-2-1", ``},
		{ParamDate, "2024-02-01T00:00:00Z", ``},
		{ParamEnum, "eu", `"eu"`},
		{ParamEnum, "EU", ``},
	} {
		p := ParamSpec{Name: "p", Type: tc.typ}
		if tc.typ == ParamEnum {
			p = enum
		}
		v, msg := coerceParam(p, tc.in)
		got := ""
		if msg == "" {
			got = v.String()
		}
		if got != tc.want {
			t.Errorf("%s %q: got %s (%s), want %s", tc.typ, tc.in, got, msg, tc.want)
		}
	}
}

const paramsDoc = `
params:
	tenant: {type: string, required: true, description: Tenant id}
	limit: {type: int, default: 500}
	ratio: {type: float, default: 1}
	full: {type: bool, default: false}
	since: {type: date, default: 2024-01-01}
	region: {type: enum, values: [eu, us], default: eu}
	token: {secret: true, required: true}
execution:
	batch_size: ${param.limit}
pipeline:
	source:
		type: rest
		config:
			url: "https://api/${param.tenant}/items?since=${param.since}&limit=${param.limit}"
			limit: ${param.limit}
			ratio: ${param.ratio}
			full: ${param.full}
			region: ${param.region}
			auth: ${param.token}
	sink: {type: jsonl}
`

func TestParamsBinding(t *testing.T) {
	doc := mustLoad(t, paramsDoc, Options{Getenv: env(), Params: map[string]string{
		"tenant": "acme", "limit": "20", "full": "yes", "token": "tok-secret-77",
	}})
	if doc.Execution.BatchSize != 20 {
		t.Errorf("batch_size = %d, want typed 20", doc.Execution.BatchSize)
	}
	got := doc.Pipeline.Source.Config.Value.String()
	want := `{"url":"https://api/acme/items?since=2024-01-01&limit=20","limit":20,"ratio":1.0,"full":true,"region":"eu","auth":"tok-secret-77"}`
	if got != want {
		t.Errorf("config\n got %s\nwant %s", got, want)
	}
	if rp := doc.RedactedParamValues(); rp["token"].AsString() != "***" || rp["tenant"].AsString() != "acme" {
		t.Errorf("RedactedParamValues = %v", rp)
	}
	if redact.String("tok-secret-77") != "***" {
		t.Error("secret param not registered for redaction")
	}
	if len(doc.Params) != 7 || doc.Params[0].Name != "tenant" || !doc.Params[0].Required || doc.Params[6].Type != ParamString {
		t.Errorf("params = %+v", doc.Params)
	}
	if v := doc.ParamValues["limit"]; !v.Equal(connector.Int(20)) {
		t.Errorf("ParamValues[limit] = %v", v)
	}
	// The params block itself is not substituted.
	if _, ok := doc.root.get("params"); !ok {
		t.Error("params block dropped")
	}
}

func TestParamsPlaceholders(t *testing.T) {
	doc := mustLoad(t, paramsDoc, Options{Getenv: env(), Placeholders: true})
	got := doc.Pipeline.Source.Config.Value.String()
	want := `{"url":"https://api/<param>/items?since=2024-01-01&limit=500","limit":500,"ratio":1.0,"full":false,"region":"eu","auth":"<param>"}`
	if got != want {
		t.Errorf("config\n got %s\nwant %s", got, want)
	}
}

func TestParamsErrors(t *testing.T) {
	errs := loadErrs(t, paramsDoc, Options{Getenv: env(), Params: map[string]string{
		"limit": "lots", "region": "mars", "full": "${env:X}", "bogus": "1", "token": "nope-secret",
	}})
	wantErrs(t, errs,
		`pipeline.yaml:1:1: params: unknown param "bogus" was supplied (declared: tenant, limit, ratio, full, since, region, token)`,
		`pipeline.yaml:2:3: params.tenant: required param "tenant" was not supplied (pass --param tenant=VALUE): Tenant id`,
		`pipeline.yaml:3:3: params.limit: the value "lots" supplied for param "limit" is not an integer`,
		`pipeline.yaml:5:3: params.full: the value supplied for param "full" contains "${": param values are literal data, not interpolated`,
		`pipeline.yaml:7:3: params.region: the value "mars" supplied for param "region" is not one of eu, us`,
	)

	errs = loadErrs(t, `
params:
	1bad: {}
	a: {type: int, default: "x"}
	b: {required: true, default: 1}
	c: {default: null}
	d: {type: enum}
	e: {type: string, values: [x]}
	f: {type: timestamp}
	g: {typo: 1}
	h: {type: bool, default: 1}
pipeline:
	source: {type: csv, config: {x: "${param.zzz}", y: "${param.}", z: "${param.a.b}"}}
	sink: {type: jsonl}
`, Options{Getenv: env(), Placeholders: true})
	wantErrs(t, errs,
		`pipeline.yaml:2:3: params.1bad: invalid param name "1bad": names must match ^[A-Za-z_][A-Za-z0-9_]*$`,
		`pipeline.yaml:3:27: params.a.default: default "x" is not a valid int value`,
		`pipeline.yaml:4:32: params.b.default: a param with a default is optional; drop required: true or the default`,
		`pipeline.yaml:5:16: params.c.default: default: null is not a value; leave default out instead`,
		`pipeline.yaml:6:6: params.d.values: an enum param needs values: [...]`,
		`pipeline.yaml:7:29: params.e.values: only params of type enum take values`,
		`pipeline.yaml:8:13: params.f.type: must be one of string, int, float, bool, date, enum, got "timestamp"`,
		`pipeline.yaml:9:7: params.g.typo: unknown key (did you mean "type"?); valid keys: type, required, default, secret, description, values`,
		`pipeline.yaml:10:28: params.h.default: default 1 is not a valid bool value`,
		`pipeline.yaml:12:35: pipeline.source.config.x: ${param.zzz} refers to an undeclared param (declared: a, b, c, d, e, f, g, h)`,
		`pipeline.yaml:12:54: pipeline.source.config.y: ${param.} is missing a param name: write ${param.NAME}`,
		`pipeline.yaml:12:70: pipeline.source.config.z: ${param.a.b} is not a valid param reference: params are scalars, write ${param.NAME}`,
	)
}

func TestParamsUnknownWhenNoneDeclared(t *testing.T) {
	errs := loadErrs(t, minimal, Options{Getenv: env(), Params: map[string]string{"x": "1"}})
	wantErrs(t, errs, `pipeline.yaml:1:1: params: unknown param "x" was supplied: this config declares no params`)
}

func TestOptionalParamWithoutDefault(t *testing.T) {
	text := `
params:
	opt: {type: string}
pipeline:
	source: {type: csv, config: {path: "${param.opt}"}}
	sink: {type: jsonl}
`
	wantErrs(t, loadErrs(t, text, noEnv()),
		`pipeline.yaml:4:38: pipeline.source.config.path: ${param.opt}: param "opt" is optional, has no default and was not supplied`)
	doc := mustLoad(t, text, Options{Getenv: env(), Params: map[string]string{"opt": "x.csv"}})
	if got := doc.Pipeline.Source.Config.Value.String(); got != `{"path":"x.csv"}` {
		t.Errorf("config = %s", got)
	}
}
