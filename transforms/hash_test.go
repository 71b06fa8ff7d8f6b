package transforms

import "testing"

// Digests computed independently: printf 'alice@example.com' | sha256sum, and
// with the salt "pepper" prepended.
const (
	aliceHex      = "ff8d9819fc0e12bf0d24892e45987e249a28dce836a85cad60e28eaaa8c6d976"
	aliceSaltyHex = "8b8d9adc4875c0dca816e3e17b7ac87b45e40945b731fa02e3b42bf101589e21"
)

func TestHash(t *testing.T) {
	runApply(t, "hash", []applyCase{
		{name: "sha256 hex in place",
			cfg:  `{"fields": ["email"]}`,
			in:   `{"id": 1, "email": "alice@example.com"}`,
			want: `{"id":1,"email":"` + aliceHex + `"}`},
		{name: "salt is prepended",
			cfg:  `{"fields": ["email"], "salt": "pepper"}`,
			in:   `{"email": "alice@example.com"}`,
			want: `{"email":"` + aliceSaltyHex + `"}`},
		{name: "base64",
			cfg:  `{"fields": ["email"], "encoding": "base64"}`,
			in:   `{"email": "alice@example.com"}`,
			want: `{"email":"/42YGfwOEr8NJIkuRZh+JJoo3Og2qFytYOKOqqjG2XY="}`},
		{name: "into keeps the source and appends",
			cfg:  `{"fields": ["email"], "into": "email_hash"}`,
			in:   `{"email": "alice@example.com", "x": 1}`,
			want: `{"email":"alice@example.com","x":1,"email_hash":"` + aliceHex + `"}`},
		{name: "non-strings hash their JSON text",
			cfg:  `{"fields": ["n", "o"]}`,
			in:   `{"n": 42, "o": {"a": [1, "b"]}}`,
			want: `{"n":"73475cb40a568e8da8a045ced110137e159f890ac4da883b6b17dc651b3a8049","o":"ee70aef572200b15408cec63724334e0ccd6c2b5d1cd7225a7f6a3f2a9aa80a9"}`},
		{name: "null and missing are left alone",
			cfg:  `{"fields": ["a", "zz"]}`,
			in:   `{"a": null}`,
			want: `{"a":null}`},
	})
}

func TestHashConfig(t *testing.T) {
	runConfig(t, "hash", []configCase{
		{"missing fields", `{}`, `t.fields: required key is missing`},
		{"empty fields", `{"fields": []}`, `t.fields: must list at least one field`},
		{"into with two fields", `{"fields": ["a", "b"], "into": "h"}`, `t.into: is only valid with exactly one field, got 2`},
		{"blake3", `{"fields": ["a"], "algorithm": "blake3"}`, `t.algorithm: blake3 is not available in this build; use sha256`},
		{"unknown algorithm", `{"fields": ["a"], "algorithm": "md5"}`, `t.algorithm: must be sha256, got "md5"`},
		{"unknown encoding", `{"fields": ["a"], "encoding": "base32"}`, `t.encoding: must be one of hex, base64, got "base32"`},
	})
}

func TestHashConcurrent(t *testing.T) {
	runConcurrently(t, mustBuild(t, "hash", `{"fields": ["email"]}`), `{"email":"alice@example.com"}`, `{"email":"`+aliceHex+`"}`)
}
