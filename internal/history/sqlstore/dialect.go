package sqlstore

import (
	"regexp"
	"strconv"
	"strings"
)

// Dialect is the SQL flavour of a connection.
type Dialect int

// Dialects.
const (
	Postgres Dialect = iota + 1
	SQLite
)

func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

var paramRe = regexp.MustCompile(`\$(\d+)(::text)?`)

// render turns a statement written in the Postgres form ($n placeholders,
// ::text casts on nullable parameters, position(x in y), BIGINT casts) into
// the dialect's text. SQLite gets numbered ?n placeholders (so one bind list
// fits both), instr(y, x) and INTEGER casts. This is the only place statement
// text differs between dialects.
func (d Dialect) render(pg string) string {
	if d == Postgres {
		return pg
	}
	s := paramRe.ReplaceAllString(pg, "?$1")
	s = strings.ReplaceAll(s, "AS BIGINT)", "AS INTEGER)")
	s = positionRe.ReplaceAllString(s, "instr($2, $1) > 0")
	return s
}

var positionRe = regexp.MustCompile(`position\((.+?) in (\?\d+)\) > 0`)

// placeholder is the n-th (1-based) bind marker for dynamically built queries.
func (d Dialect) placeholder(n int) string {
	if d == Postgres {
		return "$" + strconv.Itoa(n)
	}
	return "?" + strconv.Itoa(n)
}
