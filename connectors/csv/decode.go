package csv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/recycle"
)

// fileInfo is what decoding a page needs to know about its file. It is
// fixed before the file's first page is handed out and never changes.
type fileInfo struct {
	path string
	// keys names the columns; header-less files without `columns` use
	// column_1..n for the n fields of their first row.
	keys []string
	// want is the field count every row must have unless flexible, and
	// wantFrom says where it came from ("header", "columns", "first row").
	want     int
	wantFrom string
	// keyIdx is the replication key's column, or -1.
	keyIdx int
}

// span is one parsed field of the current row: data[start:end] is its
// content (inside the quotes for a quoted field). Offsets are int32 to keep
// it small (the reader refuses records over 1 GiB).
type span struct {
	start, end int32
	// tailStart < tailEnd when literal bytes follow the closing quote.
	tailStart, tailEnd int32
	quoted             bool
	esc                bool // contains "" pairs to collapse
}

var errUnterminated = errors.New("unterminated quoted field")

// parseRecord parses the row starting at b[i]. It returns the fields, the
// offset after the row's terminator, the newlines consumed and whether the
// row was terminated (false: a quoted field runs to the end of b).
func parseRecord(b []byte, i int, sp []span, delim, quote byte) ([]span, int, int, bool) {
	nl := 0
	dd, nn := ones*uint64(delim), uint64(ones*'\n')
	for {
		if i < len(b) && b[i] == quote {
			i++
			s := span{start: int32(i), quoted: true}
			j, esc := closeQuote(b, i, quote)
			if j < 0 {
				return sp, len(b), nl + bytes.Count(b[i:], newline), false
			}
			s.end, s.esc = int32(j), esc
			if bytes.IndexByte(b[i:j], '\n') >= 0 {
				nl += bytes.Count(b[i:j], newline)
			}
			i = j + 1
			if i < len(b) && b[i] != delim && b[i] != '\n' {
				ts := i
				for i < len(b) && b[i] != delim && b[i] != '\n' {
					i++
				}
				te := i
				if (i == len(b) || b[i] == '\n') && b[te-1] == '\r' {
					te--
				}
				s.tailStart, s.tailEnd = int32(ts), int32(te)
			}
			sp = append(sp, s)
		} else {
			start := i
			for i+8 <= len(b) { // eight bytes at a time to the delimiter or newline
				x := binary.LittleEndian.Uint64(b[i:])
				if m := quoteMask(x, dd) | quoteMask(x, nn); m != 0 {
					i += bits.TrailingZeros64(m) / 8
					goto found
				}
				i += 8
			}
			for i < len(b) && b[i] != delim && b[i] != '\n' {
				i++
			}
		found:
			end := i
			if (i == len(b) || b[i] == '\n') && end > start && b[end-1] == '\r' {
				end--
			}
			s := span{start: int32(start), end: int32(end)}
			sp = append(sp, s)
		}
		if i >= len(b) {
			return sp, i, nl, true
		}
		if b[i] == delim {
			i++
			continue
		}
		return sp, i + 1, nl + 1, true
	}
}

var newline = []byte{'\n'}

// fieldString returns the span's text as a view into b, collapsing ""
// pairs in place first. It must be called at most once per span.
func fieldString(b []byte, s span, quote byte) string {
	start, end := int(s.start), int(s.end)
	if s.esc {
		// Collapse each "" to " in place: a byte loop from the first pair
		// (pairs are frequent in quoted JSON, so skipping between them with
		// IndexByte costs more than it saves).
		w := start + bytes.IndexByte(b[start:end], quote) + 1
		for r := w + 1; r < end; r++ {
			c := b[r]
			b[w] = c
			w++
			if c == quote {
				r++
			}
		}
		end = w
	}
	if s.tailEnd > s.tailStart {
		return string(b[start:end]) + string(b[s.tailStart:s.tailEnd])
	}
	if end == start {
		return ""
	}
	return unsafe.String(&b[start], end-start)
}

// isBlank reports a row with nothing on it (skipped, like the original).
func isBlank(sp []span) bool {
	return len(sp) == 1 && !sp[0].quoted && sp[0].start == sp[0].end
}

// columnNames caches column_1..column_N for header-less files.
var columnNames = func() []string {
	out := make([]string, 257)
	for i := 1; i < len(out); i++ {
		out[i] = "column_" + strconv.Itoa(i)
	}
	return out
}()

func columnName(i int) string {
	if i < len(columnNames) {
		return columnNames[i]
	}
	return "column_" + strconv.Itoa(i)
}

func (fi *fileInfo) key(k int) string {
	if k < len(fi.keys) {
		return fi.keys[k]
	}
	return columnName(k + 1)
}

const (
	slabBytes = 32 << 10
	fieldSize = int(unsafe.Sizeof(connector.Field{}))
)

// decoder holds the settings decoding needs; it is shared by all pages and
// read-only.
type decoder struct {
	delim, quote byte
	flexible     bool
	start        *connector.Value // replication: emit only keys > start
	repKey       string
}

// pageMem is the record storage of one page, reused through memPool once
// the engine released the page.
type pageMem struct {
	slab    []connector.Field
	recs    []connector.Record
	lineOff []int32
	rowOff  []int32
	sp      []span
}

var memPool = recycle.List[*pageMem]{Max: recycle.PagesInFlight}

func getPageMem(records, width int) *pageMem {
	m, ok := memPool.Get()
	if !ok {
		m = &pageMem{}
	}
	if cap(m.slab) < records*width {
		m.slab = make([]connector.Field, 0, records*width)
	}
	if cap(m.recs) < records {
		m.recs = make([]connector.Record, 0, records)
		m.lineOff = make([]int32, 0, records)
		m.rowOff = make([]int32, 0, records)
	}
	return m
}

func (m *pageMem) put() {
	if m != nil {
		memPool.Put(m)
	}
}

// decode parses a chunk into p and returns the storage it used, to be put
// back when the page is released. It runs on engine workers, concurrently
// with other pages, and touches only its chunk and page.
func (d *decoder) decode(p *connector.Page, fi *fileInfo, ch chunk) *pageMem {
	b := ch.data
	line := ch.firstLine
	row := ch.firstRow - 1 // position of the current row in the input
	width := max(fi.want, 1)
	mem := getPageMem(ch.records, width)
	slabCap := max(slabBytes/fieldSize, width) // for rows wider than the header
	slab := mem.slab[:0]
	recs := mem.recs[:0]
	// Where each record came from, relative to the chunk, for Page.Locate
	// (used only when a transform fails on a record).
	lineOff := mem.lineOff[:0]
	rowOff := mem.rowOff[:0]
	sp := mem.sp[:0]
	var best connector.Value
	haveBest := false
	for i := 0; i < len(b); {
		recStart, recLine := i, line
		var nl int
		var ok bool
		sp, i, nl, ok = parseRecord(b, i, sp[:0], d.delim, d.quote)
		line += nl
		if !ok {
			p.Failed = append(p.Failed, d.fail(fi, recLine, row+1, b[recStart:i], errUnterminated))
			continue
		}
		if isBlank(sp) {
			continue
		}
		row++
		if fi.want > 0 && len(sp) != fi.want && !d.flexible {
			err := fmt.Errorf("row has %d fields, %s has %d", len(sp), fi.wantFrom, fi.want)
			p.Failed = append(p.Failed, d.fail(fi, recLine, row, b[recStart:i], err))
			continue
		}
		if fi.keyIdx >= len(sp) {
			err := fmt.Errorf("row has no value for replication_key %q", d.repKey)
			p.Failed = append(p.Failed, d.fail(fi, recLine, row, b[recStart:i], err))
			continue
		}
		if cap(slab)-len(slab) < len(sp) {
			slab = make([]connector.Field, 0, max(slabCap, len(sp)))
		}
		j0 := len(slab)
		slab = slab[:j0+len(sp)]
		fs := slab[j0:len(slab):len(slab)]
		for k := range sp {
			// Field by field, not append(Field{...}): no bulk write barrier.
			fs[k].Key = fi.key(k)
			var str string
			if f := &sp[k]; f.esc || f.tailEnd > f.tailStart {
				str = fieldString(b, *f, d.quote)
			} else if f.end > f.start { // the common case, inline
				str = unsafe.String(&b[f.start], f.end-f.start)
			}
			fs[k].Value = connector.String(str)
		}
		rec := connector.Record{Fields: fs}
		if fi.keyIdx >= 0 {
			kv := rec.Fields[fi.keyIdx].Value
			if d.start != nil && connector.Compare(kv, *d.start) <= 0 {
				slab = slab[:j0]
				continue
			}
			if !haveBest || connector.Compare(kv, best) > 0 {
				best, haveBest = kv, true
			}
		}
		recs = append(recs, rec)
		lineOff = append(lineOff, int32(recLine-ch.firstLine))
		rowOff = append(rowOff, int32(row-ch.firstRow))
	}
	mem.recs, mem.lineOff, mem.rowOff, mem.sp = recs, lineOff, rowOff, sp
	p.Records = recs
	p.Locate = func(i int) (string, int64) {
		if i < 0 || i >= len(lineOff) {
			return "", 0
		}
		return fi.path + ":" + strconv.Itoa(ch.firstLine+int(lineOff[i])), ch.firstRow + int64(rowOff[i])
	}
	if haveBest {
		bm := connector.String(strings.Clone(best.AsString()))
		p.Bookmark = &bm
	}
	return mem
}

func (d *decoder) fail(fi *fileInfo, line int, row int64, raw []byte, err error) connector.RecordError {
	raw = bytes.TrimSuffix(raw, newline)
	raw = bytes.TrimSuffix(raw, []byte{'\r'})
	return connector.RecordError{
		Stage:     connector.StageSource,
		Component: "csv",
		Location:  fi.path + ":" + strconv.Itoa(line),
		RowID:     row,
		Raw:       string(raw),
		Err:       err,
	}
}
