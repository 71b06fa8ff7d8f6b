package transforms

import (
	"regexp"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "rename_keys",
		Summary: "Rename every key, recursively, with a regular expression substitution.",
		Config:  &renameKeysConfig{},
		New:     newRenameKeys,
	})
}

type renameKeysConfig struct {
	Pattern     string `json:"pattern" required:"true" doc:"Regular expression (RE2 syntax) matched against every key, at every depth."`
	Replacement string `json:"replacement" required:"true" doc:"Replacement for each match; $1 and ${name} refer to capture groups, $$ is a literal $."`

	re *regexp.Regexp
}

func (c *renameKeysConfig) Validate() error {
	if c.Pattern == "" {
		return connector.ConfigErrorf("pattern", "must not be empty")
	}
	re, err := regexp.Compile(c.Pattern)
	if err != nil {
		return connector.ConfigErrorf("pattern", "invalid regular expression: %v", err)
	}
	c.re = re
	return nil
}

// renameKeys rewrites keys with re.ReplaceAllString. The result for each
// distinct key is cached, so the regular expression runs once per key, not
// once per record.
type renameKeys struct {
	m *keyMapper
}

func newRenameKeys(cfg connector.Config) (connector.Transform, error) {
	var c renameKeysConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	re, repl := c.re, c.Replacement
	fn := func(k string) string { return re.ReplaceAllString(k, repl) }
	return &renameKeys{m: newKeyMapper("rename_keys", fn)}, nil
}

func (t *renameKeys) Apply(r *connector.Record) (bool, error) {
	if err := t.m.apply(r); err != nil {
		return false, err
	}
	return true, nil
}
