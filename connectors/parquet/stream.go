package parquet

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// chunkStream reads the values of one column chunk without holding a
// decompressed page: each page's compressed bytes are read whole, then
// decompressed and decoded a buffer of values at a time (see doc.go). It
// serves columns outside lists whose codec and encodings it knows
// (streamable); parquet-go's page reader serves the others.
type chunkStream struct {
	kind   pq.Kind
	size   int // FIXED_LEN_BYTE_ARRAY length
	maxDef int
	col    int // column index, for pq.Value
	codec  format.CompressionCodec

	f     io.ReaderAt
	start int64         // the chunk's offset in f
	size0 int64         // and size
	r     *bufio.Reader // the chunk: page headers and compressed pages
	left  int64         // bytes of the chunk not yet read through r
	th    thrift.Decoder
	prot  thrift.CompactProtocol

	dict []pq.Value

	// The page being read.
	n      int // values (nulls included) left in it
	defs   hybrid
	levels byteStream
	vals   byteStream // its values, decompressed
	enc    format.Encoding
	idx    hybrid // dictionary indexes or RLE booleans, from vals
	bitv   byte   // PLAIN booleans: the current byte and
	bitn   uint   // how many of its bits are left
	limit  int    // the page's uncompressed size: no single value is larger

	cin     byteStream // the page's compressed bytes: comp, or pb
	comp    []byte     // a page read whole
	pb      pageBytes  // a page read from r as it is decompressed
	pageAt  int64      // the page's offset in f
	pageLen int        // and compressed size
	snappy  snappyStream
	// streamed counts the pages decompressed as they were read, and
	// reread those whose back-references made them be read again whole.
	streamed, reread int
	gz               *gzip.Reader
	zs               *zstd.Decoder
	rc               readerChunks
	scratch          []byte // bytes of the byte arrays of one ReadValues call
}

// streamable reports whether chunkStream can read a column chunk of a
// file of size bytes, and why not when it cannot.
func streamable(c *format.ColumnChunk, leaf pq.LeafColumn, size int64) (bool, string) {
	m := &c.MetaData
	start := chunkStart(m)
	switch {
	case start < 0 || m.TotalCompressedSize < 0 || m.TotalCompressedSize > size-start:
		return false, "beyond the end of the file"
	case leaf.Node == nil:
		return false, "not in the schema"
	case c.CryptoMetadata.Value != nil || len(c.EncryptedColumnMetadata) > 0:
		return false, "encrypted"
	case c.FilePath != "":
		return false, "in another file"
	case leaf.MaxRepetitionLevel > 0:
		return false, "repeated"
	case leaf.MaxDefinitionLevel > 32:
		return false, "nested too deep"
	}
	switch m.Codec {
	case format.Uncompressed, format.Snappy, format.Gzip, format.Zstd:
	default:
		return false, "codec " + m.Codec.String()
	}
	for _, e := range m.Encoding {
		switch e {
		case format.Plain, format.PlainDictionary, format.RLE, format.RLEDictionary:
		default:
			return false, "encoding " + e.String()
		}
	}
	return true, ""
}

// chunkReadBuffer is the read buffer of a chunk's headers and pages.
const chunkReadBuffer = 32 << 10

// reset points s at a column chunk of f, keeping the buffers of the
// chunk it read before (a Source reuses one chunkStream per column from
// row group to row group).
func (s *chunkStream) reset(f io.ReaderAt, c *format.ColumnChunk, leaf pq.LeafColumn) {
	m := &c.MetaData
	start := chunkStart(m)
	s.kind, s.size = leaf.Node.Type().Kind(), leaf.Node.Type().Length()
	s.maxDef, s.col, s.codec = leaf.MaxDefinitionLevel, leaf.ColumnIndex, m.Codec
	s.left, s.dict, s.n = m.TotalCompressedSize, nil, 0
	s.f, s.start, s.size0, s.pb = f, start, m.TotalCompressedSize, pageBytes{}
	sec := io.NewSectionReader(f, start, m.TotalCompressedSize)
	if s.r == nil {
		s.r = bufio.NewReaderSize(sec, chunkReadBuffer)
	} else {
		s.r.Reset(sec)
	}
	s.th.Reset(s.prot.NewReader(&countReader{s.r, &s.left}))
}

// chunkStart is where a column chunk's first page is.
func chunkStart(m *format.ColumnMetaData) int64 {
	if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < m.DataPageOffset {
		return m.DictionaryPageOffset
	}
	return m.DataPageOffset
}

// countReader counts down the chunk's bytes as page headers are read.
type countReader struct {
	r    *bufio.Reader
	left *int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.left -= int64(n)
	return n, err
}

func (c *countReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		*c.left--
	}
	return b, err
}

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
			b := s.vals.b
			if len(b) >= 4 {
				if n := int(binary.LittleEndian.Uint32(b)); n <= len(b)-4 && n <= cap(s.scratch)-len(s.scratch) {
					at := len(s.scratch)
					s.scratch = append(s.scratch, b[4:4+n]...)
					s.vals.b = b[4+n:]
					out[j] = pq.ByteArrayValue(s.scratch[at:at+n:at+n]).Level(0, def, col)
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

// nextPage reads the next page header and sets up its levels and values;
// a dictionary page is loaded and another page read. io.EOF at the end of
// the chunk.
func (s *chunkStream) nextPage() error {
	for {
		if err := s.pb.finish(); err != nil {
			return fmt.Errorf("page: %w", err)
		}
		if s.left <= 0 {
			return io.EOF
		}
		var h format.PageHeader
		if err := s.th.Decode(&h); err != nil {
			return fmt.Errorf("page header: %w", err)
		}
		if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > s.left || h.UncompressedPageSize < 0 {
			return fmt.Errorf("page header: sizes %d/%d out of range: %w", h.CompressedPageSize, h.UncompressedPageSize, pq.ErrCorrupted)
		}
		if err := s.startPage(&h); err != nil {
			return err
		}
		s.limit = int(h.UncompressedPageSize)
		switch h.Type {
		case format.DictionaryPage:
			if !h.DictionaryPageHeader.Valid {
				return pq.ErrMissingPageHeader
			}
			if err := s.loadDictionary(int(h.DictionaryPageHeader.V.NumValues)); err != nil {
				return fmt.Errorf("dictionary page: %w", err)
			}
		case format.DataPage:
			if !h.DataPageHeader.Valid {
				return pq.ErrMissingPageHeader
			}
			return s.startV1(&h.DataPageHeader.V)
		case format.DataPageV2:
			if !h.DataPageHeaderV2.Valid {
				return pq.ErrMissingPageHeader
			}
			return s.startV2(&h.DataPageHeaderV2.V)
		}
		// Index pages and unknown ones are skipped, as the format allows.
	}
}

// wholePage is the largest page read whole before it is decompressed;
// a larger one is decompressed as it is read.
const wholePage = 256 << 10

// startPage sets cin to the page's compressed bytes: read whole when it
// is small or has a checksum to verify first, streamed from r otherwise.
func (s *chunkStream) startPage(h *format.PageHeader) error {
	n := int(h.CompressedPageSize)
	s.pageAt, s.pageLen = s.start+s.size0-s.left, n
	s.left -= int64(n)
	if h.CRC == 0 && int(h.UncompressedPageSize) > wholePage && n > wholePage/4 {
		s.pb = pageBytes{r: s.r, left: n}
		s.cin.reset(nil, &s.pb)
		s.streamed++
		return nil
	}
	if cap(s.comp) < n {
		s.comp = make([]byte, n)
	}
	s.comp = s.comp[:n]
	if _, err := io.ReadFull(s.r, s.comp); err != nil {
		return fmt.Errorf("page: %w", err)
	}
	if h.CRC != 0 && uint32(h.CRC) != crc32.ChecksumIEEE(s.comp) {
		return fmt.Errorf("page checksum mismatch: %w", pq.ErrCorrupted)
	}
	s.cin.reset(s.comp, nil)
	return nil
}

// wholeBlock is the rest of the page's compressed bytes, all of them:
// those still in cin when it was read whole, read again from the file
// otherwise.
func (s *chunkStream) wholeBlock(skip int) func() ([]byte, error) {
	return func() ([]byte, error) {
		if s.cin.src == nil {
			return s.comp[skip:], nil
		}
		s.reread++
		if cap(s.comp) < s.pageLen {
			s.comp = make([]byte, s.pageLen)
		}
		s.comp = s.comp[:s.pageLen]
		if _, err := s.f.ReadAt(s.comp, s.pageAt); err != nil {
			return nil, err
		}
		return s.comp[skip:], nil
	}
}

// decompress points vals at the decompressed rest of the page; skip is
// how many of its bytes were read before (v2 levels).
func (s *chunkStream) decompress(skip int, compressed bool) error {
	if !compressed || s.codec == format.Uncompressed {
		s.vals.reset(s.cin.b, s.cin.src)
		return nil
	}
	switch s.codec {
	case format.Snappy:
		if err := s.snappy.reset(&s.cin, s.pageLen-skip, s.wholeBlock(skip)); err != nil {
			return err
		}
		s.vals.reset(nil, &s.snappy)
		return nil
	case format.Gzip:
		if s.gz == nil {
			s.gz = new(gzip.Reader)
		}
		if err := s.gz.Reset(&s.cin); err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		s.rc.r = s.gz
	default: // zstd
		if s.zs == nil {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
			if err != nil {
				return err
			}
			s.zs = d
		}
		if err := s.zs.Reset(&s.cin); err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		s.rc.r = s.zs
	}
	s.vals.reset(nil, &s.rc)
	return nil
}

func (s *chunkStream) startV1(h *format.DataPageHeader) error {
	if h.NumValues < 0 {
		return fmt.Errorf("data page: %d values: %w", h.NumValues, pq.ErrCorrupted)
	}
	if err := s.decompress(0, true); err != nil {
		return fmt.Errorf("data page: %w", err)
	}
	if s.maxDef > 0 {
		if h.DefinitionLevelEncoding != format.RLE {
			return fmt.Errorf("data page: definition levels in %s", h.DefinitionLevelEncoding)
		}
		n, err := s.vals.take(4)
		if err != nil {
			return fmt.Errorf("data page: definition levels: %w", err)
		}
		l := int(binary.LittleEndian.Uint32(n))
		if l > s.limit {
			return fmt.Errorf("data page: %d bytes of definition levels: %w", l, pq.ErrCorrupted)
		}
		lv, err := s.vals.take(l)
		if err != nil {
			return fmt.Errorf("data page: definition levels: %w", err)
		}
		// lv is valid until vals is read again: keep a copy.
		s.levels.tmp = append(s.levels.tmp[:0], lv...)
		s.levels.reset(s.levels.tmp, nil)
		s.defs.reset(&s.levels, uint(bits.Len(uint(s.maxDef))))
	}
	return s.startValues(int(h.NumValues), h.Encoding)
}

func (s *chunkStream) startV2(h *format.DataPageHeaderV2) error {
	if h.NumValues < 0 || h.RepetitionLevelsByteLength != 0 || h.DefinitionLevelsByteLength < 0 ||
		int(h.DefinitionLevelsByteLength) > s.pageLen {
		return fmt.Errorf("data page v2: bad header: %w", pq.ErrCorrupted)
	}
	n := int(h.DefinitionLevelsByteLength)
	lv, err := s.cin.take(n)
	if err != nil {
		return fmt.Errorf("data page v2: definition levels: %w", err)
	}
	s.levels.tmp = append(s.levels.tmp[:0], lv...)
	compressed := !h.IsCompressed.Valid || h.IsCompressed.V
	if err := s.decompress(n, compressed); err != nil {
		return fmt.Errorf("data page v2: %w", err)
	}
	if s.maxDef > 0 {
		s.levels.reset(s.levels.tmp, nil)
		s.defs.reset(&s.levels, uint(bits.Len(uint(s.maxDef))))
	}
	return s.startValues(int(h.NumValues), h.Encoding)
}

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

// value decodes the next non-null value of the page.
func (s *chunkStream) value() (pq.Value, error) {
	switch s.enc {
	case format.PlainDictionary, format.RLEDictionary:
		i, err := s.idx.next()
		if err != nil {
			return pq.Value{}, fmt.Errorf("dictionary indexes: %w", err)
		}
		if int(i) >= len(s.dict) {
			return pq.Value{}, fmt.Errorf("dictionary index %d of %d: %w", i, len(s.dict), pq.ErrCorrupted)
		}
		return s.dict[i], nil
	case format.RLE:
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

// bytes copies the next n bytes into scratch; an earlier value's bytes
// stay where they were (a grown scratch leaves them in the old array).
func (s *chunkStream) bytes(n int) ([]byte, error) {
	if n < 0 || n > s.limit {
		return nil, fmt.Errorf("a value of %d bytes in a page of %d: %w", n, s.limit, pq.ErrCorrupted)
	}
	b, err := s.vals.take(n)
	if err != nil {
		return nil, err
	}
	at := len(s.scratch)
	if cap(s.scratch)-at < n {
		s.scratch = make([]byte, 0, max(2*cap(s.scratch), n, 4096))
		at = 0
	}
	s.scratch = append(s.scratch, b...)
	return s.scratch[at : at+n : at+n], nil
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

// Close ends reading the chunk; the buffers stay for the next (reset).
func (s *chunkStream) Close() error {
	s.dict = nil
	return nil
}

// free releases the zstd decoder's goroutines and memory.
func (s *chunkStream) free() {
	if s.zs != nil {
		s.zs.Close()
		s.zs = nil
	}
}
