package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// The values of a chunkStream's page: definition levels, then PLAIN,
// dictionary or RLE values, decoded from the decompressed bytes (vals)
// into parquet-go values.

// ReadValues fills buf with the next values (with their definition
// levels); io.EOF after the chunk's last value. Byte arrays stay valid
// until the next call.
func (s *chunkStream) ReadValues(buf []pq.Value) (int, error) {
	s.scratch = s.scratch[:0]
	i := 0
	for i < len(buf) {
		for s.n == 0 {
			if err := s.nextPage(); err != nil {
				if i > 0 && errors.Is(err, io.EOF) {
					return i, nil
				}
				return i, err
			}
		}
		n, err := s.run(buf[i:min(len(buf), i+s.n)])
		i += n
		s.n -= n
		if err != nil {
			return i, err
		}
	}
	return i, nil
}

// run decodes len(out) values of the current page: runs of equal
// definition levels at a time, present values by a loop per encoding
// and type.
func (s *chunkStream) run(out []pq.Value) (int, error) {
	i := 0
	for i < len(out) {
		k := len(out) - i
		if s.maxDef > 0 {
			d, n, err := s.defs.nextRun(k)
			if err != nil {
				return i, fmt.Errorf("definition levels: %w", err)
			}
			if int(d) > s.maxDef {
				return i, fmt.Errorf("definition level %d above the column's %d: %w", d, s.maxDef, pq.ErrCorrupted)
			}
			if int(d) < s.maxDef {
				null := pq.Value{}.Level(0, int(d), s.col)
				for j := range n {
					out[i+j] = null
				}
				i += n
				continue
			}
			k = n
		}
		n, err := s.present(out[i : i+k])
		i += n
		if err != nil {
			return i, err
		}
	}
	return i, nil
}

// present decodes len(out) values that are not null.
func (s *chunkStream) present(out []pq.Value) (int, error) {
	def, col := s.maxDef, s.col
	switch {
	case s.enc == format.PlainDictionary || s.enc == format.RLEDictionary:
		for j := range out {
			i, err := s.idx.next()
			if err != nil {
				return j, fmt.Errorf("dictionary indexes: %w", err)
			}
			if int(i) >= len(s.dict) {
				return j, fmt.Errorf("dictionary index %d of %d: %w", i, len(s.dict), pq.ErrCorrupted)
			}
			out[j] = s.dict[i] // levelled when loaded
		}
		return len(out), nil
	case s.enc == format.Plain && (s.kind == pq.Int64 || s.kind == pq.Double):
		for j := 0; j < len(out); {
			b := s.vals.b
			m := min(len(out)-j, len(b)/8)
			if m == 0 {
				v, err := s.plain()
				if err != nil {
					return j, fmt.Errorf("values: %w", err)
				}
				out[j] = v.Level(0, def, col)
				j++
				continue
			}
			if s.kind == pq.Int64 {
				for x := range m {
					out[j+x] = pq.Int64Value(int64(binary.LittleEndian.Uint64(b[8*x:]))).Level(0, def, col)
				}
			} else {
				for x := range m {
					out[j+x] = pq.DoubleValue(math.Float64frombits(binary.LittleEndian.Uint64(b[8*x:]))).Level(0, def, col)
				}
			}
			s.vals.b = b[8*m:]
			j += m
		}
		return len(out), nil
	case s.enc == format.Plain && s.kind == pq.ByteArray:
		for j := range out {
			// A value whole in the current chunk, as most are.
			if b := s.vals.b; len(b) >= 4 {
				if n := int(binary.LittleEndian.Uint32(b)); n <= len(b)-4 {
					s.vals.b = b[4+n:]
					out[j] = pq.ByteArrayValue(s.keep(b[4:4+n])).Level(0, def, col)
					continue
				}
			}
			v, err := s.plain()
			if err != nil {
				return j, fmt.Errorf("values: %w", err)
			}
			out[j] = v.Level(0, def, col)
		}
		return len(out), nil
	}
	for j := range out {
		v, err := s.value()
		if err != nil {
			return j, err
		}
		out[j] = v.Level(0, def, col)
	}
	return len(out), nil
}

// startValues sets up the decoding of a data page's n values (nulls
// included) encoded in enc, vals being at their first byte.
func (s *chunkStream) startValues(n int, enc format.Encoding) error {
	s.n, s.enc, s.bitn = n, enc, 0
	if n == 0 {
		return nil
	}
	switch enc {
	case format.Plain:
	case format.PlainDictionary, format.RLEDictionary:
		if s.dict == nil {
			return errors.New("data page: dictionary-encoded without a dictionary page")
		}
		w, err := s.vals.ReadByte()
		if err != nil {
			return fmt.Errorf("data page: dictionary index width: %w", err)
		}
		if w > 32 {
			return fmt.Errorf("data page: dictionary index width %d: %w", w, pq.ErrCorrupted)
		}
		s.idx.reset(&s.vals, uint(w))
	case format.RLE:
		if s.kind != pq.Boolean {
			return fmt.Errorf("data page: RLE-encoded %s values", s.kind)
		}
		// The RLE data's length, which decoding does not need.
		if _, err := s.vals.take(4); err != nil {
			return fmt.Errorf("data page: %w", err)
		}
		s.idx.reset(&s.vals, 1)
	default:
		return fmt.Errorf("data page: values in %s", enc)
	}
	return nil
}

// value decodes the next non-null value of a page whose values present
// does not decode itself: RLE booleans or PLAIN values.
func (s *chunkStream) value() (pq.Value, error) {
	if s.enc == format.RLE {
		b, err := s.idx.next()
		if err != nil {
			return pq.Value{}, fmt.Errorf("booleans: %w", err)
		}
		return pq.BooleanValue(b != 0), nil
	}
	v, err := s.plain()
	if err != nil {
		return pq.Value{}, fmt.Errorf("values: %w", err)
	}
	return v, nil
}

// plain decodes one PLAIN value; byte arrays are copied to scratch.
func (s *chunkStream) plain() (pq.Value, error) {
	switch s.kind {
	case pq.Boolean:
		if s.bitn == 0 {
			b, err := s.vals.ReadByte()
			if err != nil {
				return pq.Value{}, err
			}
			s.bitv, s.bitn = b, 8
		}
		v := s.bitv&1 != 0
		s.bitv >>= 1
		s.bitn--
		return pq.BooleanValue(v), nil
	case pq.Int32, pq.Float:
		b, err := s.vals.take(4)
		if err != nil {
			return pq.Value{}, err
		}
		u := binary.LittleEndian.Uint32(b)
		if s.kind == pq.Float {
			return pq.FloatValue(math.Float32frombits(u)), nil
		}
		return pq.Int32Value(int32(u)), nil
	case pq.Int64, pq.Double:
		b, err := s.vals.take(8)
		if err != nil {
			return pq.Value{}, err
		}
		u := binary.LittleEndian.Uint64(b)
		if s.kind == pq.Double {
			return pq.DoubleValue(math.Float64frombits(u)), nil
		}
		return pq.Int64Value(int64(u)), nil
	case pq.Int96:
		b, err := s.vals.take(12)
		if err != nil {
			return pq.Value{}, err
		}
		return pq.Int96Value(deprecated.Int96{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])}), nil
	case pq.FixedLenByteArray:
		b, err := s.bytes(s.size)
		if err != nil {
			return pq.Value{}, err
		}
		return pq.FixedLenByteArrayValue(b), nil
	default: // ByteArray
		l, err := s.vals.take(4)
		if err != nil {
			return pq.Value{}, err
		}
		b, err := s.bytes(int(binary.LittleEndian.Uint32(l)))
		if err != nil {
			return pq.Value{}, err
		}
		return pq.ByteArrayValue(b), nil
	}
}

// bytes copies the next n bytes into scratch.
func (s *chunkStream) bytes(n int) ([]byte, error) {
	if n < 0 || n > s.limit {
		return nil, fmt.Errorf("a value of %d bytes in a page of %d: %w", n, s.limit, pq.ErrCorrupted)
	}
	b, err := s.vals.take(n)
	if err != nil {
		return nil, err
	}
	return s.keep(b), nil
}

// keep copies a value's bytes into scratch, where they stay until the
// next ReadValues: an earlier value's bytes stay where they were (a
// grown scratch leaves them in the old array).
func (s *chunkStream) keep(b []byte) []byte {
	at := len(s.scratch)
	if cap(s.scratch)-at < len(b) {
		s.scratch = make([]byte, 0, max(2*cap(s.scratch), len(b), 4096))
		at = 0
	}
	s.scratch = append(s.scratch, b...)
	return s.scratch[at:len(s.scratch):len(s.scratch)]
}

// loadDictionary decodes a dictionary page (PLAIN values) whole: its
// values are what every data page of the chunk refers to.
func (s *chunkStream) loadDictionary(n int) error {
	if n < 0 {
		return pq.ErrCorrupted
	}
	if err := s.decompress(0, true); err != nil {
		return err
	}
	s.dict, s.bitn, s.scratch = make([]pq.Value, 0, min(n, 1024)), 0, nil
	for range n {
		v, err := s.plain()
		if err != nil {
			return err
		}
		s.dict = append(s.dict, v.Level(0, s.maxDef, s.col))
	}
	// The dictionary's byte arrays keep the scratch arrays they are in.
	s.scratch = nil
	return nil
}
