package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
)

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"orders", "orders", true},
		{"orders", "orders2", false},
		{"public.*", "public.orders", true},
		{"public.*", "sales.orders", false},
		{"*.orders", "public.orders", true},
		{"*order*", "public.orders", true},
		{"*", "", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXcYYb", false},
		{"ab*ab", "ab", false},
		{"ab*ab", "abab", true},
		{"Order *", "Order Lines", true},
		{"order*", "Orders", false}, // case sensitive
		{"a?c", "abc", false},       // only * is special
		{"a[b]c", "a[b]c", true},
	} {
		if got := globMatch(c.pattern, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestRowIDs(t *testing.T) {
	var ds []connector.Dataset
	for _, n := range []string{"public.orders", "public.Order Lines", "public/orders", "....", "env", "vars", "tëst", "public.orders"} {
		ds = append(ds, connector.Dataset{Name: n})
	}
	got := strings.Join(rowIDs(ds), " ")
	want := "public_orders public_Order_Lines public_orders-2 table env_table vars_table t_st public_orders-3"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Every reserved id is rejected by the config loader, so the list
	// here must not miss one the loader has.
	for _, id := range reservedRowIDs {
		text := "version: 1\npipeline:\n  source: {type: csv, config: {path: a.csv}}\n  sink: {type: stdout}\nmatrix:\n  - id: " + id + "\n"
		doc, err := config.LoadBytes("x.yaml", []byte(text), config.Options{})
		if err == nil {
			_, err = doc.Expand()
		}
		if err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("row id %q: %v", id, err)
		}
	}
}

func TestHidePasswords(t *testing.T) {
	for _, c := range []struct {
		in, override, want string
	}{
		{"postgres://app:s3cret@db:5432/shop?sslmode=disable", "", "postgres://app:${env:PGPASSWORD}@db:5432/shop?sslmode=disable"},
		{"postgresql://app:p%40ss@db/shop", "", "postgresql://app:${env:PGPASSWORD}@db/shop"},
		{"postgres://app:a@b@db/shop", "", "postgres://app:${env:PGPASSWORD}@db/shop"},
		{"mysql://root:pw@127.0.0.1:3306/test", "", "mysql://root:${env:MYSQL_PWD}@127.0.0.1:3306/test"},
		{"root:pw@tcp(127.0.0.1:3306)/test", "", "root:${env:MYSQL_PWD}@tcp(127.0.0.1:3306)/test"},
		{"host=db user=app password=s3cret dbname=shop", "", "host=db user=app password=${env:PGPASSWORD} dbname=shop"},
		{"postgres://app@db/shop?password=s3cret&sslmode=disable", "", "postgres://app@db/shop?password=${env:PGPASSWORD}&sslmode=disable"},
		{"https://user:tok@api.example.com/v1", "", "https://user:${env:HTTPS_PASSWORD}@api.example.com/v1"},
		{"postgres://app:s3cret@db/shop", "SHOP_PW", "postgres://app:${env:SHOP_PW}@db/shop"},
		// Left alone: references, no password, not a URL.
		{"postgres://app:${env:PW}@db/shop", "", ""},
		{"postgres://app@db/shop", "", ""},
		{"postgres://${env:DB_USER}@db/shop", "", ""},
		{"postgres://${env:DB_USER}:${env:DB_PW}@db/shop", "", ""},
		{"${env:DB_USER}:pw@tcp(h)/db", "", "${env:DB_USER}:${env:MYSQL_PWD}@tcp(h)/db"},
		{"postgres://${env:DB_USER}:lit@${env:HOST}/db", "", "postgres://${env:DB_USER}:${env:PGPASSWORD}@${env:HOST}/db"},
		{"postgres://app:pre${env:PW}@db/shop", "", ""},
		{"./data/app.db", "", ""},
		{"SELECT * FROM t WHERE a = 'x:y@z'", "", ""},
	} {
		root := mapNode("pipeline", mapNode("source", mapNode("config", mapNode("connection_url", strNode(c.in)))))
		notes := hidePasswords(root, c.override)
		got := root.Content[1].Content[1].Content[1].Content[1].Value
		if c.want == "" {
			if got != c.in || len(notes) != 0 {
				t.Errorf("%s: changed to %s (%v)", c.in, got, notes)
			}
			continue
		}
		if got != c.want || len(notes) != 1 || !strings.Contains(notes[0], "pipeline.source.config.connection_url") {
			t.Errorf("%s:\n got %s %v\nwant %s", c.in, got, notes, c.want)
		}
	}
}

func TestHidePasswordsOneVariablePerPassword(t *testing.T) {
	root := mapNode(
		"a", strNode("postgres://u:one@h/db"),
		"b", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{strNode("postgres://v:one@h2/db"), strNode("postgres://u:two@h/db")}},
		"n", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "5"},
	)
	notes := hidePasswords(root, "")
	got := strings.Join([]string{root.Content[1].Value, root.Content[3].Content[0].Value, root.Content[3].Content[1].Value}, " ")
	want := "postgres://u:${env:PGPASSWORD}@h/db postgres://v:${env:PGPASSWORD}@h2/db postgres://u:${env:PGPASSWORD_2}@h/db"
	if got != want || len(notes) != 3 || !strings.Contains(notes[2], "b[1]") {
		t.Errorf("got %s\n%v", got, notes)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://app:s3cret@db/shop": "postgres://app:***@db/shop",
		"root:pw@tcp(h:3306)/db":        "root:***@tcp(h:3306)/db",
		"./app.db":                      "./app.db",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%s) = %s, want %s", in, got, want)
		}
	}
}

// The JSON rendering is the YAML rendering's document: both load to the
// same invocations.
func TestRenderJSONMatchesYAML(t *testing.T) {
	raw := []byte(`version: 1
name: "x"   # comment
vars: {n: 3, f: 1.5, yes: true, none: null, list: [a, 2]}
pipeline:
  source: {type: sqlite, config: {path: a.db, query: "SELECT 1", batch_size: 10}}
  sink: {type: jsonl, config: {path: "out/${vars.n}.jsonl"}}
`)
	doc, err := parseRawDoc("in.yaml", raw)
	if err != nil {
		t.Fatal(err)
	}
	var patch connector.Record
	patch.Set("query", connector.String(`SELECT * FROM "a b"`))
	patch.Set("replication_key", connector.String("id"))
	doc.setMatrix(matrixNode([]connector.Dataset{{Name: "a b", Kind: "table", Patch: patch}}, discoverTarget{template: "default"}, false))
	got := map[config.Format]string{}
	for _, f := range []config.Format{config.FormatYAML, config.FormatJSON} {
		out, err := doc.render(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := config.LoadBytes("p."+string(f), out, config.Options{})
		if err != nil {
			t.Fatalf("%s:\n%s\n%v", f, out, err)
		}
		invs, err := d.Expand()
		if err != nil {
			t.Fatal(err)
		}
		got[f] = fmt.Sprintf("%v %v %v %v", d.Vars, invs[0].ID, invs[0].Source.Config.Value, invs[0].Sink.Config.Value)
	}
	if got[config.FormatYAML] != got[config.FormatJSON] {
		t.Errorf("yaml %s\njson %s", got[config.FormatYAML], got[config.FormatJSON])
	}
	want := `{"n":3,"f":1.5,"yes":true,"none":null,"list":["a",2]} a_b {"path":"a.db","query":"SELECT * FROM \"a b\"","batch_size":10,"replication_key":"id"} {"path":"out/3.jsonl"}`
	if got[config.FormatYAML] != want {
		t.Errorf("got  %s\nwant %s", got[config.FormatYAML], want)
	}
}

// globMatch agrees with the equivalent regular expression.
func FuzzGlobMatch(f *testing.F) {
	for _, s := range [][2]string{{"public.*", "public.orders"}, {"ab*ab", "ab"}, {"*a*", "bab"}, {"x", "x"}, {"**", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		parts := strings.Split(pattern, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		re, err := regexp.Compile(`(?s)\A` + strings.Join(parts, ".*") + `\z`)
		if err != nil {
			t.Skip()
		}
		if got, want := globMatch(pattern, name), re.MatchString(name); got != want {
			t.Errorf("globMatch(%q, %q) = %v, regexp says %v", pattern, name, got, want)
		}
	})
}

// Hiding never panics, always leaves a reference where it replaced
// something, and finds nothing more to hide in its own output.
func FuzzHidePassword(f *testing.F) {
	for _, s := range []string{"postgres://a:b@h/d", "u:p@tcp(h)/d", "password=x", "postgres://${env:A}:b@${env:H}/d", "${", "a:${b@c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := &passwordHider{byVar: map[string]string{}}
		out, v, ok := h.hide(s)
		if !ok {
			if out != s {
				t.Fatalf("changed without a replacement: %q -> %q", s, out)
			}
			return
		}
		if !strings.Contains(out, "${env:"+v+"}") {
			t.Fatalf("%q -> %q lacks ${env:%s}", s, out, v)
		}
		if again, _, ok := h.hide(out); ok {
			t.Fatalf("%q -> %q -> %q: hid twice", s, out, again)
		}
	})
}
