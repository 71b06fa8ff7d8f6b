package sqlutil

import "strconv"

// Dialect is what differs between the SQL sources when they build a read
// statement: identifier quoting, the spelling of a 64-bit integer in
// CAST, and bind-parameter placeholders.
type Dialect struct {
	// Quote quotes identifiers: '"' (postgres, sqlite) or '`' (mysql).
	Quote byte
	// IntType is the CAST target of a 64-bit signed integer: BIGINT
	// (postgres), SIGNED (mysql), INTEGER (sqlite).
	IntType string
	// Numbered placeholders are $1, $2, ... (postgres); otherwise ?.
	Numbered bool
}

// The dialects of the three SQL sources.
var (
	Postgres = Dialect{Quote: '"', IntType: "BIGINT", Numbered: true}
	MySQL    = Dialect{Quote: '`', IntType: "SIGNED"}
	SQLite   = Dialect{Quote: '"', IntType: "INTEGER"}
)

// Ident quotes an identifier.
func (d Dialect) Ident(name string) string { return QuoteIdent(name, d.Quote) }

// Param is the placeholder of the n-th (1-based) bind argument.
func (d Dialect) Param(n int) string {
	if d.Numbered {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}
