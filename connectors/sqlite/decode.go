package sqlite

import (
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// colKind is how a column's declared type shapes its values.
type colKind uint8

const (
	kindPlain colKind = iota
	kindBool          // BOOL, BOOLEAN: 0/1 become false/true
	kindJSON          // JSON: text parsed into nested values
	kindDate          // DATE: a date without a time of day stays YYYY-MM-DD
)

func kindOf(decl string) colKind {
	switch strings.ToUpper(decl) {
	case "BOOL", "BOOLEAN":
		return kindBool
	case "JSON", "JSONB":
		return kindJSON
	case "DATE":
		return kindDate
	}
	return kindPlain
}

// decode turns a driver value into a faucet value: integers, reals, text,
// blobs as base64, times as RFC 3339 UTC, DATE values as YYYY-MM-DD.
func decode(x any, k colKind) connector.Value {
	switch t := x.(type) {
	case nil:
		return connector.Null()
	case int64:
		if k == kindBool && (t == 0 || t == 1) {
			return connector.Bool(t == 1)
		}
		return connector.Int(t)
	case float64:
		return connector.Float(t)
	case bool:
		return connector.Bool(t)
	case string:
		if k == kindJSON {
			if v, err := connector.ParseJSON([]byte(t)); err == nil {
				return v
			}
		}
		return connector.String(t)
	case []byte:
		return sqlutil.Bytes(t)
	case time.Time:
		// The driver parses DATE, DATETIME and TIMESTAMP text; a plain
		// date comes back as midnight UTC and is a date again here.
		t = t.UTC()
		if k == kindDate && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return connector.String(t.Format(time.DateOnly))
		}
		return connector.String(t.Format(time.RFC3339Nano))
	}
	return connector.Null()
}
