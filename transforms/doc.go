// Package transforms holds faucet's built-in record transforms, one file per
// transform. Each registers itself with connector.RegisterTransform from an
// init function, so a blank import of this package makes them all available
// as `type:` values in a pipeline's `transforms:` list.
//
// Every transform edits the record in place and keeps its key order: a
// renamed key keeps its position, a key that is set anew is appended at the
// end, an existing one is replaced where it stands. Transforms that name
// fields act on top-level fields only (run flatten first to reach nested
// ones) and skip fields the record does not have, unless their
// documentation says otherwise. All configuration problems (an empty field
// list, a bad regular expression, an expression that does not compile) are
// reported by the constructor, which is what `faucet validate` runs.
//
// The transforms, with the original's config keys (faucet-cli 1.13):
//
//	rename_keys    pattern, replacement           regex rename of every key, recursively
//	keys_case      mode                           re-case every key, recursively
//	spell_symbols  extra, separator               spell symbols in keys, recursively
//	flatten        separator                      nested objects to joined top-level keys
//	select, drop   fields                         keep / remove top-level fields
//	set            values                         constant fields
//	rename_field   fields                         exact renames, position kept
//	cast           fields, on_error               int, float, bool, string, timestamp
//	redact         fields, mask                   replace values with a mask
//	hash           fields, algorithm, encoding, salt, into
//	json_parse     fields, on_error, into         JSON text to nested values
//	json_encode    fields                         nested values to JSON text
//	coalesce       field, default | from, treat_empty_string_as_null
//	value_case     fields, mode                   lower, upper, trim, title, capitalize
//	split, join    field, delimiter, (trim), into
//	lookup         values | jsonl, on, add, on_missing
//	cdc_unwrap     op_field, after_field, ...     CDC envelope to row + __op marker
//	filter         expr | path, op, value         keep records for which it holds
//
// The original's one-to-many transforms (explode, unpivot, cross_join,
// tree_flatten) need an engine stage that can emit several records for one;
// connector.Transform is one-to-one, so they are not here.
//
// A transform instance is shared by the goroutines that transform pages
// concurrently, so per-instance state (the key caches of rename_keys and
// keys_case, the compiled filter expression) is safe for concurrent use.
//
// Records read from CSV carry every value as a string. A filter that
// compares with numbers needs a cast before it, or a conversion inside the
// expression (`int(amount) > 5`).
package transforms
