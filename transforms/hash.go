package transforms

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "hash",
		Summary: "Replace fields with a salted SHA-256 digest: a stable, joinable pseudonym.",
		Config:  &hashConfig{},
		New:     newHash,
	})
}

type hashConfig struct {
	Fields    []string         `json:"fields" required:"true" doc:"Top-level fields to hash. Null values and missing fields are left alone."`
	Algorithm string           `json:"algorithm" default:"sha256" doc:"Digest algorithm: sha256."`
	Encoding  string           `json:"encoding" default:"hex" enum:"hex,base64" doc:"Digest encoding: hex (lower case) or base64 (standard, padded)."`
	Salt      connector.Secret `json:"salt" doc:"Prepended to the value before hashing; use ${env:...}."`
	Into      string           `json:"into" doc:"Write the digest to this field and keep the source (only with exactly one field)."`
}

func (c *hashConfig) Validate() error {
	if err := checkFields("fields", c.Fields); err != nil {
		return err
	}
	switch c.Algorithm {
	case "sha256":
	case "blake3":
		// The original offers BLAKE3 behind a feature flag; it needs a
		// library this build does not link.
		return connector.ConfigErrorf("algorithm", "blake3 is not available in this build; use sha256")
	default:
		return connector.ConfigErrorf("algorithm", "must be sha256, got %q", c.Algorithm)
	}
	if c.Into != "" && len(c.Fields) != 1 {
		return connector.ConfigErrorf("into", "is only valid with exactly one field, got %d", len(c.Fields))
	}
	return nil
}

// hash hashes strings over their UTF-8 bytes and every other value over its
// compact JSON text, salt first. Null is not hashed: every null would get
// the same digest, collapsing those rows in a join or an upsert keyed on it.
type hash struct {
	fields []string
	base64 bool
	salt   []byte
	into   string
}

func newHash(cfg connector.Config) (connector.Transform, error) {
	var c hashConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	return &hash{fields: c.Fields, base64: c.Encoding == "base64", salt: []byte(c.Salt.Reveal()), into: c.Into}, nil
}

func (t *hash) Apply(r *connector.Record) (bool, error) {
	for _, f := range t.fields {
		v, ok := r.Get(f)
		if !ok || v.IsNull() {
			continue
		}
		h := sha256.New()
		h.Write(t.salt)
		if v.Kind() == connector.KindString {
			io.WriteString(h, v.AsString())
		} else {
			h.Write(connector.AppendJSON(nil, v))
		}
		var sum [sha256.Size]byte
		h.Sum(sum[:0])
		var digest string
		if t.base64 {
			digest = base64.StdEncoding.EncodeToString(sum[:])
		} else {
			digest = hex.EncodeToString(sum[:])
		}
		target := f
		if t.into != "" {
			target = t.into
		}
		r.Set(target, connector.String(digest))
	}
	return true, nil
}
