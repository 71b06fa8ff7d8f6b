package parquet

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/brotli"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

type inner struct {
	A *int32  `parquet:"a,optional"`
	B *string `parquet:"b,optional,plain"`
}

// wide has a column of every physical type, optional and required,
// plain and dictionary-encoded, a nested optional group (definition
// levels up to 2), a list and a delta-encoded column (both left to
// parquet-go).
type wide struct {
	ID     int64            `parquet:"id"`
	I32    *int32           `parquet:"i32,optional"`
	F32    float32          `parquet:"f32"`
	F64    *float64         `parquet:"f64,optional"`
	B      *bool            `parquet:"b,optional"`
	BReq   bool             `parquet:"b_req"`
	S      *string          `parquet:"s,optional,plain"`
	Delta  string           `parquet:"delta,optional"` // parquet-go's default: DELTA_LENGTH_BYTE_ARRAY
	Dict   *string          `parquet:"dict,optional,dict"`
	DictI  int64            `parquet:"dict_i,dict"`
	Many   string           `parquet:"many,dict"` // a dictionary of every row's value
	Fixed  [5]byte          `parquet:"fixed"`
	Old    deprecated.Int96 `parquet:"old"`
	In     *inner           `parquet:"in,optional"`
	Tags   []string         `parquet:"tags,list"`
	DeltaI int64            `parquet:"delta_i,delta"`
}

// wideRows are n rows with nulls in runs and scattered, and strings
// long and random enough that pages of many rows exceed wholePage
// compressed and uncompressed.
func wideRows(n int) []wide {
	r := rand.New(rand.NewPCG(1, 2))
	letters := "abcdefghijklmnopqrstuvwxyz0123456789"
	rows := make([]wide, n)
	for i := range rows {
		w := &rows[i]
		w.ID, w.F32, w.BReq, w.DictI, w.DeltaI = int64(i), float32(i)/3, i%3 == 0, int64(i%7), int64(i*5)
		w.Fixed = [5]byte{byte(i), byte(i >> 8), 1, 2, 3}
		w.Many = fmt.Sprintf("distinct value number %08d", i)
		w.Old = deprecated.Int96{uint32(i), 0, 2440588}
		if (i/100)%4 != 0 && i%11 != 0 { // runs of nulls, and scattered ones
			v, f, b := int32(-i), float64(i)*1.5, i%2 == 0
			w.I32, w.F64, w.B = &v, &f, &b
			var sb strings.Builder
			for range 20 + r.IntN(60) {
				sb.WriteByte(letters[r.IntN(len(letters))])
			}
			s, d := sb.String(), fmt.Sprintf("value-%d", i%13)
			w.S, w.Dict, w.Delta = &s, &d, d
		}
		switch i % 3 {
		case 1:
			a := int32(i)
			w.In = &inner{A: &a}
		case 2:
			w.In = &inner{}
		}
		if i%4 == 0 {
			w.Tags = []string{"x", fmt.Sprint(i)}
		}
	}
	return rows
}

// readBoth reads a file with chunkStream and with parquet-go's pages.
func readBoth(t *testing.T, path string) (stream, pages []string) {
	t.Helper()
	stream, _ = readLines(t, connectortest.Cfg(t, "path", path, "batch_size", 333))
	streamPages = false
	defer func() { streamPages = true }()
	pages, _ = readLines(t, connectortest.Cfg(t, "path", path, "batch_size", 333))
	return stream, pages
}

// TestChunkStreamReadsWhatPagesRead: every codec chunkStream knows, both
// data page versions, pages small and large (read whole, or streamed
// while decompressing), against parquet-go's own reader.
func TestChunkStreamReadsWhatPagesRead(t *testing.T) {
	rows := wideRows(30000)
	dir := t.TempDir()
	for _, codec := range []compress.Codec{&uncompressed.Codec{}, &snappy.Codec{}, &gzip.Codec{}, &zstd.Codec{}} {
		for _, version := range []int{1, 2} {
			for _, pageSize := range []int{4 << 10, 8 << 20} {
				name := fmt.Sprintf("%s-v%d-%d", codec.CompressionCodec(), version, pageSize)
				t.Run(name, func(t *testing.T) {
					path := writeStructs(t, filepath.Join(dir, name+".parquet"), rows,
						pq.Compression(codec), pq.DataPageVersion(version), pq.PageBufferSize(pageSize))
					checkStreamable(t, path, "tags.list.element", "delta", "delta_i")
					stream, pages := readBoth(t, path)
					if len(stream) != len(rows) {
						t.Fatalf("%d records, want %d", len(stream), len(rows))
					}
					for i := range stream {
						if stream[i] != pages[i] {
							t.Fatalf("row %d:\nstream %s\n pages %s", i, stream[i], pages[i])
						}
					}
				})
			}
		}
	}
}

// checkStreamable fails unless every column but the named ones is read
// by chunkStream, and those are not.
func checkStreamable(t *testing.T, path string, not ...string) {
	t.Helper()
	pf := readFooter(t, path)
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			name := strings.Join(c.MetaData.PathInSchema, ".")
			leaf, _ := pf.Schema().Lookup(c.MetaData.PathInSchema...)
			ok, why := streamable(&c, leaf, pf.Size())
			if want := !contains(not, name); ok != want {
				t.Errorf("column %s: streamable %v (%s), want %v", name, ok, why, want)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestChunkStreamLeavesOtherCodecsToPages: a Brotli file is read (by
// parquet-go) all the same.
func TestChunkStreamLeavesOtherCodecsToPages(t *testing.T) {
	rows := wideRows(500)
	path := writeStructs(t, filepath.Join(t.TempDir(), "brotli.parquet"), rows, pq.Compression(&brotli.Codec{}))
	pf := readFooter(t, path)
	c := pf.Metadata().RowGroups[0].Columns[0]
	leaf, _ := pf.Schema().Lookup(c.MetaData.PathInSchema...)
	if ok, why := streamable(&c, leaf, pf.Size()); ok || !strings.Contains(why, "codec") {
		t.Errorf("brotli column: streamable %v (%s)", ok, why)
	}
	stream, pages := readBoth(t, path)
	if len(stream) != len(rows) || strings.Join(stream, "\n") != strings.Join(pages, "\n") {
		t.Fatal("brotli file read differently")
	}
}

// snappyBlocks compresses src the way the snappy library does: 64 KiB
// fragments compressed independently into one block, so no reference
// reaches back farther than 64 KiB.
func snappyBlocks(src []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(len(src)))
	for len(src) > 0 {
		n := min(len(src), 64<<10)
		b := s2.EncodeSnappy(nil, src[:n])
		_, h := binary.Uvarint(b)
		out = append(out, b[h:]...)
		src = src[n:]
	}
	return out
}

// farReference is data as a literal and then a copy of its first 64
// bytes from 300,000 bytes back, beyond the window.
func farReference(data []byte) []byte {
	n := len(data)
	out := binary.AppendUvarint(nil, uint64(n+64))
	out = append(out, 62<<2, byte(n-1), byte((n-1)>>8), byte((n-1)>>16)) // a literal, 3 length bytes
	out = append(out, data...)
	out = append(out, 63<<2|3)
	return binary.LittleEndian.AppendUint32(out, uint32(n))
}

// pieces is a chunkSource handing out b a few bytes at a time.
type pieces struct {
	b []byte
	n int
}

func (p *pieces) chunk() ([]byte, error) {
	if len(p.b) == 0 {
		return nil, errShortPage
	}
	n := min(p.n, len(p.b))
	c := p.b[:n]
	p.b = p.b[n:]
	return c, nil
}

// streamSnappy decompresses block through snappyStream, its input in
// pieces of size piece; window reports whether it kept a window rather
// than decompressing whole.
func streamSnappy(block []byte, piece int) (out []byte, window bool, err error) {
	var in byteStream
	in.reset(nil, &pieces{b: block, n: piece})
	var z snappyStream
	if err := z.reset(&in, len(block), func() ([]byte, error) { return block, nil }); err != nil {
		return nil, false, err
	}
	for {
		c, err := z.chunk()
		out = append(out, c...)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return out, !z.wasWhole, err
		}
	}
}

func TestSnappyStream(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	text := make([]byte, 3<<20)
	for i := range text { // words repeating near and far, some noise
		switch {
		case i > 200000 && r.IntN(4) == 0:
			text[i] = text[i-200000+r.IntN(50)]
		case i > 10 && r.IntN(3) == 0:
			text[i] = text[i-1-r.IntN(10)]
		default:
			text[i] = byte('a' + r.IntN(20))
		}
	}
	for _, c := range []struct {
		name       string
		data       []byte
		enc        func([]byte) []byte
		wantWindow bool
	}{
		{"empty", nil, func(b []byte) []byte { return s2.EncodeSnappy(nil, b) }, false},
		{"small", text[:1000], func(b []byte) []byte { return s2.EncodeSnappy(nil, b) }, false},
		{"64KiB fragments", text, snappyBlocks, true},
		{"runs", bytes.Repeat([]byte("ab"), 1<<20), snappyBlocks, true},
		{"far reference", text[:300000], farReference, false},
	} {
		block := c.enc(c.data)
		want, err := s2.Decode(nil, block)
		if err != nil {
			t.Fatal(err)
		}
		for _, piece := range []int{1, 7, 1 << 20} {
			got, window, err := streamSnappy(block, piece)
			if err != nil {
				t.Fatalf("%s/%d: %v", c.name, piece, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s/%d: %d bytes differ from the %d decoded whole", c.name, piece, len(got), len(want))
			}
			if window != c.wantWindow {
				t.Errorf("%s/%d: streamed with a window %v, want %v", c.name, piece, window, c.wantWindow)
			}
		}
	}
}

// FuzzSnappyStream: on any input, snappyStream gives what s2.Decode
// gives, or an error where it fails; it never panics.
func FuzzSnappyStream(f *testing.F) {
	f.Add(s2.EncodeSnappy(nil, bytes.Repeat([]byte("abc"), 200000)))
	f.Add(snappyBlocks(bytes.Repeat([]byte("xyz0123"), 100000)))
	f.Add([]byte{0x80, 0x80, 0x10, 0x01, 0x00})
	f.Fuzz(func(t *testing.T, block []byte) {
		if total, n := binary.Uvarint(block); n > 0 && total > uint64(len(block))*64/3+64 {
			// A length no block this size can make: refused before
			// anything is allocated for it (s2.Decode would allocate).
			if _, _, err := streamSnappy(block, 13); err == nil {
				t.Fatalf("a block of %d bytes claiming %d decoded", len(block), total)
			}
			return
		}
		want, werr := s2.Decode(nil, block)
		got, _, err := streamSnappy(block, 13)
		if (werr == nil) != (err == nil) {
			t.Fatalf("s2.Decode error %v, stream error %v", werr, err)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("stream gave %d bytes, s2 %d", len(got), len(want))
		}
	})
}

// TestHybrid decodes RLE and bit-packed runs of every width.
func TestHybrid(t *testing.T) {
	for width := uint(0); width <= 32; width++ {
		mask := uint64(1)<<width - 1
		var want []uint32
		var enc []byte
		// An RLE run of 5.
		v := uint32(0xdeadbeef & mask)
		enc = binary.AppendUvarint(enc, 5<<1)
		for i := range int(width+7) / 8 {
			enc = append(enc, byte(v>>(8*i)))
		}
		for range 5 {
			want = append(want, v)
		}
		// A bit-packed run of 2 groups.
		enc = binary.AppendUvarint(enc, 2<<1|1)
		var acc uint64
		var have uint
		for i := range 16 {
			x := uint64(i*2654435761) & mask
			want = append(want, uint32(x))
			acc |= x << have
			have += width
			for have >= 8 {
				enc = append(enc, byte(acc))
				acc >>= 8
				have -= 8
			}
		}
		var in byteStream
		in.reset(nil, &pieces{b: enc, n: 3})
		var h hybrid
		h.reset(&in, width)
		for i, w := range want {
			got, err := h.next()
			if err != nil || got != w {
				t.Fatalf("width %d value %d: %d, %v; want %d", width, i, got, err, w)
			}
		}
		if _, err := h.next(); err == nil {
			t.Fatalf("width %d: a value past the end", width)
		}
	}
}

// withoutChecksums copies the Parquet file src to dst with its pages'
// CRCs removed (parquet-go always writes them; DuckDB never does), and
// without its page indexes.
func withoutChecksums(t testing.TB, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	pf := readFooter(t, src)
	md := *pf.Metadata()
	var prot thrift.CompactProtocol
	out := []byte("PAR1")
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		for c := range rg.Columns {
			cc := &rg.Columns[c]
			m := &cc.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			chunk := data[start : start+m.TotalCompressedSize]
			at := int64(len(out))
			m.DictionaryPageOffset, m.DataPageOffset = 0, 0
			for len(chunk) > 0 {
				var h format.PageHeader
				r := bytes.NewReader(chunk)
				if err := thrift.NewDecoder(prot.NewReader(r)).Decode(&h); err != nil {
					t.Fatal(err)
				}
				body := chunk[len(chunk)-r.Len():][:h.CompressedPageSize]
				chunk = chunk[len(chunk)-r.Len()+int(h.CompressedPageSize):]
				h.CRC = 0
				hb, err := thrift.Marshal(&prot, &h)
				if err != nil {
					t.Fatal(err)
				}
				if h.Type == format.DictionaryPage {
					m.DictionaryPageOffset = int64(len(out))
				} else if m.DataPageOffset == 0 {
					m.DataPageOffset = int64(len(out))
				}
				out = append(append(out, hb...), body...)
			}
			m.TotalCompressedSize = int64(len(out)) - at
			cc.FileOffset = at
			cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0, 0, 0
			m.BloomFilterOffset, m.BloomFilterLength = 0, 0
		}
	}
	footer, err := thrift.Marshal(&prot, &md)
	if err != nil {
		t.Fatal(err)
	}
	out = binary.LittleEndian.AppendUint32(append(out, footer...), uint32(len(footer)))
	if err := os.WriteFile(dst, append(out, "PAR1"...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChunkStreamStreamsLargePages: large pages without a checksum are
// decompressed as they are read, one page or several per chunk, and give
// what parquet-go gives. parquet-go's snappy encoder makes references
// beyond the window: those pages are read again whole, and the next page
// header must still be found after them.
func TestChunkStreamStreamsLargePages(t *testing.T) {
	rows := wideRows(30000)
	dir := t.TempDir()
	for _, codec := range []compress.Codec{&uncompressed.Codec{}, &snappy.Codec{}, &gzip.Codec{}, &zstd.Codec{}} {
		for _, c := range []struct{ version, pageSize int }{{1, 8 << 20}, {2, 8 << 20}, {1, 600 << 10}} {
			name := fmt.Sprintf("%s-v%d-%d", codec.CompressionCodec(), c.version, c.pageSize)
			t.Run(name, func(t *testing.T) {
				crc := writeStructs(t, filepath.Join(dir, name+".crc.parquet"), rows,
					pq.Compression(codec), pq.DataPageVersion(c.version), pq.PageBufferSize(c.pageSize))
				path := filepath.Join(dir, name+".parquet")
				withoutChecksums(t, crc, path)
				src, err := newSource(connectortest.Cfg(t, "path", path, "batch_size", 333))
				if err != nil {
					t.Fatal(err)
				}
				res, err := connectortest.Collect(t.Context(), src, nil)
				if err != nil {
					t.Fatal(err)
				}
				streamed := 0
				for _, st := range src.(*Source).streams {
					if st != nil {
						streamed += st.streamed
					}
				}
				if streamed == 0 {
					t.Error("no page was streamed")
				}
				_, pages := readBoth(t, path)
				if len(res.Records) != len(pages) {
					t.Fatalf("%d records, want %d", len(res.Records), len(pages))
				}
				for i, r := range res.Records {
					if got := string(connector.AppendRecordJSON(nil, r)); got != pages[i] {
						t.Fatalf("row %d:\nstream %s\n pages %s", i, got, pages[i])
					}
				}
			})
		}
	}
}

// TestPageBytesFinishSkipsTheRest: a page whose decompressor stopped
// early (or that was read again whole) leaves the chunk's reader at the
// next page's header.
func TestPageBytesFinishSkipsTheRest(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("a", 100)+"NEXT"), 16)
	p := pageBytes{r: r, left: 100}
	if c, err := p.chunk(); err != nil || len(c) != 16 {
		t.Fatalf("chunk: %d bytes, %v", len(c), err)
	}
	if err := p.finish(); err != nil {
		t.Fatal(err)
	}
	if c, err := p.chunk(); err == nil || len(c) != 0 {
		t.Fatalf("a finished page gave %q, %v", c, err)
	}
	next := make([]byte, 4)
	if _, err := io.ReadFull(r, next); err != nil || string(next) != "NEXT" {
		t.Fatalf("after the page: %q, %v", next, err)
	}
}

// FuzzChunkStream feeds arbitrary bytes to chunkStream as a column chunk
// (page headers, levels, values, compressed or not) of each physical
// type: it must return values or an error, never panic or allocate what
// the bytes merely claim.
func FuzzChunkStream(f *testing.F) {
	dir := f.TempDir()
	for i, codec := range []compress.Codec{&snappy.Codec{}, &uncompressed.Codec{}, &gzip.Codec{}, &zstd.Codec{}} {
		crc := writeStructs(f, filepath.Join(dir, fmt.Sprint(i, ".crc.parquet")), wideRows(300), pq.Compression(codec), pq.DataPageVersion(1+i%2))
		path := filepath.Join(dir, fmt.Sprint(i, ".parquet"))
		withoutChecksums(f, crc, path)
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		pf := readFooter(f, path)
		for c, cc := range pf.Metadata().RowGroups[0].Columns {
			m := cc.MetaData
			start := chunkStart(&m)
			f.Add(data[start:start+m.TotalCompressedSize], uint8(c), uint8(m.Codec))
		}
	}
	schema := pq.SchemaOf(wide{})
	f.Fuzz(func(t *testing.T, chunk []byte, col, codec uint8) {
		leaves := schema.Columns()
		leaf, _ := schema.Lookup(leaves[int(col)%len(leaves)]...)
		if leaf.MaxRepetitionLevel > 0 {
			return
		}
		var cc format.ColumnChunk
		cc.MetaData.Codec = []format.CompressionCodec{format.Uncompressed, format.Snappy, format.Gzip, format.Zstd}[codec%4]
		cc.MetaData.TotalCompressedSize = int64(len(chunk))
		var s chunkStream
		s.reset(bytes.NewReader(chunk), &cc, leaf)
		buf := make([]pq.Value, 100)
		for range 1000 {
			if _, err := s.ReadValues(buf); err != nil {
				break
			}
		}
		s.free()
	})
}

type bools struct {
	B  *bool `parquet:"b,optional"`
	BR bool  `parquet:"br"`
}

// TestChunkStreamRLEBooleans: booleans RLE-encoded (as parquet-mr's v2
// pages have them), optional and required.
func TestChunkStreamRLEBooleans(t *testing.T) {
	rows := make([]bools, 5000)
	for i := range rows {
		if i%7 != 0 {
			b := i%3 == 0 || (i/64)%2 == 0 // runs and scattered values
			rows[i].B = &b
		}
		rows[i].BR = (i/100)%2 == 0 || i%5 == 0
	}
	schema := pq.NewSchema("bools", pq.Group{
		"b":  pq.Encoded(pq.Optional(pq.Leaf(pq.BooleanType)), &pq.RLE),
		"br": pq.Encoded(pq.Leaf(pq.BooleanType), &pq.RLE),
	})
	for _, version := range []int{1, 2} {
		path := writeStructs(t, filepath.Join(t.TempDir(), fmt.Sprint(version, ".parquet")), rows, schema, pq.DataPageVersion(version), pq.PageBufferSize(1024))
		pf := readFooter(t, path)
		if enc := pf.Metadata().RowGroups[0].Columns[1].MetaData.Encoding; !slices.Contains(enc, format.RLE) || slices.Contains(enc, format.Plain) {
			t.Fatalf("v%d: encodings %v, want RLE values", version, enc)
		}
		checkStreamable(t, path)
		stream, pages := readBoth(t, path)
		if len(stream) != len(rows) || strings.Join(stream, "\n") != strings.Join(pages, "\n") {
			t.Fatalf("v%d: the readers differ", version)
		}
	}
}
