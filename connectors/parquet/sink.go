package parquet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/faucet-hq/faucet/connector"
)

// SinkConfig is the `config:` of a parquet sink.
type SinkConfig struct {
	Path string `json:"path" doc:"Parquet file to write; parent directories are created. The file appears when the run completes. Required unless destination is given."`
	// Destination is faucet-cli 1.x's spelling of the output.
	Destination     *Location `json:"destination" doc:"faucet-cli 1.x form of the output: {type: local_path, path}. Use path instead."`
	Compression     string    `json:"compression" default:"snappy" enum:"snappy,zstd,gzip,none,uncompressed" doc:"Page compression codec (uncompressed is the same as none)."`
	RowGroupSize    int       `json:"row_group_size" default:"1048576" doc:"Most rows per row group."`
	RowGroupBytes   int64     `json:"row_group_bytes" default:"4194304" doc:"A row group also ends once its estimated size (encoded pages plus values not yet encoded) reaches this many bytes. The row group's encoded pages wait in a temporary file beside the output until it ends, not in memory. Default 4 MiB."`
	PageBufferBytes int       `json:"page_buffer_bytes" default:"65536" doc:"Bytes of values a column collects before they are encoded and compressed as one page: the sink's memory is about this per column. Larger pages compress slightly better (256 KiB: a file about 5% smaller on the benchmark data) at several times the memory. Default 64 KiB."`
	OnUnknownField  string    `json:"on_unknown_field" default:"warn" enum:"warn,error" doc:"What to do with a field the first page did not have: drop it with one warning, or fail."`
	BatchSize       int       `json:"batch_size" doc:"Accepted for compatibility with faucet-cli 1.x; has no effect."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if c.Destination != nil {
		if c.Path != "" {
			return connector.ConfigErrorf("destination", "give either path or destination, not both")
		}
		if c.Destination.Type != "local_path" {
			return connector.ConfigErrorf("destination.type", "%q is not supported by the parquet sink; write S3 objects with the s3 connector", c.Destination.Type)
		}
		p, err := c.Destination.resolve("destination")
		if err != nil {
			return err
		}
		c.Path = p
	}
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	if c.RowGroupSize <= 0 {
		return connector.ConfigErrorf("row_group_size", "must be positive, got %d", c.RowGroupSize)
	}
	if c.PageBufferBytes < 4<<10 || c.PageBufferBytes > 64<<20 {
		return connector.ConfigErrorf("page_buffer_bytes", "must be between 4096 and %d (64 MiB), got %d", 64<<20, c.PageBufferBytes)
	}
	if c.RowGroupBytes < minRowGroupBytes {
		return connector.ConfigErrorf("row_group_bytes", "must be at least %d (64 KiB), got %d", minRowGroupBytes, c.RowGroupBytes)
	}
	return nil
}

func (c *SinkConfig) codec() compress.Codec {
	switch c.Compression {
	case "zstd":
		return &zstd.Codec{}
	case "gzip":
		return &gzip.Codec{}
	case "none", "uncompressed":
		return &uncompressed.Codec{}
	}
	return snappyCodec{}
}

// Sink writes one Parquet file. It stages the file next to its
// destination and renames it into place only when the run completes (see
// the package documentation): it implements connector.Overwriter.
type Sink struct {
	cfg  SinkConfig
	log  *slog.Logger
	tmp  *os.File
	out  *countingWriter // tmp, counting the bytes the writer has sent it
	w    *pq.Writer
	cols []sinkColumn
	idx  map[string]int
	// nulls is a row of nulls, the starting point of every row.
	nulls pq.Row
	// dropped holds the unknown fields already warned about.
	dropped map[string]bool
	// pageState is the page being written, column by column (colwrite.go).
	pageState
	// spill holds the row group's encoded pages in temporary files.
	spill *spillPool
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// Open creates the parent directories and the staging file beside the
// destination (so the final rename stays on one file system).
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if st, err := os.Stat(s.cfg.Path); err == nil && st.IsDir() {
		return fmt.Errorf("parquet: %s is a directory", s.cfg.Path)
	}
	dir := filepath.Dir(s.cfg.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	f, err := createStaging(s.cfg.Path)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	s.tmp = f
	return nil
}

// createStaging creates a new hidden file beside path. Unlike
// os.CreateTemp (0600) it gets the mode the other file sinks give their
// output, 0644 less the umask, since it becomes the output by renaming.
func createStaging(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(b[:])+".tmp")
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
}

// Write appends the page's records to the current row group. The first
// page with records fixes the columns.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if len(p.Records) == 0 {
		return nil
	}
	if s.tmp == nil {
		return fmt.Errorf("parquet: %s: write after the file was finished", s.cfg.Path)
	}
	if s.w == nil {
		if err := s.start(p.Records); err != nil {
			return err
		}
	}
	n, err := s.plan(p)
	if err == nil && n > 0 {
		err = s.writePage(p.Records, n)
	}
	s.release()
	return err
}

// start infers the columns from the first page and starts the file.
func (s *Sink) start(recs []connector.Record) error {
	cols, err := inferColumns(recs)
	if err != nil {
		return fmt.Errorf("parquet: %s: %w", s.cfg.Path, err)
	}
	s.cols = cols
	s.idx = make(map[string]int, len(cols))
	s.nulls = make(pq.Row, len(cols))
	s.pageState = newPageState(len(cols))
	for i, c := range cols {
		s.idx[c.name] = i
		s.nulls[i] = pq.NullValue().Level(0, 0, i)
	}
	s.out = &countingWriter{w: s.tmp}
	s.spill = &spillPool{dir: filepath.Dir(s.tmp.Name())}
	s.w = pq.NewWriter(s.out, fileSchema(cols),
		pq.ColumnPageBuffers(s.spill),
		pq.PageBufferSize(s.cfg.PageBufferBytes),
		pq.Compression(s.cfg.codec()),
		// Min and max go to the column index (the page index) and the
		// column chunk's statistics, which readers prune with; the same
		// values again in every data page header (deprecated there since
		// the page index) would cost a second pass over every page.
		pq.DataPageStatistics(false),
		pq.CreatedBy("faucet", "", ""))
	return nil
}

// fieldError is a value the column cannot hold: the record is refused.
type fieldError struct{ msg string }

func (e *fieldError) Error() string { return e.msg }

// row fills row with one value per column (null for a missing field).
// Byte-array values point into r's strings or into buf, which the writer
// copies before WriteRows returns.
func (s *Sink) row(row pq.Row, r connector.Record, buf []byte) (pq.Row, []byte, error) {
	if cap(row) < len(s.cols) {
		row = make(pq.Row, len(s.cols))
	}
	row = row[:len(s.cols)]
	copy(row, s.nulls)
	for fi, f := range r.Fields {
		ci := fi
		if ci >= len(s.cols) || s.cols[ci].name != f.Key {
			var ok bool
			if ci, ok = s.idx[f.Key]; !ok {
				if err := s.unknown(f.Key); err != nil {
					return row, buf, err
				}
				continue
			}
		}
		if f.Value.IsNull() {
			continue
		}
		v, b, err := s.value(s.cols[ci], f.Value, buf)
		buf = b
		if err != nil {
			return row, buf, err
		}
		row[ci] = v.Level(0, 1, ci)
	}
	return row, buf, nil
}

// value converts a non-null field value for column c.
func (s *Sink) value(c sinkColumn, v connector.Value, buf []byte) (pq.Value, []byte, error) {
	switch c.typ {
	case colInt:
		if v.Kind() == connector.KindInt {
			return pq.Int64Value(v.AsInt()), buf, nil
		}
	case colFloat:
		if k := v.Kind(); k == connector.KindFloat || k == connector.KindInt {
			return pq.DoubleValue(v.AsFloat()), buf, nil
		}
	case colBool:
		if v.Kind() == connector.KindBool {
			return pq.BooleanValue(v.AsBool()), buf, nil
		}
	case colString:
		if v.Kind() == connector.KindString {
			str := v.AsString()
			return pq.ByteArrayValue(unsafe.Slice(unsafe.StringData(str), len(str))), buf, nil
		}
	case colJSON:
		start := len(buf)
		buf = connector.AppendJSON(buf, v)
		return pq.ByteArrayValue(buf[start:len(buf):len(buf)]), buf, nil
	}
	return pq.Value{}, buf, &fieldError{fmt.Sprintf("field %q is %s, but its column is %s (fixed by the first page)", c.name, v.Kind(), c.typ)}
}

// unknown handles a field the first page did not have.
func (s *Sink) unknown(key string) error {
	if s.cfg.OnUnknownField == "error" {
		names := make([]string, len(s.cols))
		for i, c := range s.cols {
			names[i] = c.name
		}
		return fmt.Errorf("parquet: field %q is not a column of %s (columns, from the first page: %s); set on_unknown_field: warn to drop it", key, s.cfg.Path, strings.Join(names, ", "))
	}
	if s.dropped == nil {
		s.dropped = map[string]bool{}
	}
	if !s.dropped[key] {
		s.dropped[key] = true
		s.log.Warn("parquet sink drops a field the first page did not have (warned once per field)", "path", s.cfg.Path, "field", key)
	}
	return nil
}

// Flush does not make anything durable: a Parquet file is readable only
// once its footer is written, which happens in CommitOverwrite. Because
// the sink reports Overwriting, the engine saves no bookmark on the
// strength of a Flush.
func (s *Sink) Flush(ctx context.Context) error { return nil }

// Overwriting reports true: every run replaces the file as a whole.
func (s *Sink) Overwriting() bool { return true }

// CommitOverwrite writes the footer, syncs the staging file and renames it
// over the destination. A run without a single record leaves the
// destination as it was.
func (s *Sink) CommitOverwrite(ctx context.Context) error {
	if s.tmp == nil {
		return fmt.Errorf("parquet: %s: nothing staged to commit", s.cfg.Path)
	}
	if s.w == nil {
		s.log.Warn("parquet sink received no records; no file written", "path", s.cfg.Path)
		return s.AbortOverwrite(ctx)
	}
	name := s.tmp.Name()
	err := s.w.Close()
	if err == nil {
		err = s.tmp.Sync()
	}
	if cerr := s.tmp.Close(); err == nil {
		err = cerr
	}
	if cerr := s.closeSpill(); err == nil {
		err = cerr
	}
	s.tmp, s.w = nil, nil
	if err == nil {
		err = os.Rename(name, s.cfg.Path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("parquet: finish %s: %w", s.cfg.Path, err)
	}
	syncDir(filepath.Dir(s.cfg.Path))
	return nil
}

// closeSpill closes the files of the row group's pages, if any.
func (s *Sink) closeSpill() error {
	if s.spill == nil {
		return nil
	}
	err := s.spill.close()
	s.spill = nil
	return err
}

// syncDir makes a rename durable where the platform allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// AbortOverwrite drops the staging file; the destination is untouched.
func (s *Sink) AbortOverwrite(ctx context.Context) error {
	if s.tmp == nil {
		return nil
	}
	name := s.tmp.Name()
	err := errors.Join(s.tmp.Close(), s.closeSpill())
	s.tmp, s.w = nil, nil
	if rerr := os.Remove(name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return fmt.Errorf("parquet: discard staging file of %s: %w", s.cfg.Path, err)
	}
	return nil
}

// Close finishes a file that was neither committed nor aborted. The
// engine always does one or the other for the pipeline's sink (a failed,
// cancelled or --limit run aborts), so this is for callers outside that
// protocol: a dead-letter sink, library use. They get the file on Close,
// as faucet-cli 1.x wrote its footer when the sink was dropped.
func (s *Sink) Close() error {
	if s.tmp == nil {
		return nil
	}
	return s.CommitOverwrite(context.Background())
}

var (
	_ connector.Sink       = (*Sink)(nil)
	_ connector.Overwriter = (*Sink)(nil)
	_ connector.Checker    = (*Sink)(nil)
	_ connector.Checker    = (*Source)(nil)
)
