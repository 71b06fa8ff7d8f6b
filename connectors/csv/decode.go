package csv

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
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
// content (inside the quotes for a quoted field).
type span struct {
	start, end int
	quoted     bool
	esc        bool // contains "" pairs to collapse
	// tailStart < tailEnd when literal bytes follow the closing quote.
	tailStart, tailEnd int
}

var errUnterminated = errors.New("unterminated quoted field")

// parseRecord parses the row starting at b[i]. It returns the fields, the
// offset after the row's terminator, the newlines consumed and whether the
// row was terminated (false: a quoted field runs to the end of b).
func parseRecord(b []byte, i int, sp []span, delim, quote byte) ([]span, int, int, bool) {
	nl := 0
	for {
		if i < len(b) && b[i] == quote {
			i++
			s := span{start: i, quoted: true}
			j, esc := closeQuote(b, i, quote)
			if j < 0 {
				return sp, len(b), nl + bytes.Count(b[s.start:], newline), false
			}
			s.end, s.esc = j, esc
			i = j + 1
			if bytes.IndexByte(b[s.start:s.end], '\n') >= 0 {
				nl += bytes.Count(b[s.start:s.end], newline)
			}
			if i < len(b) && b[i] != delim && b[i] != '\n' {
				ts := i
				for i < len(b) && b[i] != delim && b[i] != '\n' {
					i++
				}
				te := i
				if (i == len(b) || b[i] == '\n') && b[te-1] == '\r' {
					te--
				}
				s.tailStart, s.tailEnd = ts, te
			}
			sp = append(sp, s)
		} else {
			s := span{start: i}
			for i < len(b) {
				if c := b[i]; c == delim || c == '\n' {
					break
				}
				i++
			}
			s.end = i
			if (i == len(b) || b[i] == '\n') && s.end > s.start && b[s.end-1] == '\r' {
				s.end--
			}
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
	end := s.end
	if s.esc {
		w, r := s.start, s.start
		for {
			j := bytes.IndexByte(b[r:end], quote)
			if j < 0 {
				w += copy(b[w:], b[r:end])
				break
			}
			w += copy(b[w:], b[r:r+j+1])
			r += j + 2
		}
		end = w
	}
	if s.tailEnd > s.tailStart {
		return string(b[s.start:end]) + string(b[s.tailStart:s.tailEnd])
	}
	if end == s.start {
		return ""
	}
	return unsafe.String(&b[s.start], end-s.start)
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

// decode parses a chunk into p. It runs on engine workers, concurrently
// with other pages, and touches only its chunk and page.
func (d *decoder) decode(p *connector.Page, fi *fileInfo, ch chunk) {
	b := ch.data
	line := ch.firstLine
	width := max(fi.want, 1)
	// Fields come from slabs of at most ~32 KiB: small allocations are
	// much cheaper for the runtime than one large block per page.
	slabCap := max(slabBytes/fieldSize, width)
	slab := make([]connector.Field, 0, min(ch.records*width, slabCap))
	recs := make([]connector.Record, 0, ch.records)
	sp := make([]span, 0, width+4)
	var best connector.Value
	haveBest := false
	for i := 0; i < len(b); {
		recStart, recLine := i, line
		var nl int
		var ok bool
		sp, i, nl, ok = parseRecord(b, i, sp[:0], d.delim, d.quote)
		line += nl
		if !ok {
			p.Failed = append(p.Failed, d.fail(fi, recLine, b[recStart:i], errUnterminated))
			continue
		}
		if isBlank(sp) {
			continue
		}
		if fi.want > 0 && len(sp) != fi.want && !d.flexible {
			err := fmt.Errorf("row has %d fields, %s has %d", len(sp), fi.wantFrom, fi.want)
			p.Failed = append(p.Failed, d.fail(fi, recLine, b[recStart:i], err))
			continue
		}
		if fi.keyIdx >= len(sp) {
			err := fmt.Errorf("row has no value for replication_key %q", d.repKey)
			p.Failed = append(p.Failed, d.fail(fi, recLine, b[recStart:i], err))
			continue
		}
		if cap(slab)-len(slab) < len(sp) {
			slab = make([]connector.Field, 0, max(slabCap, len(sp)))
		}
		j0 := len(slab)
		for k := range sp {
			slab = append(slab, connector.Field{Key: fi.key(k), Value: connector.String(fieldString(b, sp[k], d.quote))})
		}
		rec := connector.Record{Fields: slab[j0:len(slab):len(slab)]}
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
	}
	p.Records = recs
	if haveBest {
		bm := connector.String(strings.Clone(best.AsString()))
		p.Bookmark = &bm
	}
}

func (d *decoder) fail(fi *fileInfo, line int, raw []byte, err error) connector.RecordError {
	raw = bytes.TrimSuffix(raw, newline)
	raw = bytes.TrimSuffix(raw, []byte{'\r'})
	return connector.RecordError{
		Stage:     connector.StageSource,
		Component: "csv",
		Location:  fi.path + ":" + strconv.Itoa(line),
		Raw:       string(raw),
		Err:       err,
	}
}
