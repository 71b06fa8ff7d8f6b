package s3

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/klauspost/compress/zstd"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/csv"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
	"github.com/faucet-hq/faucet/connectors/json"
	"github.com/faucet-hq/faucet/connectors/jsonl"
	_ "github.com/faucet-hq/faucet/connectors/parquet" // the parquet decoder, through the registry
)

// SourceConfig is the `config:` of an s3 source.
type SourceConfig struct {
	Bucket      string `json:"bucket" required:"true" doc:"Bucket to read from."`
	Prefix      string `json:"prefix" doc:"Read the objects whose key starts with this (e.g. logs/2024/). Default: the whole bucket."`
	Glob        string `json:"glob" doc:"Read only the keys matching this pattern, as Go's path.Match (* and ? do not cross /), e.g. logs/*/part-*.jsonl.gz."`
	Format      string `json:"format" default:"auto" enum:"auto,jsonl,csv,json,parquet" doc:"Object format; auto goes by each key's extension (.jsonl/.ndjson, .csv, .json, .parquet, before .gz/.zst), which must agree."`
	FileFormat  string `json:"file_format" enum:"json_lines,json_array,parquet" doc:"faucet-cli 1.x spelling of format (json_lines = jsonl, json_array = json). Use format instead."`
	Compression string `json:"compression" default:"auto" enum:"auto,none,gzip,zstd" doc:"Object compression; auto goes by the .gz / .zst suffix of each key."`
	BatchSize   int    `json:"batch_size" default:"1000" doc:"Records per page (json needs at least 1; 0 cuts jsonl/csv pages at the read size and parquet pages at row groups)."`
	MaxObjects  int    `json:"max_objects" doc:"Read at most this many objects (the first ones in key order); 0 means all."`
	ListMaxKeys int    `json:"list_max_keys" default:"1000" doc:"Keys asked for per ListObjectsV2 request (1..1000)."`
	HasHeaders  bool   `json:"has_headers" default:"true" doc:"csv: the first row of each object names the columns."`
	// Delimiter is the csv field separator.
	Delimiter   connector.Byte `json:"delimiter" default:"," doc:"csv: field separator."`
	RecordsPath string         `json:"records_path" doc:"json: where the records are in each object (dotted path); default the top-level array."`
	Concurrency int            `json:"concurrency" doc:"Accepted for compatibility with faucet-cli 1.x; objects are streamed one after the other."`

	Access
}

func (c *SourceConfig) conn() connection { return connection{c.Bucket, c.Access} }

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if err := c.conn().validate(); err != nil {
		return err
	}
	if c.FileFormat != "" {
		if c.Format != formatAuto {
			return connector.ConfigErrorf("file_format", "give either format or file_format, not both")
		}
		c.Format = map[string]string{"json_lines": formatJSONL, "json_array": formatJSON, "parquet": formatParquet}[c.FileFormat]
	}
	if c.Glob != "" {
		if _, err := path.Match(c.Glob, ""); err != nil {
			return connector.ConfigErrorf("glob", "bad pattern %q: %v", c.Glob, err)
		}
	}
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	if c.MaxObjects < 0 {
		return connector.ConfigErrorf("max_objects", "must not be negative, got %d", c.MaxObjects)
	}
	if c.ListMaxKeys < 1 || c.ListMaxKeys > 1000 {
		return connector.ConfigErrorf("list_max_keys", "must be between 1 and 1000, got %d", c.ListMaxKeys)
	}
	return nil
}

// Source streams the records of the listed objects, one object after the
// other in key order.
type Source struct {
	cfg     SourceConfig
	cfgPath string
	conn    connection
	lst     listing
	shard   *keyshard.Shard

	cl      *s3.Client
	ctx     context.Context // object reads; cancelled by Close
	cancel  context.CancelFunc
	objects []object
	format  string
	inner   connector.Source // the format's decoder over the objects
	next    int              // parquet: index of the next object to fetch
	tmp     string           // parquet: local copy of the current object
	tmpKey  string
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{cfgPath: c.Path}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.conn = s.cfg.conn()
	s.lst = listing{prefix: s.cfg.Prefix, glob: s.cfg.Glob, maxKeys: int32(s.cfg.ListMaxKeys), max: s.cfg.MaxObjects}
	return s, nil
}

// Open lists the objects and opens the first, so a missing bucket,
// rejected credentials or an undecodable first object fail before any
// output exists.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cl, err := s.conn.client(ctx)
	if err != nil {
		return err
	}
	s.cl = cl
	objects, err := s.lst.list(ctx, cl, s.conn)
	if err != nil {
		return err
	}
	if s.shard != nil {
		objects = keyshard.Filter(s.shard, objects, func(o object) string { return o.key })
	} else if len(objects) == 0 {
		return fmt.Errorf("s3: no object in %s", s.lst.what(s.conn))
	}
	s.objects = objects
	if len(objects) == 0 {
		return nil // a shard that owns no object
	}
	if s.format, err = s.resolveFormat(); err != nil {
		return err
	}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if s.format == formatParquet {
		return s.openParquet(ctx)
	}
	names := make([]string, len(objects))
	for i, o := range objects {
		names[i] = s.conn.url(o.key)
	}
	in := &fileio.Inputs{Names: names, OpenFunc: s.openObject}
	inner, err := s.newInner(in)
	if err != nil {
		return err
	}
	if err := inner.Open(ctx, connector.SourceOptions{Logger: opts.Logger}); err != nil {
		return err
	}
	s.inner = inner
	return nil
}

// resolveFormat is the configured format, or the one every object's
// extension names.
func (s *Source) resolveFormat() (string, error) {
	if s.cfg.Format != formatAuto {
		return s.cfg.Format, nil
	}
	first := ""
	for _, o := range s.objects {
		f := formatOf(o.key)
		if f == "" {
			return "", fmt.Errorf("s3: cannot tell the format of %s from its extension: set format", s.conn.url(o.key))
		}
		if first == "" {
			first = f
		} else if f != first {
			return "", fmt.Errorf("s3: %s is %s but %s is %s: narrow prefix/glob or set format", s.conn.url(s.objects[0].key), first, s.conn.url(o.key), f)
		}
	}
	return first, nil
}

// newInner is the jsonl, csv or json decoder reading the objects of in.
func (s *Source) newInner(in *fileio.Inputs) (connector.Source, error) {
	kv := []connector.KeyValue{
		{Key: "path", Value: s.lst.what(s.conn)},
		{Key: "batch_size", Value: s.cfg.BatchSize},
		{Key: "compression", Value: compNone}, // openObject decompresses
	}
	switch s.format {
	case formatCSV:
		kv = append(kv, connector.KeyValue{Key: "has_headers", Value: s.cfg.HasHeaders},
			connector.KeyValue{Key: "delimiter", Value: int(s.cfg.Delimiter)})
	case formatJSON:
		if s.cfg.RecordsPath != "" {
			kv = append(kv, connector.KeyValue{Key: "records_path", Value: s.cfg.RecordsPath})
		}
	}
	v, err := connector.FromAny(kv)
	if err != nil {
		return nil, err
	}
	c := connector.Config{Path: s.cfgPath, Value: v}
	switch s.format {
	case formatCSV:
		return csv.NewSourceFrom(c, in)
	case formatJSON:
		return json.NewSourceFrom(c, in)
	}
	return jsonl.NewSourceFrom(c, in)
}

// openObject streams one object (named by its s3:// URL), decompressed.
func (s *Source) openObject(name string) (io.ReadCloser, error) {
	key := strings.TrimPrefix(name, s.conn.url(""))
	out, err := s.cl.GetObject(s.ctx, &s3.GetObjectInput{Bucket: aws.String(s.conn.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, describe(err, "get "+name, s.conn.bucket)
	}
	switch compressionOf(key, s.cfg.Compression) {
	case compGzip:
		zr, err := gzip.NewReader(out.Body)
		if err != nil {
			out.Body.Close()
			return nil, fmt.Errorf("s3: %s: %w", name, err)
		}
		return readCloser{zr, func() error { return errors.Join(zr.Close(), out.Body.Close()) }}, nil
	case compZstd:
		zr, err := zstd.NewReader(out.Body, zstd.WithDecoderConcurrency(1))
		if err != nil {
			out.Body.Close()
			return nil, fmt.Errorf("s3: %s: %w", name, err)
		}
		return readCloser{zr, func() error { zr.Close(); return out.Body.Close() }}, nil
	}
	return out.Body, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// openParquet fetches the next object to a temporary file (Parquet needs
// random access to its footer) and opens the parquet decoder on it.
func (s *Source) openParquet(ctx context.Context) error {
	o := s.objects[s.next]
	s.next++
	name := s.conn.url(o.key)
	body, err := s.openObject(name)
	if err != nil {
		return err
	}
	defer body.Close()
	f, err := os.CreateTemp("", "faucet-s3-*.parquet")
	if err != nil {
		return fmt.Errorf("s3: %s: %w", name, err)
	}
	s.tmp, s.tmpKey = f.Name(), o.key
	_, err = io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("s3: fetch %s: %w", name, err)
	}
	spec, err := connector.Default.Source(formatParquet)
	if err != nil {
		return err
	}
	v, err := connector.FromAny([]connector.KeyValue{{Key: "path", Value: s.tmp}, {Key: "batch_size", Value: s.cfg.BatchSize}})
	if err != nil {
		return err
	}
	inner, err := spec.New(connector.Config{Path: s.cfgPath, Value: v})
	if err != nil {
		return err
	}
	if err := inner.Open(ctx, connector.SourceOptions{}); err != nil {
		inner.Close()
		return fmt.Errorf("s3: %s: %w", name, err)
	}
	s.inner = inner
	return nil
}

// Next returns the next page, moving on to the next object at the end of
// one (parquet) or leaving that to the format's decoder (the others).
func (s *Source) Next(ctx context.Context) (*connector.Page, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.inner == nil {
			if s.format != formatParquet || s.next >= len(s.objects) {
				return nil, io.EOF
			}
			if err := s.openParquet(ctx); err != nil {
				return nil, err
			}
		}
		p, err := s.inner.Next(ctx)
		if errors.Is(err, io.EOF) && s.format == formatParquet {
			if err := s.closeInner(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && s.format == formatParquet && !errors.Is(err, io.EOF) && ctx.Err() == nil {
			return nil, fmt.Errorf("s3: %s: %w", s.conn.url(s.tmpKey), err)
		}
		return p, err
	}
}

func (s *Source) closeInner() error {
	var err error
	if s.inner != nil {
		err = s.inner.Close()
		s.inner = nil
	}
	if s.tmp != "" {
		if rerr := os.Remove(s.tmp); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
		s.tmp = ""
	}
	return err
}

// Close closes the current object and drops any temporary copy.
func (s *Source) Close() error {
	err := s.closeInner()
	if s.cancel != nil {
		s.cancel()
	}
	return err
}

var _ connector.Source = (*Source)(nil)
