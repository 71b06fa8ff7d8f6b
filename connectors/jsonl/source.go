package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
	"github.com/faucet-hq/faucet/internal/recycle"
)

// SourceConfig is the `config:` of a jsonl source.
type SourceConfig struct {
	Path           string `json:"path" required:"true" doc:"JSON Lines file to read, or a glob (files are read in sorted order)."`
	Compression    string `json:"compression" default:"auto" enum:"auto,none,gzip" doc:"Input compression; auto means gzip for a .gz file name."`
	BatchSize      int    `json:"batch_size" default:"1000" doc:"Records per page; 0 cuts pages only at the 256 KiB read size."`
	ReplicationKey string `json:"replication_key" doc:"Field (dotted path) whose value orders records for incremental reads: only records above the saved bookmark are emitted."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	return nil
}

// readSize is how much input one read asks for (a variable for tests). It
// is the pooled buffer size: a larger read would allocate a new buffer
// every time instead of reusing a released one.
var readSize = fileio.ReadSize

// Source reads JSON Lines in chunks of whole lines (fileio.ReadSize reads); each page's
// Decode parses its lines on an engine worker.
type Source struct {
	cfg             SourceConfig
	fileio.Sharding // the input files, and the shard of them to read (cluster mode B)
	files           []string
	next            int
	cur             *fileio.Reader
	path            string
	buf             []byte         // buf[off:] is unconsumed
	bufRef          *fileio.Buffer // the pooled buffer buf is in; one reference is ours
	off             int
	eof             bool
	line            int
	rows            int64 // non-blank lines handed out so far, over all files
	// bomDone is set once a byte-order mark at the file start was looked for.
	bomDone bool
	cut     bool // lines of the current file were handed out already
	start   *connector.Value
	keyPth  []string
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.Sharding = fileio.Sharding{Connector: "jsonl", Pattern: s.cfg.Path}
	if s.cfg.ReplicationKey != "" {
		s.keyPth = strings.Split(s.cfg.ReplicationKey, ".")
	}
	return s, nil
}

// Open finds the input files and opens the first.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	files, err := s.Files()
	if err != nil {
		return err
	}
	s.files = files
	if s.keyPth != nil {
		s.start = opts.StartBookmark
	}
	return s.openNext()
}

func (s *Source) openNext() error {
	path := s.files[s.next]
	s.next++
	r, err := s.In.Open(path, s.cfg.Compression)
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	s.cur, s.path, s.buf, s.off, s.eof, s.line, s.bomDone, s.cut = r, path, nil, 0, false, 1, false, false
	return nil
}

// Next returns the next run of whole lines as a page to decode.
func (s *Source) Next(ctx context.Context) (*connector.Page, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.cur == nil {
			if s.next >= len(s.files) {
				return nil, io.EOF
			}
			if err := s.openNext(); err != nil {
				return nil, err
			}
		}
		data, first, firstRow, err := s.chunk()
		if err == io.EOF {
			cerr := s.cur.Close()
			s.cur = nil
			s.bufRef.Release()
			s.bufRef, s.buf, s.off = nil, nil, 0
			if cerr != nil {
				return nil, fmt.Errorf("jsonl: %w", cerr)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("jsonl: read %s: %w", s.path, err)
		}
		path, ref := s.path, s.bufRef
		var mem *pageMem
		return &connector.Page{
			Decode: func(p *connector.Page) error {
				mem = getPageMem()
				s.decode(p, mem, path, data, first, firstRow)
				return nil
			},
			// The engine is done with the page: reuse its buffer and the
			// parser's memory.
			Release: func() {
				ref.Release()
				mem.put()
			},
		}, nil
	}
}

// chunk cuts up to batch_size whole lines from the buffer, reading more
// (into another pooled buffer, see fileio.Buffer) when no whole line is
// left. The chunk holds a reference on s.bufRef, dropped by Page.Release.
func (s *Source) chunk() ([]byte, int, int64, error) {
	for {
		rest := s.buf[s.off:]
		end, lines, rows := 0, 0, 0
		for end < len(rest) && (s.cfg.BatchSize == 0 || lines < s.cfg.BatchSize) {
			j := bytes.IndexByte(rest[end:], '\n')
			if j < 0 {
				break
			}
			if !blank(rest[end : end+j]) {
				rows++
			}
			end += j + 1
			lines++
		}
		if s.eof && end < len(rest) && (s.cfg.BatchSize == 0 || lines < s.cfg.BatchSize) {
			if !blank(rest[end:]) {
				rows++
			}
			end = len(rest) // last line without a newline
			lines++
		}
		if end > 0 {
			data := rest[:end:end]
			first, firstRow := s.line, s.rows+1
			s.line += lines
			s.rows += int64(rows)
			s.off += end
			s.bufRef.Retain() // released with the page
			s.cut = true
			return data, first, firstRow, nil
		}
		if s.eof {
			return nil, 0, 0, io.EOF
		}
		size := readSize
		for size < 2*len(rest) {
			size *= 2
		}
		rb := fileio.GetBuffer(size)
		nb := rb.B[:size]
		copy(nb, rest)
		n, err := fileio.ReadFull(s.cur, nb[len(rest):])
		s.bufRef.Release()
		s.bufRef = rb
		s.buf, s.off = nb[:len(rest)+n], 0
		if err != nil {
			if err != io.EOF {
				return nil, 0, 0, err
			}
			s.eof = true
		}
		// Drop a byte-order mark at the file start (a shorter prefix of it
		// holds no newline, so nothing was cut before the check).
		if !s.bomDone && (len(s.buf) >= 3 || s.eof) {
			s.bomDone = true
			// Only at the very start of the file: lines may already have
			// been cut from its first bytes.
			if !s.cut && bytes.HasPrefix(s.buf, []byte{0xEF, 0xBB, 0xBF}) {
				s.off = 3
			}
		}
	}
}

// decode parses the lines of one chunk; it runs on an engine worker.
func (s *Source) decode(p *connector.Page, mem *pageMem, path string, data []byte, line int, firstRow int64) {
	row, first := firstRow-1, line
	jp := &mem.jp
	recs := mem.recs[:0]
	// Where each record came from, relative to the chunk, for Page.Locate.
	lineOff := mem.lineOff[:0]
	rowOff := mem.rowOff[:0]
	defer func() { mem.recs, mem.lineOff, mem.rowOff = recs, lineOff, rowOff }()
	var best connector.Value
	haveBest := false
	for len(data) > 0 {
		ln := data
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			ln, data = data[:j], data[j+1:]
		} else {
			data = nil
		}
		lineNo := line
		line++
		text := bytes.TrimRight(ln, "\r")
		if blank(text) {
			continue
		}
		row++
		rec, kind, err := jp.ParseRecord(text)
		if err == nil && kind != connector.KindObject {
			err = fmt.Errorf("line is a JSON %s, not an object", kind)
		}
		if err != nil {
			p.Failed = append(p.Failed, fail(path, lineNo, row, text, err))
			continue
		}
		if s.keyPth != nil {
			kv, ok := rec.Lookup(s.keyPth)
			if !ok {
				p.Failed = append(p.Failed, fail(path, lineNo, row, text, fmt.Errorf("record has no replication_key %q", s.cfg.ReplicationKey)))
				continue
			}
			if s.start != nil && connector.Compare(kv, *s.start) <= 0 {
				continue
			}
			if !haveBest || connector.Compare(kv, best) > 0 {
				best, haveBest = kv, true
			}
		}
		recs = append(recs, rec)
		lineOff = append(lineOff, int32(lineNo-first))
		rowOff = append(rowOff, int32(row-firstRow))
	}
	p.Records = recs
	p.Locate = func(i int) (string, int64) {
		if i < 0 || i >= len(lineOff) {
			return "", 0
		}
		return path + ":" + strconv.Itoa(first+int(lineOff[i])), firstRow + int64(rowOff[i])
	}
	if haveBest {
		// Detach from the chunk: a bookmark outlives the page.
		bm, err := connector.ParseJSON(connector.AppendJSON(nil, best))
		if err == nil {
			p.Bookmark = &bm
		}
	}
}

// blank reports a line with nothing but spaces, tabs and CRs (skipped).
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func fail(path string, line int, row int64, raw []byte, err error) connector.RecordError {
	var se *connector.JSONSyntaxError
	if errors.As(err, &se) {
		err = fmt.Errorf("invalid JSON at column %d: %s", se.Offset+1, se.Msg)
	}
	return connector.RecordError{
		Stage:     connector.StageSource,
		Component: "jsonl",
		Location:  path + ":" + strconv.Itoa(line),
		RowID:     row,
		Raw:       string(raw),
		Err:       err,
	}
}

// Close closes the open file, if any.
func (s *Source) Close() error {
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur = nil
	s.bufRef.Release()
	s.bufRef, s.buf, s.off = nil, nil, 0
	return err
}

// MergeBookmark keeps the highest replication key.
func (s *Source) MergeBookmark(committed, page connector.Value) connector.Value {
	return connector.MaxBookmark(committed, page)
}

var (
	_ connector.Source         = (*Source)(nil)
	_ connector.BookmarkMerger = (*Source)(nil)
)

// pageMem is the record storage of one page, reused through memPool once
// the engine released the page.
type pageMem struct {
	jp      connector.JSONParser
	recs    []connector.Record
	lineOff []int32
	rowOff  []int32
}

var memPool = recycle.List[*pageMem]{Max: recycle.PagesInFlight}

func getPageMem() *pageMem {
	if m, ok := memPool.Get(); ok {
		m.jp.Reset()
		return m
	}
	return &pageMem{}
}

func (m *pageMem) put() {
	if m != nil {
		memPool.Put(m)
	}
}

// The embedded fileio.Sharding splits the input files for cluster mode B.
var _ connector.Sharder = (*Source)(nil)
