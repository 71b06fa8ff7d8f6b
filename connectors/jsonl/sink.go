package jsonl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// SinkConfig is the `config:` of a jsonl sink.
type SinkConfig struct {
	Path        string `json:"path" required:"true" doc:"File to write, one JSON object per line; parent directories are created."`
	Append      bool   `json:"append" default:"false" doc:"Append to an existing file instead of truncating it."`
	Compression string `json:"compression" default:"auto" enum:"auto,none,gzip" doc:"Output compression; auto means gzip for a .gz file name."`
	BatchSize   int    `json:"batch_size" doc:"Accepted for compatibility with faucet-cli 1.x; has no effect."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	return nil
}

// Sink writes JSON Lines. It implements connector.PageEncoder.
type Sink struct {
	cfg     SinkConfig
	w       *fileio.Writer
	keys    atomic.Pointer[keyCache]
	scratch []byte
}

// keyCache holds `"key":` pre-quoted for the keys of the first record, by
// position: records of one stream usually repeat the same keys in the same
// order (and, from a decoder, the very same strings).
type keyCache struct {
	keys   []string
	quoted [][]byte
}

func newKeyCache(r connector.Record) *keyCache {
	kc := &keyCache{keys: make([]string, len(r.Fields)), quoted: make([][]byte, len(r.Fields))}
	for i, f := range r.Fields {
		// Not cloned: the very same string in later records compares
		// equal by pointer, without reading the bytes.
		kc.keys[i] = strings.Clone(f.Key) // outlives the page
		kc.quoted[i] = append(connector.AppendJSONString(nil, f.Key), ':')
	}
	return kc
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// Open creates (or opens for appending) the output file.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	w, err := fileio.Create(s.cfg.Path, s.cfg.Append, s.cfg.Compression)
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	s.w = w
	return nil
}

// EncodePage appends one line per record to dst.
func (s *Sink) EncodePage(p *connector.Page, dst []byte) ([]byte, error) {
	kc := s.keys.Load()
	if kc == nil && len(p.Records) > 0 {
		s.keys.CompareAndSwap(nil, newKeyCache(p.Records[0]))
		kc = s.keys.Load()
	}
	for ri := range p.Records {
		dst = appendRecord(dst, p.Records[ri].Fields, kc)
		dst = append(dst, '\n')
	}
	return dst, nil
}

// AppendRecord appends r as one compact JSON object, the same bytes as
// connector.AppendRecordJSON, using kc for the keys when they match.
func appendRecord(dst []byte, fields []connector.Field, kc *keyCache) []byte {
	dst = append(dst, '{')
	for i := range fields {
		f := &fields[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		if i < len(kc.keys) && kc.keys[i] == f.Key {
			dst = append(dst, kc.quoted[i]...)
		} else {
			dst = connector.AppendJSONString(dst, f.Key)
			dst = append(dst, ':')
		}
		if f.Value.Kind() == connector.KindString { // the common case, without copying the Value
			dst = connector.AppendJSONString(dst, f.Value.AsString())
		} else {
			dst = appendValue(dst, f.Value)
		}
	}
	return append(dst, '}')
}

func appendValue(dst []byte, v connector.Value) []byte {
	switch v.Kind() {
	case connector.KindString:
		return connector.AppendJSONString(dst, v.AsString())
	case connector.KindInt:
		return strconv.AppendInt(dst, v.AsInt(), 10)
	case connector.KindFloat:
		if t, ok := v.ExactNumber(); ok {
			return append(dst, t...)
		}
		return connector.AppendJSONFloat(dst, v.AsFloat())
	case connector.KindArray:
		dst = append(dst, '[')
		for i, e := range v.AsArray() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e)
		}
		return append(dst, ']')
	case connector.KindObject:
		return appendRecord(dst, v.AsObject().Fields, &keyCache{})
	}
	return connector.AppendJSON(dst, v)
}

// WriteEncoded writes the bytes of a page.
func (s *Sink) WriteEncoded(ctx context.Context, p *connector.Page, data []byte) error {
	if _, err := s.w.Write(data); err != nil {
		return fmt.Errorf("jsonl: write %s: %w", s.cfg.Path, err)
	}
	return nil
}

// WritesEncodedOnly: WriteEncoded reads the bytes, not the records.
func (s *Sink) WritesEncodedOnly() {}

// Write encodes and writes a page (the path without PageEncoder).
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	buf, err := s.EncodePage(p, s.scratch[:0])
	s.scratch = buf[:0]
	if err != nil {
		return err
	}
	return s.WriteEncoded(ctx, p, buf)
}

// Flush makes everything written so far durable: it ends the gzip member,
// writes the buffer out and fsyncs.
func (s *Sink) Flush(ctx context.Context) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("jsonl: flush %s: %w", s.cfg.Path, err)
	}
	return nil
}

// FlushBuffers is Flush without the fsync (connector.DurableFlusher).
func (s *Sink) FlushBuffers(context.Context) error {
	if err := s.w.FlushBuffers(); err != nil {
		return fmt.Errorf("jsonl: flush %s: %w", s.cfg.Path, err)
	}
	return nil
}

// Close closes the file.
func (s *Sink) Close() error {
	if s.w == nil {
		return nil
	}
	err := s.w.Close()
	s.w = nil
	if err != nil {
		return fmt.Errorf("jsonl: close %s: %w", s.cfg.Path, err)
	}
	return nil
}

var (
	_ connector.Sink              = (*Sink)(nil)
	_ connector.EncodedOnlyWriter = (*Sink)(nil)
	_ connector.DurableFlusher    = (*Sink)(nil)
)
