package parquet

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// chunkStream reads the values of one column chunk without holding a
// decompressed page: a page is decompressed and decoded a buffer of
// values at a time, and a large page without a checksum is not even read
// whole (see doc.go). It serves columns outside lists whose codec and
// encodings it knows (streamable); parquet-go's page reader serves the
// others. The values' decoding is in streamvalues.go.
type chunkStream struct {
	kind   pq.Kind
	size   int // FIXED_LEN_BYTE_ARRAY length
	maxDef int
	col    int // column index, for pq.Value
	codec  format.CompressionCodec

	f        io.ReaderAt
	start    int64         // the chunk's offset in f
	chunkLen int64         // and length
	r        *bufio.Reader // the chunk: page headers and compressed pages
	left     int64         // bytes of the chunk not yet read through r
	th       thrift.Decoder
	prot     thrift.CompactProtocol

	dict []pq.Value

	// The page being read.
	n      int // values (nulls included) left in it
	defs   hybrid
	levels byteStream // its definition levels, from levBuf
	levBuf []byte
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
	gz      *gzip.Reader
	zs      *zstd.Decoder
	rc      readerChunks
	scratch []byte // bytes of the byte arrays of one ReadValues call
	// streamed counts the pages decompressed as they were read from r
	// (tests check that the large-page path ran).
	streamed int
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
	s.f, s.start, s.chunkLen, s.pb = f, start, m.TotalCompressedSize, pageBytes{}
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
	s.pageAt, s.pageLen = s.start+s.chunkLen-s.left, n
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
		s.setLevels(lv)
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
	if s.maxDef > 0 {
		s.setLevels(lv)
	}
	compressed := !h.IsCompressed.Valid || h.IsCompressed.V
	if err := s.decompress(n, compressed); err != nil {
		return fmt.Errorf("data page v2: %w", err)
	}
	return s.startValues(int(h.NumValues), h.Encoding)
}

// setLevels starts the page's definition levels on a copy of lv (RLE
// data), which is only valid until its stream is read again.
func (s *chunkStream) setLevels(lv []byte) {
	s.levBuf = append(s.levBuf[:0], lv...)
	s.levels.reset(s.levBuf, nil)
	s.defs.reset(&s.levels, uint(bits.Len(uint(s.maxDef))))
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
