// Package json is the `json` source: records from a JSON document, either
// the elements of an array (the top-level one, or one found at
// records_path) streamed with bounded memory, or a single object.
package json

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "json",
		Summary: "Read records from JSON files: the elements of an array (optionally at records_path) or a single object.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
}

// SourceConfig is the `config:` of a json source.
type SourceConfig struct {
	Path        string `json:"path" required:"true" doc:"JSON file to read, or a glob (files are read in sorted order)."`
	RecordsPath string `json:"records_path" doc:"Where the records are: a dotted path (data.items) or $.data.items[*]. Default: the top-level array, or a top-level object as one record."`
	Compression string `json:"compression" default:"auto" enum:"auto,none,gzip" doc:"Input compression; auto means gzip for a .gz file name."`
	BatchSize   int    `json:"batch_size" default:"1000" doc:"Records per page."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	if c.BatchSize < 1 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 1 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	if _, err := parseRecordsPath(c.RecordsPath); err != nil {
		return connector.ConfigErrorf("records_path", "%v", err)
	}
	return nil
}

// parseRecordsPath accepts "a.b", "$.a.b", "$.a.b[*]" and "$" / "".
func parseRecordsPath(p string) ([]string, error) {
	p = strings.TrimSpace(p)
	p = strings.TrimSuffix(p, "[*]")
	p = strings.TrimPrefix(p, "$")
	p = strings.TrimPrefix(p, ".")
	if p == "" {
		return nil, nil
	}
	segs := strings.Split(p, ".")
	for _, s := range segs {
		if s == "" || strings.ContainsAny(s, "[]*") {
			return nil, fmt.Errorf("unsupported path %q: use dotted keys, optionally as $.a.b[*]", p)
		}
	}
	return segs, nil
}

// Source streams the records of one JSON file after another.
type Source struct {
	cfg             SourceConfig
	fileio.Sharding // the input files, and the shard of them to read (cluster mode B)
	path            []string
	files           []string
	next            int

	cur     *fileio.Reader
	name    string
	dec     *json.Decoder
	inArray bool // streaming the elements of the records array
	single  *connector.Value
	index   int   // array element index, for error locations
	rowBase int64 // records (elements) in the files already read
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.Sharding = fileio.Sharding{Connector: "json", Pattern: s.cfg.Path}
	s.path, _ = parseRecordsPath(s.cfg.RecordsPath)
	return s, nil
}

// Open finds the input files and positions the reader at the first file's
// records, so a missing file or records_path fails early.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	files, err := s.Files()
	if err != nil {
		return err
	}
	s.files = files
	return s.openNext()
}

func (s *Source) openNext() error {
	name := s.files[s.next]
	s.next++
	r, err := s.In.Open(name, s.cfg.Compression)
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	s.cur, s.name, s.index, s.single, s.inArray = r, name, 0, nil, false
	s.dec = json.NewDecoder(bufio.NewReaderSize(r, 256<<10))
	s.dec.UseNumber()
	if err := s.seek(); err != nil {
		r.Close()
		s.cur = nil
		return err
	}
	return nil
}

// seek walks to the records: into the array to stream, or reads the single
// object.
func (s *Source) seek() error {
	for depth, key := range s.path {
		tok, err := s.dec.Token()
		if err != nil {
			return s.syntax(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return fmt.Errorf("json: %s: records_path %q: %s is not an object", s.name, s.cfg.RecordsPath, s.where(depth))
		}
		found := false
		for s.dec.More() {
			kt, err := s.dec.Token()
			if err != nil {
				return s.syntax(err)
			}
			if kt.(string) == key {
				found = true
				break
			}
			var skip json.RawMessage
			if err := s.dec.Decode(&skip); err != nil {
				return s.syntax(err)
			}
		}
		if !found {
			return fmt.Errorf("json: %s: records_path %q: key %q not found", s.name, s.cfg.RecordsPath, strings.Join(s.path[:depth+1], "."))
		}
	}
	// Peek at the value: an array is streamed, an object is one record.
	tok, err := s.dec.Token()
	if err == io.EOF && len(s.path) == 0 {
		return nil // empty file: no records
	}
	if err != nil {
		return s.syntax(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			s.inArray = true
			return nil
		}
		if t == '{' {
			// Re-read the object whole: collect its members.
			obj, err := s.readObjectRest()
			if err != nil {
				return err
			}
			s.single = &obj
			return s.finish()
		}
	}
	return fmt.Errorf("json: %s: %s holds a %s, want an array of objects or an object", s.name, s.where(len(s.path)), tokenKind(tok))
}

// finish reads the rest of the document after the records (the members
// that follow records_path in its enclosing objects) so that a syntax error
// or a second top-level value is reported, not silently ignored.
func (s *Source) finish() error {
	for range s.path {
		for s.dec.More() {
			if _, err := s.dec.Token(); err != nil { // key
				return s.syntax(err)
			}
			var skip json.RawMessage
			if err := s.dec.Decode(&skip); err != nil {
				return s.syntax(err)
			}
		}
		if _, err := s.dec.Token(); err != nil { // '}'
			return s.syntax(err)
		}
	}
	if _, err := s.dec.Token(); err != io.EOF {
		if err != nil {
			return s.syntax(err)
		}
		return fmt.Errorf("json: %s: unexpected data after the top-level value", s.name)
	}
	return nil
}

// readObjectRest reads the members of an object whose '{' was consumed.
func (s *Source) readObjectRest() (connector.Value, error) {
	var rec connector.Record
	for s.dec.More() {
		kt, err := s.dec.Token()
		if err != nil {
			return connector.Value{}, s.syntax(err)
		}
		var raw json.RawMessage
		if err := s.dec.Decode(&raw); err != nil {
			return connector.Value{}, s.syntax(err)
		}
		v, err := connector.ParseJSONZeroCopy(raw)
		if err != nil {
			return connector.Value{}, s.syntax(err)
		}
		rec.Set(kt.(string), v) // a repeated key keeps its first position, last value
	}
	if _, err := s.dec.Token(); err != nil { // '}'
		return connector.Value{}, s.syntax(err)
	}
	return connector.Object(rec), nil
}

func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	}
	return "value"
}

// jsonPath names the records array for locations: $ or $.a.b.
func (s *Source) jsonPath() string {
	if len(s.path) == 0 {
		return "$"
	}
	return "$." + strings.Join(s.path, ".")
}

func (s *Source) where(depth int) string {
	if depth == 0 {
		return "the top-level value"
	}
	return "$." + strings.Join(s.path[:depth], ".")
}

func (s *Source) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("json: %s: invalid JSON near byte %d: %s", s.name, se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("json: %s: unexpected end of input", s.name)
	}
	return fmt.Errorf("json: %s: %w", s.name, err)
}

// Next returns up to batch_size records.
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
		p := &connector.Page{}
		var elems []int // element index of each record, for Locate
		if s.single != nil {
			p.Records = append(p.Records, s.single.AsObject())
			elems = append(elems, -1)
			s.single = nil
		}
		for s.inArray && len(p.Records)+len(p.Failed) < s.cfg.BatchSize {
			if !s.dec.More() {
				if _, err := s.dec.Token(); err != nil { // ']'
					return nil, s.syntax(err)
				}
				s.inArray = false
				if err := s.finish(); err != nil {
					return nil, err
				}
				break
			}
			var raw json.RawMessage
			if err := s.dec.Decode(&raw); err != nil {
				return nil, s.syntax(err)
			}
			idx := s.index
			s.index++
			v, err := connector.ParseJSONZeroCopy(raw)
			if err == nil && v.Kind() != connector.KindObject {
				err = fmt.Errorf("element is a JSON %s, not an object", v.Kind())
			}
			if err != nil {
				p.Failed = append(p.Failed, connector.RecordError{
					Stage: connector.StageSource, Component: "json", RowID: s.rowBase + int64(idx) + 1,
					Location: s.name + ":" + s.jsonPath() + "[" + strconv.Itoa(idx) + "]",
					Raw:      string(raw), Err: err,
				})
				continue
			}
			p.Records = append(p.Records, v.AsObject())
			elems = append(elems, idx)
		}
		name, where, base := s.name, s.jsonPath(), s.rowBase
		p.Locate = func(i int) (string, int64) {
			if i < 0 || i >= len(elems) {
				return "", 0
			}
			if elems[i] < 0 {
				return name + ":" + where, base + 1
			}
			return name + ":" + where + "[" + strconv.Itoa(elems[i]) + "]", base + int64(elems[i]) + 1
		}
		if !s.inArray && s.single == nil {
			s.rowBase += int64(max(s.index, len(elems)))
			err := s.cur.Close()
			s.cur = nil
			if err != nil {
				return nil, fmt.Errorf("json: %w", err)
			}
		}
		if len(p.Records)+len(p.Failed) > 0 {
			return p, nil
		}
	}
}

// Close closes the open file, if any.
func (s *Source) Close() error {
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur = nil
	return err
}

var _ connector.Source = (*Source)(nil)

// The embedded fileio.Sharding splits the input files for cluster mode B.
var _ connector.Sharder = (*Source)(nil)
