package transforms

import (
	"fmt"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
)

// checkFields validates a `fields` list: at least one entry, none empty.
// key is the config key, relative to the transform's config block.
func checkFields(key string, fields []string) error {
	if len(fields) == 0 {
		return connector.ConfigErrorf(key, "must list at least one field")
	}
	for i, f := range fields {
		if f == "" {
			return connector.ConfigErrorf(fmt.Sprintf("%s[%d]", key, i), "field name must not be empty")
		}
	}
	return nil
}

// configValue returns the raw value of key in the config block and whether
// the key was written. Config structs decode maps into Go maps, which lose
// the document order; this is where the order is read back.
func configValue(cfg connector.Config, key string) (connector.Value, bool) {
	return cfg.Value.AsObject().Get(key)
}

// configFields returns the entries of an object-valued config key in
// document order.
func configFields(cfg connector.Config, key string) []connector.Field {
	v, _ := configValue(cfg, key)
	return v.AsObject().Fields
}

// fresh returns v, deep-copied when it is an array or an object. Constants
// from the config are copied before they go into a record so that a later
// transform editing one record in place never touches another.
func fresh(v connector.Value) connector.Value {
	switch v.Kind() {
	case connector.KindArray, connector.KindObject:
		return v.Clone()
	}
	return v
}

// show renders a value for an error message: its JSON form, cut after 64
// bytes.
func show(v connector.Value) string {
	const max = 64
	b := connector.AppendJSON(nil, v)
	if len(b) > max {
		cut := max
		for cut > 0 && b[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

// quote renders a key or name in an error message.
func quote(s string) string { return strconv.Quote(s) }
