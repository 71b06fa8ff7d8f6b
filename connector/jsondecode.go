package connector

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// JSONSyntaxError reports malformed JSON. Offset is the byte offset in the
// parsed input where the problem was found.
type JSONSyntaxError struct {
	Offset int
	Msg    string
	// Err is strconv.ErrRange for a number too large for float64 (valid
	// JSON that no Value can hold), else nil.
	Err error
}

func (e *JSONSyntaxError) Unwrap() error { return e.Err }

func (e *JSONSyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// maxJSONDepth bounds nesting, like encoding/json.
const maxJSONDepth = 10000

// ParseJSON parses one JSON document into a Value. Objects keep their key
// order; a key repeated in one object keeps its first position and its last
// value. Integers that fit int64 become KindInt, other numbers KindFloat
// (integers up to the uint64 maximum keep their text: see ExactNumber).
// Strings are copied: the result shares nothing with data.
func ParseJSON(data []byte) (Value, error) {
	p := jsonParser{mode: strCopy}
	return p.document(data)
}

// ParseJSONZeroCopy is ParseJSON for a caller that owns data and will never
// modify or reuse it: strings in the result are views into data, and strings
// with escapes are unescaped in place, so data is modified (its bytes are no
// longer the original JSON text afterwards).
func ParseJSONZeroCopy(data []byte) (Value, error) {
	p := jsonParser{mode: strInPlace}
	return p.document(data)
}

// JSONParser parses many documents (the lines of a JSON Lines chunk) with
// few allocations: object fields and array elements are cut from slabs
// shared by all documents it parses, strings are views into the input and
// unescaped strings are kept in an arena. The input is never modified, so a
// caller can still report the raw text of a document that failed.
//
// The input slices must not be modified or reused while any returned value is
// in use. A JSONParser is not safe for concurrent use; use one per page.
type JSONParser struct {
	p jsonParser
}

// Reset lets the parser reuse all the memory it has handed out: every
// record, value and unescaped string it returned so far becomes invalid.
// Decoders call it when the engine released the page those came from.
func (jp *JSONParser) Reset() {
	p := &jp.p
	p.fslab, p.vslab, p.arena, p.lastKeys = nil, nil, nil, nil
	p.fnext, p.vnext, p.anext = 0, 0, 0
}

// Parse parses one document.
func (jp *JSONParser) Parse(data []byte) (Value, error) {
	jp.p.mode = strArena
	return jp.p.document(data)
}

// ParseRecord parses one document that should be an object and returns it
// as a Record (without the allocation wrapping it in a Value costs). When
// the document is valid JSON of another kind, it returns that kind and an
// empty record; kind is KindObject on success.
func (jp *JSONParser) ParseRecord(data []byte) (Record, Kind, error) {
	p := &jp.p
	p.mode = strArena
	p.data, p.pos, p.depth = data, 0, 0
	p.skipSpace()
	if p.pos >= len(data) || data[p.pos] != '{' {
		v, err := p.document(data)
		return Record{}, v.Kind(), err
	}
	fields, err := p.objectFields()
	if err != nil {
		return Record{}, KindObject, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Record{}, KindObject, p.errf("unexpected %s after top-level value", quoteByte(p.data[p.pos]))
	}
	return Record{Fields: fields}, KindObject, nil
}

type strMode uint8

const (
	strCopy    strMode = iota // allocate each string
	strInPlace                // views; unescape into the input itself
	strArena                  // views; unescape into an append-only arena
)

type jsonParser struct {
	mode  strMode
	data  []byte
	pos   int
	depth int

	// Scratch stacks for the object/array being built (reused).
	fstack []Field
	vstack []Value
	// Slabs the finished objects and arrays are cut from (strArena only).
	fslab []Field
	vslab []Value
	arena []byte
	// Keys of the previous top-level object: when the next one has the same
	// keys in the same order, they are known to be unique.
	lastKeys []Field

	// Every slab and arena ever allocated, reused in order after Reset.
	fpool               [][]Field
	vpool               [][]Value
	apool               [][]byte
	fnext, vnext, anext int
}

// nextSlab returns an empty slab with room for n from pool, reusing one
// handed out before the last Reset when it is big enough; *next walks pool.
func nextSlab[T any](pool *[][]T, next *int, n int) []T {
	for *next < len(*pool) {
		s := (*pool)[*next]
		*next++
		if cap(s) >= n {
			return s[:0]
		}
	}
	s := make([]T, 0, n)
	*pool = append(*pool, s)
	*next = len(*pool)
	return s
}

func (p *jsonParser) errf(format string, args ...any) error {
	return &JSONSyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *jsonParser) document(data []byte) (Value, error) {
	p.data, p.pos, p.depth = data, 0, 0
	p.skipSpace()
	if p.pos >= len(p.data) {
		return Value{}, p.errf("unexpected end of input")
	}
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Value{}, p.errf("unexpected %s after top-level value", quoteByte(p.data[p.pos]))
	}
	return v, nil
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		s, err := p.str()
		if err != nil {
			return Value{}, err
		}
		return String(s), nil
	case 't':
		return p.literal("true", Bool(true))
	case 'f':
		return p.literal("false", Bool(false))
	case 'n':
		return p.literal("null", Null())
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return p.number()
		}
		return Value{}, p.errf("unexpected %s looking for a value", quoteByte(c))
	}
}

func (p *jsonParser) literal(word string, v Value) (Value, error) {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return v, nil
	}
	return Value{}, p.errf("invalid literal, expected %s", word)
}

func (p *jsonParser) object() (Value, error) {
	fields, err := p.objectFields()
	if err != nil {
		return Value{}, err
	}
	return Object(Record{Fields: fields}), nil
}

// objectFields parses an object at p.pos into its fields.
func (p *jsonParser) objectFields() ([]Field, error) {
	p.depth++
	if p.depth > maxJSONDepth {
		return nil, p.errf("nesting deeper than %d", maxJSONDepth)
	}
	p.pos++ // '{'
	base := len(p.fstack)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return []Field{}, nil
	}
	for {
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in object")
		}
		if p.data[p.pos] != '"' {
			return nil, p.errf("unexpected %s looking for an object key", quoteByte(p.data[p.pos]))
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			if p.pos >= len(p.data) {
				return nil, p.errf("unexpected end of input in object")
			}
			return nil, p.errf("unexpected %s after object key", quoteByte(p.data[p.pos]))
		}
		p.pos++
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.fstack = append(p.fstack, Field{Key: key, Value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in object")
		}
		c := p.data[p.pos]
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			p.pos--
			return nil, p.errf("unexpected %s after object value", quoteByte(c))
		}
		p.skipSpace()
	}
	fields := p.fstack[base:]
	if len(fields) > 1 {
		fields = p.dedupe(fields, p.depth == 1)
	}
	out := p.allocFields(len(fields))
	copy(out, fields)
	clear(p.fstack[base:])
	p.fstack = p.fstack[:base]
	if p.depth == 1 {
		p.lastKeys = out
	}
	p.depth--
	return out, nil
}

// dedupe removes repeated keys: the first position wins, the last value.
func (p *jsonParser) dedupe(fields []Field, top bool) []Field {
	if top && len(p.lastKeys) == len(fields) {
		same := true
		for i := range fields {
			if fields[i].Key != p.lastKeys[i].Key {
				same = false
				break
			}
		}
		if same {
			return fields
		}
	}
	if len(fields) <= 16 {
		dup := false
		for i := 1; i < len(fields) && !dup; i++ {
			for j := 0; j < i; j++ {
				if fields[i].Key == fields[j].Key {
					dup = true
					break
				}
			}
		}
		if !dup {
			return fields
		}
	}
	seen := make(map[string]int, len(fields))
	n := 0
	for _, f := range fields {
		if at, ok := seen[f.Key]; ok {
			fields[at].Value = f.Value
			continue
		}
		seen[f.Key] = n
		fields[n] = f
		n++
	}
	return fields[:n]
}

func (p *jsonParser) allocFields(n int) []Field {
	if p.mode != strArena {
		return make([]Field, n)
	}
	if cap(p.fslab)-len(p.fslab) < n {
		p.fslab = nextSlab(&p.fpool, &p.fnext, max(n, 1024))
	}
	l := len(p.fslab)
	p.fslab = p.fslab[:l+n]
	return p.fslab[l : l+n : l+n]
}

func (p *jsonParser) allocValues(n int) []Value {
	if p.mode != strArena {
		return make([]Value, n)
	}
	if cap(p.vslab)-len(p.vslab) < n {
		p.vslab = nextSlab(&p.vpool, &p.vnext, max(n, 256))
	}
	l := len(p.vslab)
	p.vslab = p.vslab[:l+n]
	return p.vslab[l : l+n : l+n]
}

func (p *jsonParser) array() (Value, error) {
	p.depth++
	if p.depth > maxJSONDepth {
		return Value{}, p.errf("nesting deeper than %d", maxJSONDepth)
	}
	p.pos++ // '['
	base := len(p.vstack)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return Array([]Value{}), nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return Value{}, err
		}
		p.vstack = append(p.vstack, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errf("unexpected end of input in array")
		}
		c := p.data[p.pos]
		p.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			p.pos--
			return Value{}, p.errf("unexpected %s after array element", quoteByte(c))
		}
		p.skipSpace()
	}
	out := p.allocValues(len(p.vstack) - base)
	copy(out, p.vstack[base:])
	clear(p.vstack[base:])
	p.vstack = p.vstack[:base]
	p.depth--
	return Array(out), nil
}

func (p *jsonParser) number() (Value, error) {
	d := p.data
	start := p.pos
	i := start
	neg := false
	if d[i] == '-' {
		neg = true
		i++
	}
	if i >= len(d) {
		p.pos = i
		return Value{}, p.errf("unexpected end of input in number")
	}
	isInt := true
	var u uint64
	overflow := false
	switch {
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		ds := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			u = u*10 + uint64(d[i]-'0')
			i++
		}
		overflow = i-ds > 19 // 19 digits never overflow uint64

	default:
		p.pos = i
		return Value{}, p.errf("invalid number: expected a digit, got %s", quoteByte(d[i]))
	}
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		fs := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == fs {
			p.pos = i
			return Value{}, p.errf("invalid number: expected a digit after the decimal point")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		es := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == es {
			p.pos = i
			return Value{}, p.errf("invalid number: expected a digit in the exponent")
		}
	}
	p.pos = i
	if isInt && !overflow {
		if !neg && u <= 1<<63-1 {
			return Int(int64(u)), nil
		}
		if neg && u <= 1<<63 {
			return Int(int64(-u)), nil
		}
	}
	text := d[start:i]
	if isInt && !neg {
		if _, err := strconv.ParseUint(unsafe.String(unsafe.SliceData(text), len(text)), 10, 64); err == nil {
			// Above int64: keep the exact text besides the float.
			t := unsafe.String(unsafe.SliceData(text), len(text))
			if p.mode == strCopy {
				t = string(text)
			}
			return bigInt(t), nil
		}
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
	if err != nil {
		p.pos = start
		return Value{}, &JSONSyntaxError{Offset: start, Msg: fmt.Sprintf("number %s is out of range", text), Err: strconv.ErrRange}
	}
	return Float(f), nil
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stringStop returns the index of the first byte of b that ends the plain
// run of a JSON string: '"', '\\' or a control byte; len(b) if none.
func stringStop(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (lsb * '"')
		s := x ^ (lsb * '\\')
		m := ((q-lsb)&^q | (s-lsb)&^s | (x-lsb*0x20)&^x) & msb
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// str parses a string starting at the opening quote.
func (p *jsonParser) str() (string, error) {
	start := p.pos + 1
	n := stringStop(p.data[start:])
	end := start + n
	if end < len(p.data) && p.data[end] == '"' {
		p.pos = end + 1
		raw := p.data[start:end]
		if p.mode == strCopy {
			return string(raw), nil
		}
		return unsafe.String(unsafe.SliceData(raw), len(raw)), nil
	}
	return p.strSlow(start, end)
}

// strSlow handles strings with escapes (or errors) from end, the first stop
// byte after the plain prefix data[start:end].
func (p *jsonParser) strSlow(start, end int) (string, error) {
	var buf []byte
	switch p.mode {
	case strCopy:
		buf = make([]byte, 0, end-start+16)
	case strInPlace:
		buf = p.data[start:start]
	case strArena:
		if cap(p.arena)-len(p.arena) < len(p.data)-start {
			p.arena = nextSlab(&p.apool, &p.anext, max(len(p.data)-start, 64<<10))
		}
		buf = p.arena[len(p.arena):len(p.arena)]
	}
	buf = append(buf, p.data[start:end]...)
	i := end
	d := p.data
	for {
		if i >= len(d) {
			p.pos = i
			return "", p.errf("unexpected end of input in string")
		}
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			if p.mode == strArena {
				p.arena = p.arena[:len(p.arena)+len(buf)]
			}
			if p.mode == strCopy {
				return string(buf), nil
			}
			return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
		case c < 0x20:
			p.pos = i
			return "", p.errf("control character %s in string", quoteByte(c))
		case c == '\\':
			if i+1 >= len(d) {
				p.pos = i + 1
				return "", p.errf("unexpected end of input in string escape")
			}
			e := d[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(d, i)
				if !ok {
					p.pos = i
					return "", p.errf("invalid \\u escape")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' {
						r2, ok2 = hex4(d, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.pos = i - 1
				return "", p.errf("invalid escape %s in string", quoteByte(e))
			}
		default:
			n := stringStop(d[i:])
			buf = append(buf, d[i:i+n]...)
			i += n
		}
	}
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
