package parquet

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"

	"github.com/faucet-hq/faucet/connector"
)

// assembler rebuilds records from the leaf columns of one row group
// (record shredding in reverse): each node reads the values of its leaves,
// using definition levels for nulls and repetition levels for lists.
type assembler struct {
	cols  []*cursor
	arena *arena // the page's, see pageMem
}

// read returns the value of n for the current position of its columns.
func (a *assembler) read(n *node) (connector.Value, error) {
	if n.repeated {
		return a.readRepeated(n)
	}
	if n.optional {
		v, _, err := a.cols[n.first].peek()
		if err != nil {
			return connector.Value{}, err
		}
		if v.DefinitionLevel() < n.def {
			return connector.Null(), a.skip(n)
		}
	}
	return a.readPresent(n)
}

// kindError reports a value whose type is not its column's (a damaged file).
func (a *assembler) kindError(n *node, v pq.Value) error {
	return fmt.Errorf("column %s: a %s value in a %s column", a.cols[n.first].name, v.Kind(), n.conv.phys)
}

// skip consumes the single value each leaf of n holds for an absent n.
func (a *assembler) skip(n *node) error {
	for i := n.first; i < n.end; i++ {
		if _, err := a.cols[i].next(); err != nil {
			return err
		}
	}
	return nil
}

// readRepeated reads all repetitions of n at this position as an array.
func (a *assembler) readRepeated(n *node) (connector.Value, error) {
	v, _, err := a.cols[n.first].peek()
	if err != nil {
		return connector.Value{}, err
	}
	if v.DefinitionLevel() < n.def {
		return connector.Array(nil), a.skip(n)
	}
	var elems []connector.Value
	for {
		e, err := a.readPresent(n)
		if err != nil {
			return connector.Value{}, err
		}
		elems = append(elems, e)
		v, ok, err := a.cols[n.first].peek()
		if err != nil {
			return connector.Value{}, err
		}
		if !ok || v.RepetitionLevel() != n.rep {
			return connector.Array(elems), nil
		}
	}
}

// readPresent reads n once it is known to be present.
func (a *assembler) readPresent(n *node) (connector.Value, error) {
	switch n.shape {
	case shapeLeaf:
		v, err := a.cols[n.first].next()
		if err != nil {
			return connector.Value{}, err
		}
		if v.IsNull() {
			return connector.Null(), nil
		}
		if v.Kind() != n.conv.phys {
			return connector.Value{}, a.kindError(n, v)
		}
		return a.leaf(n.conv, v), nil
	case shapeList, shapeMap:
		arr, err := a.read(n.fields[0])
		if err != nil || n.shape == shapeList {
			return arr, err
		}
		elems := arr.AsArray()
		obj := connector.Record{Fields: make([]connector.Field, 0, len(elems))}
		for _, kv := range elems {
			r := kv.AsObject()
			if len(r.Fields) != 2 {
				continue
			}
			obj.Set(r.Fields[0].Value.Text(), r.Fields[1].Value)
		}
		return connector.Object(obj), nil
	}
	if n.unwrap {
		return a.read(n.fields[0])
	}
	r := connector.Record{Fields: make([]connector.Field, len(n.fields))}
	for i, f := range n.fields {
		v, err := a.read(f)
		if err != nil {
			return connector.Value{}, err
		}
		r.Fields[i] = connector.Field{Key: f.name, Value: v}
	}
	return connector.Object(r), nil
}

// leaf converts one non-null column value.
func (a *assembler) leaf(c leafConv, v pq.Value) connector.Value {
	switch c.kind {
	case leafBool:
		return connector.Bool(v.Boolean())
	case leafInt32:
		return connector.Int(int64(v.Int32()))
	case leafUint32:
		return connector.Int(int64(v.Uint32()))
	case leafInt64:
		return connector.Int(v.Int64())
	case leafUint64:
		u := v.Uint64()
		if u <= math.MaxInt64 {
			return connector.Int(int64(u))
		}
		// Keeps its exact digits (a KindFloat that writers print as is).
		big, _ := connector.ParseJSON(strconv.AppendUint(nil, u, 10))
		return big
	case leafFloat:
		// Through its shortest float32 spelling, so 0.1f reads 0.1.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v.Float()), 'g', -1, 32), 64)
		return connector.Float(f)
	case leafDouble:
		return connector.Float(v.Double())
	case leafString:
		return connector.String(a.arena.string(v.ByteArray()))
	case leafJSON:
		b := v.ByteArray()
		if j, err := connector.ParseJSON(b); err == nil {
			return j
		}
		return connector.String(a.arena.string(b))
	case leafBinary:
		b := v.ByteArray()
		out := a.arena.alloc(base64.StdEncoding.EncodedLen(len(b)))
		base64.StdEncoding.Encode(out, b)
		return connector.String(bytesString(out))
	case leafDate:
		t := time.Unix(int64(v.Int32())*86400, 0).UTC()
		return connector.String(a.arena.format(t, time.DateOnly))
	case leafTimestamp:
		// Seconds and the rest apart: millis and micros reach far beyond
		// the ±292 years an int64 of nanoseconds covers.
		per := int64(1e9) / c.unit
		x := v.Int64()
		t := time.Unix(x/per, x%per*c.unit).UTC()
		if c.utc {
			return connector.String(a.arena.format(t, time.RFC3339Nano))
		}
		return connector.String(a.arena.format(t, "2006-01-02T15:04:05.999999999"))
	case leafTime:
		var d int64
		if v.Kind() == pq.Int32 {
			d = int64(v.Int32()) * c.unit
		} else {
			d = v.Int64() * c.unit
		}
		t := time.Unix(0, d).UTC()
		return connector.String(a.arena.format(t, "15:04:05.999999999"))
	case leafDecimal:
		return connector.String(a.arena.string(decimalText(v, c.scale)))
	case leafInt96:
		i96 := v.Int96()
		nanos := int64(uint64(i96[1])<<32 | uint64(i96[0]))
		days := int64(i96[2]) - 2440588 // Julian day of 1970-01-01
		t := time.Unix(days*86400, nanos).UTC()
		return connector.String(a.arena.format(t, time.RFC3339Nano))
	case leafUUID:
		b := v.ByteArray()
		if len(b) != 16 {
			return connector.String(a.arena.string([]byte(hex.EncodeToString(b))))
		}
		out := a.arena.alloc(36)
		hex.Encode(out[0:8], b[0:4])
		out[8] = '-'
		hex.Encode(out[9:13], b[4:6])
		out[13] = '-'
		hex.Encode(out[14:18], b[6:8])
		out[18] = '-'
		hex.Encode(out[19:23], b[8:10])
		out[23] = '-'
		hex.Encode(out[24:], b[10:])
		return connector.String(bytesString(out))
	case leafFloat16:
		b := v.ByteArray()
		if len(b) != 2 {
			return connector.Null()
		}
		return connector.Float(float16(binary.LittleEndian.Uint16(b)))
	}
	return connector.Null()
}

// decimalText renders an unscaled decimal (INT32, INT64 or big-endian
// two's-complement bytes) with scale digits after the point, exactly.
func decimalText(v pq.Value, scale int32) []byte {
	var digits []byte
	neg := false
	switch v.Kind() {
	case pq.Int32, pq.Int64:
		i := v.Int64()
		if v.Kind() == pq.Int32 {
			i = int64(v.Int32())
		}
		neg = i < 0
		u := uint64(i)
		if neg {
			u = -u
		}
		digits = strconv.AppendUint(nil, u, 10)
	default:
		b := v.ByteArray()
		n := new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
		}
		neg = n.Sign() < 0
		digits = n.Abs(n).Append(nil, 10)
	}
	var out []byte
	if neg {
		out = append(out, '-')
	}
	if scale <= 0 {
		out = append(out, digits...)
		for i := int32(0); i < -scale; i++ {
			out = append(out, '0')
		}
		return out
	}
	for int32(len(digits)) <= scale {
		digits = append([]byte{'0'}, digits...)
	}
	cut := len(digits) - int(scale)
	out = append(out, digits[:cut]...)
	out = append(out, '.')
	return append(out, digits[cut:]...)
}

// float16 decodes an IEEE 754 half-precision number.
func float16(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// arena holds the text of a page's string values in a few large blocks
// instead of one allocation per value. The blocks are reused (reset) only
// once the engine released the page whose strings point into them.
type arena struct {
	block []byte
	used  [][]byte // full blocks of this page
	spare [][]byte // blocks of released pages
}

const arenaBlock = 64 << 10

// alloc returns n bytes that no other value of a live page uses.
func (a *arena) alloc(n int) []byte {
	if n > arenaBlock/4 {
		return make([]byte, n)
	}
	if len(a.block)+n > cap(a.block) {
		if a.block != nil {
			a.used = append(a.used, a.block)
		}
		if k := len(a.spare); k > 0 {
			a.block = a.spare[k-1][:0]
			a.spare[k-1] = nil
			a.spare = a.spare[:k-1]
		} else {
			a.block = make([]byte, 0, arenaBlock)
		}
	}
	s := len(a.block)
	a.block = a.block[:s+n]
	return a.block[s : s+n : s+n]
}

// reset makes every block spare: the strings made from them are dead.
func (a *arena) reset() {
	if a.block != nil {
		a.spare = append(a.spare, a.block)
	}
	for i, b := range a.used {
		a.spare = append(a.spare, b)
		a.used[i] = nil
	}
	a.block, a.used = nil, a.used[:0]
}

// string copies b (which points into a parquet page buffer) into the arena.
func (a *arena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	out := a.alloc(len(b))
	copy(out, b)
	return bytesString(out)
}

// format formats t with layout into the arena.
func (a *arena) format(t time.Time, layout string) string {
	var tmp [64]byte
	return a.string(t.AppendFormat(tmp[:0], layout))
}

// bytesString views b, which is never written again, as a string.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
