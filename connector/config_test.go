package connector

import (
	"strings"
	"testing"
)

type testCfg struct {
	Path      string  `json:"path" required:"true"`
	Delimiter Byte    `json:"delimiter" default:","`
	Mode      string  `json:"mode" enum:"fast,safe" default:"fast"`
	Size      int     `json:"size" default:"1000"`
	Ratio     float64 `json:"ratio"`
}

func obj(kv ...any) Value {
	r := NewRecord(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		v, err := FromAny(kv[i+1])
		if err != nil {
			panic(err)
		}
		r.Set(kv[i].(string), v)
	}
	return Object(r)
}

func TestConfigDecode(t *testing.T) {
	for _, c := range []struct {
		name string
		in   Value
		want string // error text, or "" for success
	}{
		{"defaults", obj("path", "a.csv"), ""},
		{"byte as string", obj("path", "a", "delimiter", ";"), ""},
		{"byte as number", obj("path", "a", "delimiter", 9), ""},
		{"tab escape", obj("path", "a", "delimiter", `\t`), ""},
		{"missing required", obj(), "p.config.path: required key is missing"},
		{"unknown key", obj("path", "a", "pth", "b"), `p.config.pth: unknown key "pth"`},
		{"wrong type", obj("path", "a", "size", "big"), "p.config.size: expected an integer, got string"},
		{"bad byte", obj("path", "a", "delimiter", ";;"), `p.config.delimiter: expected a single character (or its byte value 0-255), got ";;"`},
		{"enum", obj("path", "a", "mode", "slow"), `p.config.mode: must be one of fast, safe, got "slow"`},
		{"not an object", String("x"), "p.config: must be an object, got string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cfg testCfg
			err := Config{Path: "p.config", Value: c.in}.Decode(&cfg)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if cfg.Size != 1000 || cfg.Mode != "fast" || cfg.Delimiter == 0 {
					t.Fatalf("defaults not applied: %+v", cfg)
				}
				return
			}
			if err == nil || err.Error() != c.want {
				t.Fatalf("err = %v\nwant  %s", err, c.want)
			}
		})
	}
}

func TestSchemaOf(t *testing.T) {
	s := SchemaOf(&testCfg{})
	props := s["properties"].(map[string]any)
	if props["mode"].(map[string]any)["default"] != "fast" || props["size"].(map[string]any)["default"] != int64(1000) {
		t.Fatalf("defaults missing: %v", props)
	}
	if req := s["required"].([]string); len(req) != 1 || req[0] != "path" {
		t.Fatalf("required = %v", req)
	}
	if !strings.Contains(Value{}.String(), "null") {
		t.Fatal("zero value is not null")
	}
}

// SharedOpts is a family's shared options, embedded by its members.
type SharedOpts struct {
	Size  int    `json:"size" default:"7"`
	Mode  string `json:"mode" enum:"fast,safe" default:"fast"`
	Table string `json:"table" required:"true"`
}

type embeddingCfg struct {
	Query string `json:"query"`
	SharedOpts
}

// TestConfigDecodeEmbedded: the fields of an embedded struct decode,
// default, validate and appear in the schema as the embedding struct's own.
func TestConfigDecodeEmbedded(t *testing.T) {
	var cfg embeddingCfg
	if err := (Config{Path: "c", Value: obj("query", "q", "table", "t", "mode", "safe")}).Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Query != "q" || cfg.Table != "t" || cfg.Mode != "safe" || cfg.Size != 7 {
		t.Fatalf("decoded %+v", cfg)
	}
	err := Config{Path: "c", Value: obj("mode", "slow", "sharedOpts", 1)}.Decode(&embeddingCfg{})
	for _, want := range []string{`c.sharedOpts: unknown key "sharedOpts"`, "c.table: required key is missing", `c.mode: must be one of fast, safe, got "slow"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %s", err, want)
		}
	}
	props := SchemaOf(&embeddingCfg{})["properties"].(map[string]any)
	if len(props) != 4 || props["size"].(map[string]any)["default"] != int64(7) || props["query"] == nil {
		t.Fatalf("schema properties %v", props)
	}
}
