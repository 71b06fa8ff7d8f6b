package mysql

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// colKind is how a result column's text is turned into a value.
type colKind uint8

const (
	kindText colKind = iota
	kindInt
	kindUint
	kindFloat
	kindDecimal
	kindDateTime // DATETIME: naive, RFC 3339 without offset
	kindTimestamp
	kindJSON
	kindBinary
	kindBit
)

func kindOf(typ string) colKind {
	switch strings.ToUpper(typ) {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "YEAR":
		return kindInt
	case "UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT", "UNSIGNED BIGINT":
		return kindUint
	case "FLOAT", "DOUBLE", "REAL":
		return kindFloat
	case "DECIMAL", "NUMERIC":
		return kindDecimal
	case "DATETIME":
		return kindDateTime
	case "TIMESTAMP":
		return kindTimestamp
	case "JSON":
		return kindJSON
	case "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY", "GEOMETRY":
		return kindBinary
	case "BIT":
		return kindBit
	}
	return kindText
}

// decode turns one text-protocol value into a faucet value.
func decode(b []byte, k colKind) connector.Value { return decodeIn(nil, b, k) }

var (
	dateSep = []byte("T")
	utcMark = []byte("Z")
)

// decodeIn is decode with the value's text kept in a page's arena (b is
// the driver's buffer: it is copied, never kept).
func decodeIn(a *sqlutil.Arena, b []byte, k colKind) connector.Value {
	if b == nil {
		return connector.Null()
	}
	view := unsafe.String(unsafe.SliceData(b), len(b)) // only parsed, never kept
	switch k {
	case kindInt:
		if n, err := strconv.ParseInt(view, 10, 64); err == nil {
			return connector.Int(n)
		}
	case kindUint:
		if n, err := strconv.ParseInt(view, 10, 64); err == nil {
			return connector.Int(n)
		}
		return connector.String(a.String(b)) // above int64: exact text
	case kindFloat:
		if f, err := strconv.ParseFloat(view, 64); err == nil {
			return connector.Float(f)
		}
	case kindDateTime, kindTimestamp:
		if strings.HasPrefix(view, "0000-00-00") {
			return connector.Null() // MySQL's zero date
		}
		var z []byte
		if k == kindTimestamp && len(b) > 10 {
			z = utcMark // the session runs in UTC
		}
		if i := bytes.IndexByte(b, ' '); i >= 0 {
			return connector.String(a.Concat(b[:i], dateSep, b[i+1:], z))
		}
		return connector.String(a.Concat(b, z))
	case kindJSON:
		if v, err := a.ParseJSON(b); err == nil {
			return v
		}
	case kindBinary:
		return sqlutil.Bytes(b)
	case kindBit:
		var n int64
		for _, c := range b {
			n = n<<8 | int64(c)
		}
		return connector.Int(n)
	}
	return connector.String(a.String(b))
}
