package transforms

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "cast",
		Summary: "Convert top-level fields to int, float, bool, string or timestamp.",
		Config:  &castConfig{},
		New:     newCast,
	})
}

type castConfig struct {
	Fields  map[string]string `json:"fields" required:"true" enum:"int,float,bool,string,timestamp" doc:"Field name -> target type. int: integers, whole floats, integer strings (\" 42 \"), true/false as 1/0. float: numbers and numeric strings. bool: true/false/yes/no/y/n/1/0 in any case, and 0/1. string: scalars as text. timestamp: RFC 3339, YYYY-MM-DD, YYYY-MM-DD HH:MM:SS (UTC) or integer epoch seconds, written as RFC 3339 UTC. Null stays null."`
	OnError string            `json:"on_error" default:"error" enum:"error,null,skip" doc:"On a value that does not convert: error fails the record, null replaces it with null, skip leaves it as it is."`
}

var castTypes = map[string]castType{
	"int": castInt, "float": castFloat, "bool": castBool, "string": castString, "timestamp": castTimestamp,
}

func (c *castConfig) Validate() error {
	if len(c.Fields) == 0 {
		return connector.ConfigErrorf("fields", "must name at least one field")
	}
	for f, ty := range c.Fields {
		if f == "" {
			return connector.ConfigErrorf("fields", "field name must not be empty")
		}
		if _, ok := castTypes[ty]; !ok {
			return connector.ConfigErrorf("fields."+f, "must be one of int, float, bool, string, timestamp, got %q", ty)
		}
	}
	return nil
}

type castType uint8

const (
	castInt castType = iota
	castFloat
	castBool
	castString
	castTimestamp
)

var castTypeNames = [...]string{"int", "float", "bool", "string", "timestamp"}

type castField struct {
	name string
	to   castType
}

// cast converts fields in place. Null stays null for every target type, as
// in SQL (CAST(NULL AS INT) is NULL); the original refused to cast null,
// which made cast unusable on nullable columns without on_error: null, and
// that also hid genuinely bad values. Fields the record lacks are skipped.
//
// The common conversions do not allocate: string to int, float and bool
// parse in place, and number and bool values are stored inline in Value.
type cast struct {
	fields  []castField // document order
	onError string
}

func newCast(cfg connector.Config) (connector.Transform, error) {
	var c castConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	t := &cast{onError: c.OnError}
	for _, f := range configFields(cfg, "fields") {
		t.fields = append(t.fields, castField{name: f.Key, to: castTypes[f.Value.AsString()]})
	}
	return t, nil
}

func (t *cast) Apply(r *connector.Record) (bool, error) {
	for _, f := range t.fields {
		i := r.Index(f.name)
		if i < 0 {
			continue
		}
		p := &r.Fields[i].Value
		if convert(p, f.to) {
			continue
		}
		switch t.onError {
		case "null":
			*p = connector.Null()
		case "skip":
		default:
			return false, &CastError{Field: f.name, Value: *p, To: castTypeNames[f.to]}
		}
	}
	return true, nil
}

// CastError is a value that cast could not convert.
type CastError struct {
	Field string
	Value connector.Value
	To    string
}

func (e *CastError) Error() string {
	msg := fmt.Sprintf("cast: field %s: cannot convert %s to %s", quote(e.Field), show(e.Value), e.To)
	if e.To == "timestamp" {
		msg += " (want RFC 3339, YYYY-MM-DD, YYYY-MM-DD HH:MM:SS or integer epoch seconds)"
	}
	return msg
}

// convert converts *p in place and reports whether it could; on failure *p
// is unchanged.
func convert(p *connector.Value, to castType) bool {
	if p.IsNull() {
		return true
	}
	switch to {
	case castInt:
		return toInt(p)
	case castFloat:
		return toFloat(p)
	case castBool:
		return toBool(p)
	case castString:
		return toString(p)
	case castTimestamp:
		return toTimestamp(p)
	}
	return false
}

func toInt(p *connector.Value) bool {
	v := *p
	switch v.Kind() {
	case connector.KindInt:
		return true
	case connector.KindFloat:
		// Only a whole number within int64 range: 4.2 is not silently
		// truncated, 1e30 not saturated. 2^63 is the first float past MaxInt64.
		f := v.AsFloat()
		if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
			return false
		}
		*p = connector.Int(int64(f))
		return true
	case connector.KindBool:
		if v.AsBool() {
			*p = connector.Int(1)
			return true
		}
		*p = connector.Int(0)
		return true
	case connector.KindString:
		n, ok := parseInt(strings.TrimSpace(v.AsString()))
		if !ok {
			return false
		}
		*p = connector.Int(n)
		return true
	}
	return false
}

// parseInt parses an optionally signed decimal integer without allocating,
// even when it fails (strconv's errors allocate, which matters under
// on_error: null or skip).
func parseInt(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxUint64-9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

func toFloat(p *connector.Value) bool {
	v := *p
	switch v.Kind() {
	case connector.KindFloat:
		return true
	case connector.KindInt:
		*p = connector.Float(v.AsFloat())
		return true
	case connector.KindBool:
		if v.AsBool() {
			*p = connector.Float(1)
			return true
		}
		*p = connector.Float(0)
		return true
	case connector.KindString:
		s := strings.TrimSpace(v.AsString())
		if isHexFloat(s) { // strconv reads "0x1p3"; a CSV number never means that
			return false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		*p = connector.Float(f)
		return true
	}
	return false
}

func isHexFloat(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	return len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

func toBool(p *connector.Value) bool {
	v := *p
	switch v.Kind() {
	case connector.KindBool:
		return true
	case connector.KindInt:
		switch v.AsInt() {
		case 0:
			*p = connector.Bool(false)
			return true
		case 1:
			*p = connector.Bool(true)
			return true
		}
	case connector.KindString:
		s := strings.TrimSpace(v.AsString())
		for _, w := range [...]string{"true", "yes", "y", "1"} {
			if strings.EqualFold(s, w) {
				*p = connector.Bool(true)
				return true
			}
		}
		for _, w := range [...]string{"false", "no", "n", "0"} {
			if strings.EqualFold(s, w) {
				*p = connector.Bool(false)
				return true
			}
		}
	}
	return false
}

func toString(p *connector.Value) bool {
	v := *p
	switch v.Kind() {
	case connector.KindString:
		return true
	case connector.KindInt, connector.KindBool:
		*p = connector.String(v.Text())
		return true
	case connector.KindFloat:
		*p = connector.String(string(connector.AppendJSONFloat(nil, v.AsFloat())))
		return true
	}
	return false
}

// Layouts cast accepts for timestamps besides RFC 3339. Those without a zone
// are read as UTC.
var timestampLayouts = [...]string{
	"2006-01-02",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
}

func toTimestamp(p *connector.Value) bool {
	v := *p
	var t time.Time
	switch v.Kind() {
	case connector.KindInt:
		t = time.Unix(v.AsInt(), 0)
	case connector.KindString:
		var ok bool
		if t, ok = parseTimestamp(strings.TrimSpace(v.AsString())); !ok {
			return false
		}
	default:
		return false
	}
	t = t.UTC()
	if t.Year() < 0 || t.Year() > 9999 {
		return false
	}
	*p = connector.String(formatTimestamp(t))
	return true
}

func parseTimestamp(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	for _, layout := range timestampLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// formatTimestamp writes t (in UTC) as RFC 3339 with Z, with no fraction
// for whole seconds and otherwise 3, 6 or 9 fractional digits, whichever is
// the shortest exact one (the original's chrono "AutoSi" style).
func formatTimestamp(t time.Time) string {
	ns := t.Nanosecond()
	switch {
	case ns == 0:
		return t.Format("2006-01-02T15:04:05Z")
	case ns%1_000_000 == 0:
		return t.Format("2006-01-02T15:04:05.000Z")
	case ns%1_000 == 0:
		return t.Format("2006-01-02T15:04:05.000000Z")
	}
	return t.Format("2006-01-02T15:04:05.000000000Z")
}
