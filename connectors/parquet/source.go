package parquet

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
	"github.com/faucet-hq/faucet/internal/recycle"
)

// SourceConfig is the `config:` of a parquet source.
type SourceConfig struct {
	Path string `json:"path" doc:"Parquet file to read, or a glob (files are read in sorted order). Required unless source is given."`
	// Source is faucet-cli 1.x's spelling of the input.
	Source    *Location `json:"source" doc:"faucet-cli 1.x form of the input: {type: local_path, path} or {type: glob, pattern}. Use path instead."`
	Columns   []string  `json:"columns" doc:"Top-level columns to read (projection), in file order; default all. An unknown name is an error."`
	BatchSize int       `json:"batch_size" default:"1000" doc:"Rows per page; 0 makes one page per row group."`
	// Concurrency is accepted for compatibility with faucet-cli 1.x.
	Concurrency int `json:"concurrency" default:"4" doc:"Accepted for compatibility with faucet-cli 1.x (eager fetch); files are streamed one after the other."`
}

// Location is faucet-cli 1.x's tagged input or output of the parquet
// connectors; only the local forms exist here.
type Location struct {
	Type    string `json:"type" required:"true" enum:"local_path,glob,s3" doc:"local_path or glob (s3: use the s3 connector)."`
	Path    string `json:"path" doc:"File path (type local_path)."`
	Pattern string `json:"pattern" doc:"Glob (type glob)."`
}

// resolve returns the local path or glob a Location names.
func (l *Location) resolve(key string) (string, error) {
	switch l.Type {
	case "local_path":
		if strings.TrimSpace(l.Path) == "" {
			return "", connector.ConfigErrorf(key+".path", "must not be empty")
		}
		return l.Path, nil
	case "glob":
		if strings.TrimSpace(l.Pattern) == "" {
			return "", connector.ConfigErrorf(key+".pattern", "must not be empty")
		}
		return l.Pattern, nil
	}
	return "", connector.ConfigErrorf(key+".type", "%q is not supported by the parquet connector; read and write S3 objects with the s3 connector", l.Type)
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if c.Source != nil {
		if c.Path != "" {
			return connector.ConfigErrorf("source", "give either path or source, not both")
		}
		p, err := c.Source.resolve("source")
		if err != nil {
			return err
		}
		c.Path = p
	}
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	if c.Concurrency <= 0 {
		return connector.ConfigErrorf("concurrency", "must be positive, got %d", c.Concurrency)
	}
	seen := map[string]bool{}
	for _, col := range c.Columns {
		if seen[col] {
			return connector.ConfigErrorf("columns", "column %q is listed twice", col)
		}
		seen[col] = true
	}
	return nil
}

// Source streams the rows of one or more Parquet files, one page of at
// most batch_size rows at a time, reading each column page by page.
type Source struct {
	cfg    SourceConfig
	files  []string
	plan   []*node
	leaves []int // file leaf column of each cursor
	next   int   // next file to open

	// The file being read.
	path   string
	f      *os.File
	pf     *pq.File
	rg     int   // next row group
	left   int64 // rows left in the current row group
	asm    assembler
	valBuf [][]pq.Value // one value buffer per cursor, reused
	// streams are the cursors' chunk readers, reused from row group to
	// row group and file to file (nil for a column parquet-go reads).
	streams []*chunkStream
	row     int64 // rows emitted so far, over all files
	frow    int64 // rows of the current file emitted so far

	// fileio.Sharding splits the files for cluster mode B (local files
	// only; In stays nil).
	fileio.Sharding
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.Sharding = fileio.Sharding{Connector: "parquet", Pattern: s.cfg.Path}
	return s, nil
}

var _ connector.Sharder = (*Source)(nil)

// Open finds the files and reads every footer: all files must have the
// same schema (of the projected columns) before a row is emitted.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	path := s.cfg.Path
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parquet: %s: corrupt file: %v", path, r)
		}
	}()
	files, err := fileio.Expand(s.cfg.Path)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	s.files = files
	var first *pq.Schema
	for i := range files {
		path = files[i]
		if err := ctx.Err(); err != nil {
			return err
		}
		f, pf, err := openFile(path)
		if err != nil {
			return err
		}
		f.Close()
		if i == 0 {
			first = pf.Schema()
			s.plan, s.leaves, err = planFields(first, s.cfg.Columns)
			if err == nil && len(s.leaves) == 0 {
				err = fmt.Errorf("the file has no columns")
			}
			if err != nil {
				return fmt.Errorf("parquet: %s: %w", path, err)
			}
			continue
		}
		if err := sameSchema(first, pf.Schema(), s.cfg.Columns); err != nil {
			return fmt.Errorf("parquet: %s and %s have different schemas: %w", files[0], path, err)
		}
	}
	s.files = keyshard.Filter(s.Applied, files, func(f string) string { return f })
	s.valBuf = make([][]pq.Value, len(s.leaves))
	s.streams = make([]*chunkStream, len(s.leaves))
	for i := range s.valBuf {
		s.valBuf[i] = make([]pq.Value, cursorBuffer)
	}
	return nil
}

// openFile opens path and reads its footer; the error names the file.
func openFile(path string) (*os.File, *pq.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("parquet: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("parquet: %w", err)
	}
	pf, err := openFooter(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("parquet: %s is not a readable Parquet file: %w", path, err)
	}
	return f, pf, nil
}

// openFooter reads the footer, turning a decoder panic on a damaged
// file into an error.
func openFooter(f *os.File, size int64) (pf *pq.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			pf, err = nil, fmt.Errorf("corrupt footer: %v", r)
		}
	}()
	// The library allocates the footer length the trailer claims before
	// reading it: check it against the file size first, so a damaged
	// trailer cannot ask for gigabytes.
	var tail [8]byte
	if size < 12 {
		return nil, fmt.Errorf("%d bytes is too short for a Parquet file", size)
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return nil, fmt.Errorf("the trailer gives a footer of %d bytes in a file of %d", n, size)
	}
	return pq.OpenFile(f, size, pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
}

// sameSchema compares the (projected) top-level fields of two schemas.
func sameSchema(a, b *pq.Schema, columns []string) error {
	pick := func(s *pq.Schema) map[string]pq.Field {
		m := map[string]pq.Field{}
		for _, f := range s.Fields() {
			m[f.Name()] = f
		}
		return m
	}
	fa, fb := pick(a), pick(b)
	names := columns
	if len(names) == 0 {
		if len(fa) != len(fb) {
			return fmt.Errorf("%d columns against %d", len(fa), len(fb))
		}
		for _, f := range a.Fields() {
			names = append(names, f.Name())
		}
	}
	for _, n := range names {
		x, y := fa[n], fb[n]
		if y == nil {
			return fmt.Errorf("column %q is missing from the second", n)
		}
		if !pq.EqualNodes(x, y) {
			return fmt.Errorf("column %q is %s in one and %s in the other", n, strings.TrimSpace(x.String()), strings.TrimSpace(y.String()))
		}
	}
	return nil
}

// Next returns the next batch_size rows (fewer at the end of a row group).
func (s *Source) Next(ctx context.Context) (p *connector.Page, err error) {
	defer func() {
		// The decoder can panic on a damaged file (a row group whose
		// column chunks do not match the footer); say which file.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("parquet: %s: corrupt file: %v", s.path, r)
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.left > 0 {
			return s.page()
		}
		if s.pf != nil && s.rg < len(s.pf.RowGroups()) {
			if err := s.openRowGroup(); err != nil {
				return nil, err
			}
			continue
		}
		if s.pf != nil {
			if err := s.closeFile(); err != nil {
				return nil, err
			}
		}
		if s.next >= len(s.files) {
			return nil, io.EOF
		}
		path := s.files[s.next]
		s.next++
		f, pf, err := openFile(path)
		if err != nil {
			return nil, err
		}
		// Files agree on the projected columns, but not necessarily on
		// where those sit among the others: plan each file's leaves anew.
		plan, leaves, err := planFields(pf.Schema(), s.cfg.Columns)
		if err == nil && len(leaves) != len(s.valBuf) {
			err = fmt.Errorf("the file changed since the run started")
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("parquet: %s: %w", path, err)
		}
		s.plan, s.leaves = plan, leaves
		s.path, s.f, s.pf, s.rg, s.frow = path, f, pf, 0, 0
	}
}

// streamPages is false in tests that compare chunkStream with
// parquet-go's page reader.
var streamPages = true

// openRowGroup starts reading the next row group of the current file.
func (s *Source) openRowGroup() error {
	if err := s.closeCursors(); err != nil {
		return err
	}
	rg := s.pf.RowGroups()[s.rg]
	meta := &s.pf.Metadata().RowGroups[s.rg]
	s.rg++
	chunks := rg.ColumnChunks()
	schema := s.pf.Schema()
	paths := schema.Columns()
	cols := make([]*cursor, len(s.leaves))
	for i, leaf := range s.leaves {
		if leaf >= len(chunks) || leaf >= len(meta.Columns) {
			return fmt.Errorf("parquet: %s: row group %d has %d columns, the schema %d", s.path, s.rg, len(chunks), len(paths))
		}
		var src valueSource
		lc, _ := schema.Lookup(paths[leaf]...)
		if ok, _ := streamable(&meta.Columns[leaf], lc, s.pf.Size()); ok && streamPages {
			if s.streams[i] == nil {
				s.streams[i] = &chunkStream{}
			}
			s.streams[i].reset(s.f, &meta.Columns[leaf], lc)
			src = s.streams[i]
		} else {
			src = &pageValues{pages: chunks[leaf].Pages()}
		}
		cols[i] = newCursor(src, strings.Join(paths[leaf], "."), s.valBuf[i])
	}
	s.asm.cols = cols
	s.left = rg.NumRows()
	return nil
}

// page assembles the next rows of the current row group. A file whose
// pages are damaged can make the decoder panic; that becomes an error
// naming the file.
func (s *Source) page() (p *connector.Page, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("parquet: %s: row %d: corrupt data: %v", s.path, s.frow+1, r)
		}
	}()
	n := s.left
	if bs := int64(s.cfg.BatchSize); bs > 0 && n > bs {
		n = bs
	}
	nf := len(s.plan)
	mem := getPageMem(int(n), nf)
	fields, recs := mem.fields, mem.recs
	s.asm.arena = &mem.arena
	// Column by column: each top-level field reads its own cursors, so
	// the order across fields is free, and a column's values are then
	// consumed in one tight loop.
	for j, fp := range s.plan {
		if fp.shape == shapeLeaf && !fp.repeated {
			if i, rerr := s.scalarColumn(fp, j, nf, fields); rerr != nil {
				return nil, fmt.Errorf("parquet: %s: row %d: %w", s.path, s.frow+int64(i)+1, rerr)
			}
			continue
		}
		for i := range recs {
			v, rerr := s.asm.read(fp)
			if rerr != nil {
				return nil, fmt.Errorf("parquet: %s: row %d: %w", s.path, s.frow+int64(i)+1, rerr)
			}
			fields[i*nf+j] = connector.Field{Key: fp.name, Value: v}
		}
	}
	for i := range recs {
		recs[i] = connector.Record{Fields: fields[i*nf : (i+1)*nf : (i+1)*nf]}
	}
	first, firstInFile, path := s.row+1, s.frow+1, s.path
	s.row += n
	s.frow += n
	s.left -= n
	return &connector.Page{
		Records: recs,
		Locate: func(i int) (string, int64) {
			return fmt.Sprintf("%s: row %d", path, firstInFile+int64(i)), first + int64(i)
		},
		// The engine is done with the page: its records, fields and
		// strings are reused for a later page.
		Release: mem.put,
	}, nil
}

// pageMem is the memory of one page's records: the records, their fields
// (one slab) and the arena of their strings, reused (memPool) once the
// engine has released the page.
type pageMem struct {
	recs   []connector.Record
	fields []connector.Field
	arena  arena
}

var memPool = recycle.List[*pageMem]{Max: recycle.PagesInFlight}

// getPageMem returns the memory for n rows of nf top-level fields.
func getPageMem(n, nf int) *pageMem {
	m, ok := memPool.Get()
	if !ok {
		m = &pageMem{}
	}
	if cap(m.recs) < n {
		m.recs = make([]connector.Record, n)
	}
	if cap(m.fields) < n*nf {
		m.fields = make([]connector.Field, n*nf)
	}
	m.recs, m.fields = m.recs[:n], m.fields[:n*nf]
	return m
}

func (m *pageMem) put() {
	clear(m.fields) // nested values are the GC's
	m.arena.reset()
	memPool.Put(m)
}

// scalarColumn fills field j of every row of the page (fields holds nf
// per row) from a top-level, non-repeated leaf: one value per row, taken
// from the cursor's buffer a run at a time. On error, i is the row.
func (s *Source) scalarColumn(fp *node, j, nf int, fields []connector.Field) (i int, err error) {
	c := s.asm.cols[fp.first]
	n := len(fields) / nf
	for i < n {
		if c.i >= c.n {
			if err := c.fill(); err != nil {
				return i, err
			}
			if c.n == 0 {
				return i, fmt.Errorf("column %s: fewer values than rows", c.name)
			}
		}
		run := c.buf[c.i:min(c.n, c.i+n-i)]
		for k := range run {
			v := &run[k]
			out := connector.Null()
			if !v.IsNull() {
				if v.Kind() != fp.conv.phys {
					return i + k, s.asm.kindError(fp, *v)
				}
				out = s.asm.leaf(fp.conv, *v)
			}
			fields[(i+k)*nf+j] = connector.Field{Key: fp.name, Value: out}
		}
		c.i += len(run)
		i += len(run)
	}
	return i, nil
}

func (s *Source) closeCursors() error {
	var errs []error
	for _, c := range s.asm.cols {
		errs = append(errs, c.close())
	}
	s.asm.cols = nil
	return errors.Join(errs...)
}

func (s *Source) closeFile() error {
	err := errors.Join(s.closeCursors(), s.f.Close())
	s.f, s.pf, s.left = nil, nil, 0
	if err != nil {
		return fmt.Errorf("parquet: %s: %w", s.path, err)
	}
	return nil
}

// Close closes the open file, if any.
func (s *Source) Close() error {
	for _, st := range s.streams {
		if st != nil {
			st.free()
		}
	}
	if s.f == nil {
		return nil
	}
	return s.closeFile()
}

var _ connector.Source = (*Source)(nil)
