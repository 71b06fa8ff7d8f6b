package csv

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// SinkConfig is the `config:` of a csv sink.
type SinkConfig struct {
	Path           string         `json:"path" required:"true" doc:"CSV file to write; parent directories are created."`
	Delimiter      connector.Byte `json:"delimiter" default:"," doc:"Field separator."`
	WriteHeaders   bool           `json:"write_headers" default:"true" doc:"Write a header row (not when appending to a non-empty file)."`
	Columns        []string       `json:"columns" doc:"Columns to write, in order. Default: the keys of the first page, in first-seen order."`
	Append         bool           `json:"append" default:"false" doc:"Append to an existing file instead of truncating it."`
	Compression    string         `json:"compression" default:"auto" enum:"auto,none,gzip" doc:"Output compression; auto means gzip for a .gz file name."`
	OnUnknownField string         `json:"on_unknown_field" default:"warn" enum:"warn,error" doc:"What to do with a field that is not a column: drop it with one warning, or fail."`
	EscapeFormulas bool           `json:"escape_formulas" default:"false" doc:"Prefix cells starting with = + - @ tab or CR with ' so spreadsheets do not run them as formulas."`
	BatchSize      int            `json:"batch_size" doc:"Accepted for compatibility with faucet-cli 1.x; has no effect."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	if err := checkDialect(byte(c.Delimiter), '"'); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, name := range c.Columns {
		if seen[name] {
			return connector.ConfigErrorf(fmt.Sprintf("columns[%d]", i), "duplicate column %q", name)
		}
		seen[name] = true
	}
	return nil
}

// Sink writes CSV. It implements connector.PageEncoder: pages are encoded
// on engine workers and written in order.
type Sink struct {
	cfg SinkConfig
	log *slog.Logger
	w   *fileio.Writer

	// special[c] is true for bytes that force a cell to be quoted.
	special [256]bool

	mu      sync.Mutex
	frozen  atomic.Bool
	cols    []string // fixed once frozen
	header  bool     // a header row is still to be written
	warned  atomic.Bool
	scratch []byte // Write's encode buffer
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	d := byte(s.cfg.Delimiter)
	s.special[d], s.special['"'], s.special['\n'], s.special['\r'] = true, true, true, true
	return s, nil
}

// Open creates (or opens for appending) the output file.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	w, err := fileio.Create(s.cfg.Path, s.cfg.Append, s.cfg.Compression)
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	s.w = w
	size, err := w.Size()
	if err != nil {
		w.Close()
		return fmt.Errorf("csv: %w", err)
	}
	s.header = s.cfg.WriteHeaders && size == 0
	if len(s.cfg.Columns) > 0 {
		s.cols = s.cfg.Columns
		s.frozen.Store(true)
	}
	return nil
}

// freeze fixes the column set from the first page with records.
func (s *Sink) freeze(p *connector.Page) {
	if s.frozen.Load() || len(p.Records) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen.Load() {
		return
	}
	var cols []string
	seen := map[string]bool{}
	for _, r := range p.Records {
		for _, f := range r.Fields {
			if !seen[f.Key] {
				seen[f.Key] = true
				// Kept for the whole stream: copy it out of the page.
				cols = append(cols, strings.Clone(f.Key))
			}
		}
	}
	s.cols = cols
	s.frozen.Store(true)
}

// EncodePage appends the page's rows (without the header) to dst.
func (s *Sink) EncodePage(p *connector.Page, dst []byte) ([]byte, error) {
	s.freeze(p)
	if len(p.Records) == 0 {
		return dst, nil
	}
	cols := s.cols
	delim := byte(s.cfg.Delimiter)
	for ri := range p.Records {
		fields := p.Records[ri].Fields
		matched := 0
		rowStart := len(dst)
		for ci, col := range cols {
			if ci > 0 {
				dst = append(dst, delim)
			}
			var f *connector.Field
			if ci < len(fields) && fields[ci].Key == col {
				f = &fields[ci]
			} else if j := p.Records[ri].Index(col); j >= 0 {
				f = &fields[j]
			}
			if f == nil {
				if len(cols) == 1 {
					dst = append(dst, '"', '"')
				}
				continue
			}
			matched++
			cellStart := len(dst)
			dst = s.appendCell(dst, f.Value)
			if len(cols) == 1 && len(dst) == cellStart {
				dst = append(dst, '"', '"') // a lone empty cell would read back as a blank line
			}
		}
		if matched < len(fields) {
			if err := s.unknown(fields, cols); err != nil {
				return dst[:rowStart], err
			}
		}
		dst = append(dst, '\n')
	}
	return dst, nil
}

func (s *Sink) unknown(fields []connector.Field, cols []string) error {
	var extra []string
	for _, f := range fields {
		found := false
		for _, c := range cols {
			if c == f.Key {
				found = true
				break
			}
		}
		if !found {
			extra = append(extra, f.Key)
		}
	}
	if s.cfg.OnUnknownField == "error" {
		return fmt.Errorf("csv: field %q is not a column of %s (columns: %s); set on_unknown_field: warn to drop it", extra[0], s.cfg.Path, strings.Join(cols, ", "))
	}
	if !s.warned.Swap(true) {
		s.log.Warn("csv sink drops fields that are not columns (warned once)", "path", s.cfg.Path, "fields", extra, "columns", cols)
	}
	return nil
}

// appendCell appends one value as CSV text, quoted only when needed.
func (s *Sink) appendCell(dst []byte, v connector.Value) []byte {
	switch v.Kind() {
	case connector.KindNull:
		return dst
	case connector.KindString:
		return s.appendText(dst, v.AsString())
	case connector.KindFloat:
		if t, ok := v.ExactNumber(); ok {
			return append(dst, t...)
		}
	}
	start := len(dst)
	dst = connector.AppendJSON(dst, v)
	if s.needsQuote(dst[start:]) {
		text := string(dst[start:])
		return s.appendText(dst[:start], text)
	}
	return dst
}

func (s *Sink) needsQuote(b []byte) bool {
	for _, c := range b {
		if s.special[c] {
			return true
		}
	}
	return false
}

// needsQuoting reports whether str holds a byte that forces quoting (the
// delimiter, a quote, CR or LF), eight bytes at a time.
func (s *Sink) needsQuoting(str string) bool {
	i := 0
	if len(str) >= 8 {
		dd := ones * uint64(s.cfg.Delimiter)
		b := unsafe.Slice(unsafe.StringData(str), len(str))
		for ; i+8 <= len(b); i += 8 {
			x := binary.LittleEndian.Uint64(b[i:])
			if quoteMask(x, dd)|quoteMask(x, ones*'"')|quoteMask(x, ones*'\n')|quoteMask(x, ones*'\r') != 0 {
				return true
			}
		}
	}
	for ; i < len(str); i++ {
		if s.special[str[i]] {
			return true
		}
	}
	return false
}

func (s *Sink) appendText(dst []byte, str string) []byte {
	formula := s.cfg.EscapeFormulas && str != "" && isFormulaStart(str[0])
	quote := s.needsQuoting(str)
	if !quote {
		if formula {
			dst = append(dst, '\'')
		}
		return append(dst, str...)
	}
	dst = append(dst, '"')
	if formula {
		dst = append(dst, '\'')
	}
	for {
		i := strings.IndexByte(str, '"')
		if i < 0 {
			break
		}
		dst = append(dst, str[:i+1]...)
		dst = append(dst, '"')
		str = str[i+1:]
	}
	dst = append(dst, str...)
	return append(dst, '"')
}

func isFormulaStart(c byte) bool {
	switch c {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// WritesEncodedOnly: WriteEncoded reads the bytes, not the records.
func (s *Sink) WritesEncodedOnly() {}

// WriteEncoded writes a page EncodePage produced, after the header if one
// is still due.
func (s *Sink) WriteEncoded(ctx context.Context, p *connector.Page, data []byte) error {
	if s.header && s.frozen.Load() {
		s.header = false
		hdr := make([]byte, 0, 256)
		for i, c := range s.cols {
			if i > 0 {
				hdr = append(hdr, byte(s.cfg.Delimiter))
			}
			hdr = s.appendText(hdr, c)
		}
		hdr = append(hdr, '\n')
		if _, err := s.w.Write(hdr); err != nil {
			return fmt.Errorf("csv: write %s: %w", s.cfg.Path, err)
		}
	}
	if len(data) == 0 {
		return nil
	}
	if _, err := s.w.Write(data); err != nil {
		return fmt.Errorf("csv: write %s: %w", s.cfg.Path, err)
	}
	return nil
}

// Write encodes and writes a page (the path without PageEncoder).
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	buf, err := s.EncodePage(p, s.scratch[:0])
	s.scratch = buf[:0]
	if err != nil {
		return err
	}
	return s.WriteEncoded(ctx, p, buf)
}

// Flush makes everything written so far durable (fsync).
func (s *Sink) Flush(ctx context.Context) error { return s.flush(ctx, s.w.Flush) }

// FlushBuffers is Flush without the fsync (connector.DurableFlusher).
func (s *Sink) FlushBuffers(ctx context.Context) error { return s.flush(ctx, s.w.FlushBuffers) }

// flush writes a header still due, then flushes the file with out.
func (s *Sink) flush(ctx context.Context, out func() error) error {
	if s.header && s.frozen.Load() {
		if err := s.WriteEncoded(ctx, &connector.Page{}, nil); err != nil {
			return err
		}
	}
	if err := out(); err != nil {
		return fmt.Errorf("csv: flush %s: %w", s.cfg.Path, err)
	}
	return nil
}

// Close closes the file.
func (s *Sink) Close() error {
	if s.w == nil {
		return nil
	}
	if s.header && s.frozen.Load() {
		_ = s.WriteEncoded(context.Background(), &connector.Page{}, nil)
	}
	err := s.w.Close()
	s.w = nil
	if err != nil {
		return fmt.Errorf("csv: close %s: %w", s.cfg.Path, err)
	}
	return nil
}

var (
	_ connector.Sink              = (*Sink)(nil)
	_ connector.EncodedOnlyWriter = (*Sink)(nil)
	_ connector.DurableFlusher    = (*Sink)(nil)
)
