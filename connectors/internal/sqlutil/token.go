package sqlutil

import (
	"fmt"
	"hash/fnv"
)

// TokenTable is the table SQL sinks keep effectively-once commit tokens
// in, one row per scope (the pipeline row's state key), written in the
// same transaction as the page it vouches for (reference engine §2.6).
const TokenTable = "_faucet_commit_token"

// ShortScope fits a scope into a column of max bytes (MySQL's
// VARCHAR(255)): longer scopes keep a head and end in "__h:" and the
// 16-hex FNV-1a hash of the whole scope, as faucet-cli 1.x did.
func ShortScope(scope string, max int) string {
	if len(scope) <= max {
		return scope
	}
	h := fnv.New64a()
	h.Write([]byte(scope))
	suffix := fmt.Sprintf("__h:%016x", h.Sum64())
	return scope[:max-len(suffix)] + suffix
}
