package connector

import (
	"math"
	"strconv"
)

// Compare orders two values for bookmarks and replication keys. It returns
// -1, 0 or +1.
//
// Within a kind: false < true; ints compare exactly; an int and a float
// compare by numeric value (exactly, without rounding the int); strings
// compare byte-wise, except that two strings which both spell a number
// (an optional sign, digits, an optional fraction and exponent: "9",
// "-0.5", "1e3") compare by numeric value, so that a CSV id column, whose
// values are strings, orders "9" before "10". Arrays compare element-wise,
// objects field by field (key, then value), the shorter first on a tie.
// Across kinds: null < bool < number < string < array < object.
func Compare(a, b Value) int {
	ra, rb := kindRank(a.Kind()), kindRank(b.Kind())
	if ra != rb {
		return cmpInt(ra, rb)
	}
	switch a.Kind() {
	case KindNull:
		return 0
	case KindBool:
		return cmpInt(int(a.n), int(b.n))
	case KindInt, KindFloat:
		return compareNumbers(a, b)
	case KindString:
		return compareStrings(a.str(), b.str())
	case KindArray:
		x, y := a.AsArray(), b.AsArray()
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := Compare(x[i], y[i]); c != 0 {
				return c
			}
		}
		return cmpInt(len(x), len(y))
	case KindObject:
		x, y := a.AsObject().Fields, b.AsObject().Fields
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := cmpString(x[i].Key, y[i].Key); c != 0 {
				return c
			}
			if c := Compare(x[i].Value, y[i].Value); c != 0 {
				return c
			}
		}
		return cmpInt(len(x), len(y))
	}
	return 0
}

func kindRank(k Kind) int {
	switch k {
	case KindNull:
		return 0
	case KindBool:
		return 1
	case KindInt, KindFloat:
		return 2
	case KindString:
		return 3
	case KindArray:
		return 4
	}
	return 5
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareNumbers(a, b Value) int {
	switch {
	case a.kind == KindInt && b.kind == KindInt:
		x, y := int64(a.n), int64(b.n)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case a.kind == KindInt:
		return cmpIntFloat(int64(a.n), b.AsFloat())
	case b.kind == KindInt:
		return -cmpIntFloat(int64(b.n), a.AsFloat())
	}
	return cmpFloat(a.AsFloat(), b.AsFloat())
}

// cmpFloat orders floats with NaN below every other number.
func cmpFloat(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return -1
	case yn:
		return 1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// cmpIntFloat compares i with f exactly (converting i to float64 could round).
func cmpIntFloat(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return 1
	case f < -9.223372036854775808e18:
		return 1
	case f >= 9.223372036854775808e18:
		return -1
	}
	t := math.Trunc(f)
	fi := int64(t)
	switch {
	case i < fi:
		return -1
	case i > fi:
		return 1
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}

// compareStrings compares numerically when both strings spell numbers.
func compareStrings(a, b string) int {
	if a == b {
		return 0
	}
	na, okA := scanNumber(a)
	if okA {
		if nb, okB := scanNumber(b); okB {
			if na.exp || nb.exp {
				x, _ := strconv.ParseFloat(a, 64)
				y, _ := strconv.ParseFloat(b, 64)
				if c := cmpFloat(x, y); c != 0 {
					return c
				}
				return cmpString(a, b)
			}
			return compareDecimals(na, nb)
		}
	}
	return cmpString(a, b)
}

// decimal is a number spelled in a string, split into parts that compare
// exactly: intPart without leading zeros, frac without trailing zeros.
type decimal struct {
	neg  bool
	exp  bool // has an exponent: compared as float64
	ip   string
	frac string
}

// scanNumber recognises [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?.
func scanNumber(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	d.ip = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		d.frac = s[fs:i]
	}
	if d.ip == "" && d.frac == "" {
		return d, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if es == i {
			return d, false
		}
		d.exp = true
	}
	if i != len(s) {
		return d, false
	}
	for len(d.ip) > 0 && d.ip[0] == '0' {
		d.ip = d.ip[1:]
	}
	for len(d.frac) > 0 && d.frac[len(d.frac)-1] == '0' {
		d.frac = d.frac[:len(d.frac)-1]
	}
	if d.ip == "" && d.frac == "" {
		d.neg = false // -0 == 0
	}
	return d, true
}

func compareDecimals(a, b decimal) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	c := cmpInt(len(a.ip), len(b.ip))
	if c == 0 {
		c = cmpString(a.ip, b.ip)
	}
	if c == 0 {
		c = cmpString(a.frac, b.frac) // no trailing zeros: byte order is numeric order
	}
	if a.neg {
		return -c
	}
	return c
}

// MaxBookmark returns the higher of two replication-key bookmarks by
// Compare: the BookmarkMerger of sources whose page bookmarks are each
// page's highest key.
func MaxBookmark(committed, page Value) Value {
	if Compare(page, committed) > 0 {
		return page
	}
	return committed
}
