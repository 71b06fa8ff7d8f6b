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
