package transforms

import (
	"fmt"
	"testing"
)

func TestKeysCaseModes(t *testing.T) {
	// The original's documented table, plus tokenizer edge cases.
	in := `{"First Name": 1, "last-name": 2, "camelCase": 3, "ID": 4, "XMLParser": 5, "field1Name": 6, "!@#": 7, "snake_case_key": 8, "Ünïcode Wörd": 9}`
	want := map[string]string{
		"snake":           `{"first_name":1,"last_name":2,"camel_case":3,"id":4,"xmlparser":5,"field1name":6,"!@#":7,"snake_case_key":8,"ünïcode_wörd":9}`,
		"camel":           `{"firstName":1,"lastName":2,"camelCase":3,"id":4,"xmlparser":5,"field1name":6,"!@#":7,"snakeCaseKey":8,"ünïcodeWörd":9}`,
		"pascal":          `{"FirstName":1,"LastName":2,"CamelCase":3,"Id":4,"Xmlparser":5,"Field1name":6,"!@#":7,"SnakeCaseKey":8,"ÜnïcodeWörd":9}`,
		"kebab":           `{"first-name":1,"last-name":2,"camel-case":3,"id":4,"xmlparser":5,"field1name":6,"!@#":7,"snake-case-key":8,"ünïcode-wörd":9}`,
		"screaming_snake": `{"FIRST_NAME":1,"LAST_NAME":2,"CAMEL_CASE":3,"ID":4,"XMLPARSER":5,"FIELD1NAME":6,"!@#":7,"SNAKE_CASE_KEY":8,"ÜNÏCODE_WÖRD":9}`,
		"dot":             `{"first.name":1,"last.name":2,"camel.case":3,"id":4,"xmlparser":5,"field1name":6,"!@#":7,"snake.case.key":8,"ünïcode.wörd":9}`,
	}
	var cases []applyCase
	for _, mode := range []string{"snake", "camel", "pascal", "kebab", "screaming_snake", "dot"} {
		cases = append(cases, applyCase{name: mode, cfg: fmt.Sprintf(`{"mode": %q}`, mode), in: in, want: want[mode]})
	}
	runApply(t, "keys_case", cases)
}

func TestKeysCase(t *testing.T) {
	runApply(t, "keys_case", []applyCase{
		{name: "recursive",
			cfg:  `{"mode": "snake"}`,
			in:   `{"userInfo": {"homeAddress": {"zipCode": "1"}, "tagList": [{"tagName": "x"}]}}`,
			want: `{"user_info":{"home_address":{"zip_code":"1"},"tag_list":[{"tag_name":"x"}]}}`},
		{name: "collision names both keys",
			cfg: `{"mode": "snake"}`,
			in:  `{"firstName": 1, "first_name": 2}`,
			err: `keys_case: keys "firstName" and "first_name" both become "first_name"`},
		{name: "collision between two changed keys",
			cfg: `{"mode": "camel"}`,
			in:  `{"a": 0, "first-name": 1, "First Name": 2}`,
			err: `keys_case: keys "first-name" and "First Name" both become "firstName"`},
		{name: "nested collision",
			cfg: `{"mode": "kebab"}`,
			in:  `{"outer": [{"a_b": 1, "a-b": 2}]}`,
			err: `keys_case: keys "a_b" and "a-b" both become "a-b" (inside "outer")`},
	})
}

func TestKeysCaseConfig(t *testing.T) {
	runConfig(t, "keys_case", []configCase{
		{"missing mode", `{}`, `t.mode: required key is missing`},
		{"unknown mode", `{"mode": "title"}`, `t.mode: must be one of snake, camel, pascal, kebab, screaming_snake, dot, got "title"`},
	})
}

func TestKeysCaseConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "keys_case", `{"mode": "snake"}`),
		`{"userId": 1, "Full Name": "x", "items": [{"skuCode": "a"}]}`,
		`{"user_id":1,"full_name":"x","items":[{"sku_code":"a"}]}`)
}
