package postgres

import (
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5/pgtype"
)

// resultFormats asks for binary results where decoding binary is simple
// and fast (integers, floats, booleans, timestamps, bytea, arrays of
// known types); every other type comes as text, which is already the
// faucet value for numeric, date, uuid, interval, enums and the like.
var resultFormats = func() map[uint32]int16 {
	m := map[uint32]int16{}
	for _, oid := range []uint32{
		pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID,
		pgtype.Float4OID, pgtype.Float8OID, pgtype.BoolOID,
		pgtype.TimestamptzOID, pgtype.TimestampOID, pgtype.ByteaOID,
	} {
		m[oid] = pgtype.BinaryFormatCode
	}
	for _, oid := range arrayOIDs {
		m[oid] = pgtype.BinaryFormatCode
	}
	return m
}()

var arrayOIDs = []uint32{
	pgtype.BoolArrayOID, pgtype.Int2ArrayOID, pgtype.Int4ArrayOID, pgtype.Int8ArrayOID,
	pgtype.Float4ArrayOID, pgtype.Float8ArrayOID, pgtype.TextArrayOID, pgtype.VarcharArrayOID,
	pgtype.BPCharArrayOID, pgtype.NumericArrayOID, pgtype.TimestamptzArrayOID, pgtype.TimestampArrayOID,
	pgtype.DateArrayOID, pgtype.UUIDArrayOID, pgtype.JSONBArrayOID, pgtype.JSONArrayOID, pgtype.ByteaArrayOID,
}

var isArrayOID = func() map[uint32]bool {
	m := map[uint32]bool{}
	for _, o := range arrayOIDs {
		m[o] = true
	}
	return m
}()

// pgEpoch is Postgres' timestamp zero (2000-01-01 00:00:00 UTC).
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// decodeValue turns one raw column value into a faucet value.
func decodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (connector.Value, error) {
	return decodeIn(nil, m, oid, format, src)
}

// decodeIn is decodeValue with the value's text kept in a page's arena.
func decodeIn(a *sqlutil.Arena, m *pgtype.Map, oid uint32, format int16, src []byte) (connector.Value, error) {
	if src == nil {
		return connector.Null(), nil
	}
	if format == pgtype.TextFormatCode {
		switch oid {
		case pgtype.JSONOID, pgtype.JSONBOID:
			return a.ParseJSON(src)
		}
		return connector.String(a.String(src)), nil
	}
	switch oid {
	case pgtype.Int2OID:
		if len(src) == 2 {
			return connector.Int(int64(int16(binary.BigEndian.Uint16(src)))), nil
		}
	case pgtype.Int4OID:
		if len(src) == 4 {
			return connector.Int(int64(int32(binary.BigEndian.Uint32(src)))), nil
		}
	case pgtype.OIDOID:
		if len(src) == 4 {
			return connector.Int(int64(binary.BigEndian.Uint32(src))), nil
		}
	case pgtype.Int8OID:
		if len(src) == 8 {
			return connector.Int(int64(binary.BigEndian.Uint64(src))), nil
		}
	case pgtype.Float4OID:
		if len(src) == 4 {
			return floatValue(float64(math.Float32frombits(binary.BigEndian.Uint32(src)))), nil
		}
	case pgtype.Float8OID:
		if len(src) == 8 {
			return floatValue(math.Float64frombits(binary.BigEndian.Uint64(src))), nil
		}
	case pgtype.BoolOID:
		if len(src) == 1 {
			return connector.Bool(src[0] != 0), nil
		}
	case pgtype.TimestamptzOID, pgtype.TimestampOID:
		if len(src) == 8 {
			return timestampIn(a, int64(binary.BigEndian.Uint64(src)), oid == pgtype.TimestamptzOID), nil
		}
	case pgtype.ByteaOID:
		return sqlutil.Bytes(src), nil
	default:
		if isArrayOID[oid] {
			typ, ok := m.TypeForOID(oid)
			if !ok {
				break
			}
			x, err := typ.Codec.DecodeValue(m, oid, format, src)
			if err != nil {
				return connector.Value{}, err
			}
			return fromGo(x)
		}
	}
	return connector.Value{}, fmt.Errorf("cannot decode type oid %d (format %d, %d bytes)", oid, format, len(src))
}

// floatValue keeps NaN and infinities as text (JSON has no spelling for them).
func floatValue(f float64) connector.Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return connector.String(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return connector.Float(f)
}

// timestampValue renders microseconds since 2000-01-01 as RFC 3339: UTC
// with Z for timestamptz, without an offset for timestamp.
func timestampValue(us int64, tz bool) connector.Value { return timestampIn(nil, us, tz) }

func timestampIn(a *sqlutil.Arena, us int64, tz bool) connector.Value {
	switch us {
	case math.MaxInt64:
		return connector.String("infinity")
	case math.MinInt64:
		return connector.String("-infinity")
	}
	t := pgEpoch.Add(time.Duration(us/1e6) * time.Second).Add(time.Duration(us%1e6) * time.Microsecond)
	if tz {
		return connector.String(a.Format(t, time.RFC3339Nano))
	}
	return connector.String(a.Format(t, "2006-01-02T15:04:05.999999"))
}

// fromGo converts what pgx decoded (array elements) into a faucet value.
func fromGo(x any) (connector.Value, error) {
	switch t := x.(type) {
	case nil:
		return connector.Null(), nil
	case int16:
		return connector.Int(int64(t)), nil
	case int32:
		return connector.Int(int64(t)), nil
	case float32:
		return floatValue(float64(t)), nil
	case float64:
		return floatValue(t), nil
	case time.Time:
		return connector.String(t.UTC().Format(time.RFC3339Nano)), nil
	case []byte:
		return sqlutil.Bytes(t), nil
	case [16]byte:
		return connector.String(uuidString(t)), nil
	case []any:
		out := make([]connector.Value, len(t))
		for i, e := range t {
			v, err := fromGo(e)
			if err != nil {
				return connector.Value{}, err
			}
			out[i] = v
		}
		return connector.Array(out), nil
	case map[string]any:
		return connector.FromAny(t)
	case driver.Valuer:
		v, err := t.Value()
		if err != nil {
			return connector.Value{}, err
		}
		return fromGo(v)
	}
	return connector.FromAny(x)
}

func uuidString(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}
