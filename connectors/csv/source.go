package csv

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// SourceConfig is the `config:` of a csv source.
type SourceConfig struct {
	Path           string         `json:"path" required:"true" doc:"CSV file to read, or a glob (files are read in sorted order)."`
	HasHeaders     bool           `json:"has_headers" default:"true" doc:"The first row names the columns."`
	Columns        []string       `json:"columns" doc:"Column names. With has_headers they replace the header's names; without, they name the fields (default column_1..n)."`
	Delimiter      connector.Byte `json:"delimiter" default:"," doc:"Field separator."`
	Quote          connector.Byte `json:"quote" default:"\"" doc:"Quote character."`
	Flexible       bool           `json:"flexible" default:"false" doc:"Allow rows with more or fewer fields than the header (extra fields are named column_<i>)."`
	BatchSize      int            `json:"batch_size" default:"1000" doc:"Records per page; 0 cuts pages only at the 256 KiB read size."`
	Compression    string         `json:"compression" default:"auto" enum:"auto,none,gzip" doc:"Input compression; auto means gzip for a .gz file name."`
	ReplicationKey string         `json:"replication_key" doc:"Column whose value orders rows for incremental reads: only rows above the saved bookmark are emitted."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	if err := checkDialect(byte(c.Delimiter), byte(c.Quote)); err != nil {
		return err
	}
	seen := map[string]int{}
	for i, name := range c.Columns {
		if name == "" {
			return connector.ConfigErrorf(fmt.Sprintf("columns[%d]", i), "must not be empty")
		}
		if j, dup := seen[name]; dup {
			return connector.ConfigErrorf(fmt.Sprintf("columns[%d]", i), "duplicate column %q (also columns[%d])", name, j)
		}
		seen[name] = i
	}
	if c.ReplicationKey != "" && len(c.Columns) > 0 {
		if _, ok := seen[c.ReplicationKey]; !ok {
			return connector.ConfigErrorf("replication_key", "%q is not one of columns", c.ReplicationKey)
		}
	}
	return nil
}

func checkDialect(delim, quote byte) error {
	switch {
	case delim == '\n' || delim == '\r':
		return connector.ConfigErrorf("delimiter", "must not be a line break")
	case quote == '\n' || quote == '\r':
		return connector.ConfigErrorf("quote", "must not be a line break")
	case delim == quote:
		return connector.ConfigErrorf("quote", "must differ from delimiter")
	}
	return nil
}

// Source reads CSV files in 256 KiB chunks cut at record boundaries; each
// page's Decode parses its chunk on an engine worker.
type Source struct {
	cfg             SourceConfig
	cfgPath         string
	fileio.Sharding // the input files, and the shard of them to read (cluster mode B)
	dec             decoder
	files           []string
	next            int // index in files of the next file to open
	cur             *inputFile
	rowBase         int64 // data rows in the files already read
}

type inputFile struct {
	r    *fileio.Reader
	ch   *chunker
	info *fileInfo
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{cfgPath: c.Path}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.Sharding = fileio.Sharding{Connector: "csv", Pattern: s.cfg.Path}
	return s, nil
}

// Open finds the input files and reads the first file's header, so a
// missing file or a bad header fails before anything is written.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	files, err := s.Files()
	if err != nil {
		return err
	}
	s.files = files
	s.dec = decoder{
		delim:    byte(s.cfg.Delimiter),
		quote:    byte(s.cfg.Quote),
		flexible: s.cfg.Flexible,
		repKey:   s.cfg.ReplicationKey,
	}
	if s.cfg.ReplicationKey != "" {
		s.dec.start = opts.StartBookmark
	}
	return s.openNext()
}

func (s *Source) openNext() error {
	path := s.files[s.next]
	s.next++
	r, err := s.In.Open(path, s.cfg.Compression)
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	f := &inputFile{r: r, ch: newChunker(r, s.dec.delim, s.dec.quote)}
	f.info, err = s.readHeader(path, f.ch)
	if err != nil {
		r.Close()
		return err
	}
	s.cur = f
	return nil
}

// firstRow returns the first non-blank row of the input. With consume
// false the chunker is left before it.
func (s *Source) firstRow(path string, ch *chunker, consume bool) ([]string, bool, error) {
	for {
		c, err := ch.next(1)
		if err == io.EOF {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("csv: read %s: %w", path, err)
		}
		sp, _, _, ok := parseRecord(c.data, 0, nil, s.dec.delim, s.dec.quote)
		if !ok {
			c.release()
			return nil, false, fmt.Errorf("%s:%d: csv: %w", path, c.firstLine, errUnterminated)
		}
		if isBlank(sp) {
			c.release()
			continue
		}
		defer c.release() // the row's strings are cloned below
		if consume {
			ch.rows = 0 // data rows are counted from after the header
		} else {
			ch.off -= len(c.data)
			ch.line = c.firstLine
			ch.rows = c.firstRow - 1
		}
		row := make([]string, len(sp))
		for i := range sp {
			if consume {
				row[i] = strings.Clone(fieldString(c.data, sp[i], s.dec.quote))
			}
		}
		return row, true, nil
	}
}

func (s *Source) readHeader(path string, ch *chunker) (*fileInfo, error) {
	fi := &fileInfo{path: path, keyIdx: -1}
	switch {
	case s.cfg.HasHeaders:
		hdr, ok, err := s.firstRow(path, ch, true)
		if err != nil {
			return nil, err
		}
		if !ok { // empty file
			fi.keys = s.cfg.Columns
			break
		}
		seen := make(map[string]int, len(hdr))
		for i, h := range hdr {
			if j, dup := seen[h]; dup && len(s.cfg.Columns) == 0 {
				return nil, connector.ConfigErrorf(s.cfgPath, "%s: the header repeats column %q (columns %d and %d); name the columns with `columns`", path, h, j+1, i+1)
			}
			seen[h] = i
		}
		fi.keys, fi.want, fi.wantFrom = hdr, len(hdr), "header"
		if len(s.cfg.Columns) > 0 {
			if len(s.cfg.Columns) != len(hdr) {
				return nil, connector.ConfigErrorf(s.cfgPath+".columns", "lists %d names but the header of %s has %d columns", len(s.cfg.Columns), path, len(hdr))
			}
			fi.keys = s.cfg.Columns
		}
	case len(s.cfg.Columns) > 0:
		fi.keys, fi.want, fi.wantFrom = s.cfg.Columns, len(s.cfg.Columns), "columns"
	default:
		row, ok, err := s.firstRow(path, ch, false)
		if err != nil {
			return nil, err
		}
		if ok {
			fi.want, fi.wantFrom = len(row), "first row"
			fi.keys = make([]string, len(row))
			for i := range row {
				fi.keys[i] = columnName(i + 1)
			}
		}
	}
	if rk := s.cfg.ReplicationKey; rk != "" {
		for i, k := range fi.keys {
			if k == rk {
				fi.keyIdx = i
			}
		}
		if fi.keyIdx < 0 && fi.want > 0 {
			return nil, connector.ConfigErrorf(s.cfgPath+".replication_key", "%q is not a column of %s (columns: %s)", rk, path, strings.Join(fi.keys, ", "))
		}
	}
	return fi, nil
}

// Next returns the next chunk of whole records as a page to decode.
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
		c, err := s.cur.ch.next(s.cfg.BatchSize)
		if err == io.EOF {
			s.cur.ch.close()
			s.rowBase += s.cur.ch.rows
			cerr := s.cur.r.Close()
			s.cur = nil
			if cerr != nil {
				return nil, fmt.Errorf("csv: %w", cerr)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("csv: read %s: %w", s.cur.info.path, err)
		}
		c.firstRow += s.rowBase
		fi, dec := s.cur.info, &s.dec
		var mem *pageMem
		return &connector.Page{
			Decode: func(p *connector.Page) error {
				mem = dec.decode(p, fi, c)
				return nil
			},
			// The engine is done with the page: its chunk's buffer and its
			// record storage can be reused.
			Release: func() {
				c.release()
				mem.put()
			},
		}, nil
	}
}

// Close closes the open file, if any.
func (s *Source) Close() error {
	if s.cur == nil {
		return nil
	}
	s.cur.ch.close()
	err := s.cur.r.Close()
	s.cur = nil
	return err
}

// MergeBookmark keeps the highest replication key: each page's bookmark is
// only the highest key within that page.
func (s *Source) MergeBookmark(committed, page connector.Value) connector.Value {
	return connector.MaxBookmark(committed, page)
}

var (
	_ connector.Source         = (*Source)(nil)
	_ connector.BookmarkMerger = (*Source)(nil)
)

// The embedded fileio.Sharding splits the input files for cluster mode B.
var _ connector.Sharder = (*Source)(nil)
