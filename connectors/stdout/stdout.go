// Package stdout is the `stdout` sink: records printed to the console (or
// to SinkOptions.Stdout) as JSON Lines, one pretty-printed JSON array, an
// aligned table, or CSV/TSV lines.
package stdout

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterSink(connector.SinkSpec{
		Name:    "stdout",
		Summary: "Print records to the console as JSON Lines, a JSON array, a table, CSV or TSV.",
		Config:  &Config{},
		New:     newSink,
	})
}

// Config is the `config:` of a stdout sink.
type Config struct {
	Format         string `json:"format" default:"jsonl" enum:"jsonl,json,table,csv,tsv,json_lines,pretty_json" doc:"jsonl: one object per line; json: one pretty-printed array; table: aligned columns; csv/tsv: sorted keys, no header. json_lines and pretty_json are faucet-cli 1.x names for jsonl and json."`
	Destination    string `json:"destination" default:"stdout" enum:"stdout,stderr" doc:"Where to print."`
	FlushPerRecord bool   `json:"flush_per_record" default:"false" doc:"Write every record out immediately instead of buffering."`
	MaxRecords     int    `json:"max_records" doc:"Print at most this many records (0 = all); later records are dropped silently."`
	BatchSize      int    `json:"batch_size" doc:"Accepted for compatibility with faucet-cli 1.x; has no effect."`
}

// Validate checks the rules the struct tags cannot express.
func (c *Config) Validate() error {
	if c.MaxRecords < 0 {
		return connector.ConfigErrorf("max_records", "must not be negative")
	}
	return nil
}

// maxCell is the widest a table cell gets before it is cut with "…".
const maxCell = 40

// Sink prints records.
type Sink struct {
	cfg     Config
	format  string
	out     *bufio.Writer
	broken  bool // the reader went away (EPIPE): stop writing, quietly
	printed int
	buf     []byte

	// json: whether the opening bracket was written.
	opened bool
	// table: columns and widths fixed by the first page.
	cols   []string
	widths []int
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.format = s.cfg.Format
	switch s.format {
	case "json_lines":
		s.format = "jsonl"
	case "pretty_json":
		s.format = "json"
	}
	return s, nil
}

// Open picks the destination.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	var w io.Writer = os.Stdout
	if s.cfg.Destination == "stderr" {
		w = os.Stderr
	} else if opts.Stdout != nil {
		w = opts.Stdout
	}
	s.out = bufio.NewWriterSize(w, 64<<10)
	return nil
}

// Write prints the page's records.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	recs := p.Records
	if s.cfg.MaxRecords > 0 {
		recs = recs[:min(len(recs), max(0, s.cfg.MaxRecords-s.printed))]
	}
	if s.format == "table" && s.cols == nil && len(recs) > 0 {
		s.layout(recs)
		s.buf = s.tableRow(s.buf[:0], s.cols, true)
		s.buf = s.separator(s.buf)
		if err := s.emit(); err != nil {
			return err
		}
	}
	for _, r := range recs {
		s.buf = s.appendRecord(s.buf[:0], r)
		if err := s.emit(); err != nil {
			return err
		}
		s.printed++
		if s.cfg.FlushPerRecord {
			if err := s.flushOut(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Sink) emit() error {
	if s.broken {
		return nil
	}
	if _, err := s.out.Write(s.buf); err != nil {
		return s.writeErr(err)
	}
	return nil
}

func (s *Sink) writeErr(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		s.broken = true
		return nil
	}
	return fmt.Errorf("stdout: %w", err)
}

func (s *Sink) appendRecord(dst []byte, r connector.Record) []byte {
	switch s.format {
	case "json":
		if s.opened {
			dst = append(dst, ",\n  "...)
		} else {
			dst = append(dst, "[\n  "...)
			s.opened = true
		}
		var ind bytes.Buffer
		_ = json.Indent(&ind, connector.AppendRecordJSON(nil, r), "  ", "  ")
		return append(dst, ind.Bytes()...)
	case "table":
		cells := make([]string, len(s.cols))
		for i, c := range s.cols {
			if v, ok := r.Get(c); ok {
				cells[i] = v.Text()
			}
		}
		return s.tableRow(dst, cells, false)
	case "csv", "tsv":
		keys := r.Keys()
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 {
				if s.format == "tsv" {
					dst = append(dst, '\t')
				} else {
					dst = append(dst, ',')
				}
			}
			v, _ := r.Get(k)
			dst = s.appendDelimited(dst, v.Text())
		}
		return append(dst, '\n')
	}
	dst = connector.AppendRecordJSON(dst, r)
	return append(dst, '\n')
}

func (s *Sink) appendDelimited(dst []byte, t string) []byte {
	if s.format == "tsv" {
		return append(dst, strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, t)...)
	}
	if !strings.ContainsAny(t, ",\"\r\n") {
		return append(dst, t...)
	}
	return append(append(dst, '"'), strings.ReplaceAll(t, `"`, `""`)+`"`...)
}

// layout fixes the table's columns (first-seen keys of the first page) and
// widths (the widest header or cell of the first page, at most maxCell).
func (s *Sink) layout(recs []connector.Record) {
	seen := map[string]bool{}
	for _, r := range recs {
		for _, f := range r.Fields {
			if !seen[f.Key] {
				seen[f.Key] = true
				s.cols = append(s.cols, strings.Clone(f.Key)) // outlives the page
			}
		}
	}
	s.widths = make([]int, len(s.cols))
	for i, c := range s.cols {
		s.widths[i] = utf8.RuneCountInString(cell(c))
		for _, r := range recs {
			if v, ok := r.Get(c); ok {
				s.widths[i] = max(s.widths[i], utf8.RuneCountInString(cell(v.Text())))
			}
		}
	}
}

// cell makes text fit a table cell: one line, at most maxCell characters.
func cell(t string) string {
	t = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, t)
	if utf8.RuneCountInString(t) <= maxCell {
		return t
	}
	rs := []rune(t)
	return string(rs[:maxCell-1]) + "…"
}

func (s *Sink) tableRow(dst []byte, cells []string, header bool) []byte {
	start := len(dst)
	for i, c := range cells {
		if i > 0 {
			dst = append(dst, "  "...)
		}
		c = cell(c)
		dst = append(dst, c...)
		for n := utf8.RuneCountInString(c); n < s.widths[i]; n++ {
			dst = append(dst, ' ')
		}
	}
	dst = append(dst[:start], bytes.TrimRight(dst[start:], " ")...)
	return append(dst, '\n')
}

func (s *Sink) separator(dst []byte) []byte {
	for i, w := range s.widths {
		if i > 0 {
			dst = append(dst, "  "...)
		}
		dst = append(dst, strings.Repeat("-", w)...)
	}
	return append(dst, '\n')
}

func (s *Sink) flushOut() error {
	if s.broken {
		return nil
	}
	if err := s.out.Flush(); err != nil {
		return s.writeErr(err)
	}
	return nil
}

// Flush writes out what is buffered.
func (s *Sink) Flush(ctx context.Context) error { return s.flushOut() }

// Close ends the JSON array (json format) and flushes.
func (s *Sink) Close() error {
	if s.out == nil {
		return nil
	}
	if s.format == "json" {
		if s.opened {
			s.buf = append(s.buf[:0], "\n]\n"...)
		} else {
			s.buf = append(s.buf[:0], "[]\n"...)
		}
		if err := s.emit(); err != nil {
			return err
		}
	}
	err := s.flushOut()
	s.out = nil
	return err
}

var _ connector.Sink = (*Sink)(nil)
