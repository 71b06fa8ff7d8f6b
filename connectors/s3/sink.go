package s3

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/faucet-hq/faucet/connector"
	_ "github.com/faucet-hq/faucet/connectors/csv"     // the csv encoder, through the registry
	_ "github.com/faucet-hq/faucet/connectors/jsonl"   // the jsonl encoder, through the registry
	_ "github.com/faucet-hq/faucet/connectors/parquet" // the parquet encoder, through the registry
)

// SinkConfig is the `config:` of an s3 sink.
type SinkConfig struct {
	Bucket            string         `json:"bucket" required:"true" doc:"Bucket to write to."`
	Prefix            string         `json:"prefix" doc:"Put before every object key, as is (end it with / for a folder), e.g. exports/orders/."`
	KeyTemplate       string         `json:"key_template" default:"{run_id}-{seq}{ext}" doc:"Object key after prefix; {run_id}, {seq} (6 digits, from 000000 in each run) and {ext} are replaced. Must contain {seq}."`
	RunID             string         `json:"run_id" doc:"The {run_id} of the object keys; default the run's start time and a random suffix (20240101T000000Z-a1b2c3). Set it (e.g. to a partition id) to make reruns overwrite their objects."`
	Format            string         `json:"format" default:"jsonl" enum:"jsonl,json_lines,csv,json,parquet" doc:"Object format (json_lines is faucet-cli 1.x's name of jsonl; json writes one JSON array per object)."`
	Compression       string         `json:"compression" default:"auto" enum:"auto,none,gzip" doc:"gzip for jsonl, csv and json objects (parquet compresses inside); auto means gzip when file_extension ends in .gz."`
	FileExtension     string         `json:"file_extension" doc:"The {ext} of the keys; default from format and compression (.jsonl, .csv.gz, .parquet...)."`
	MaxRecordsPerFile int            `json:"max_records_per_file" doc:"Start a new object after this many records; 0 means one object per flush."`
	PartSizeMB        int            `json:"part_size_mb" default:"8" doc:"Objects larger than this many MiB are uploaded in parts of this size (multipart upload, at least 5)."`
	Concurrency       int            `json:"concurrency" default:"4" doc:"Parts of one object uploaded at once."`
	Delimiter         connector.Byte `json:"delimiter" default:"," doc:"csv: field separator."`
	WriteHeaders      bool           `json:"write_headers" default:"true" doc:"csv: write a header row at the top of each object."`
	BatchSize         int            `json:"batch_size" doc:"Accepted for compatibility with faucet-cli 1.x; use max_records_per_file."`

	Access
}

func (c *SinkConfig) conn() connection { return connection{c.Bucket, c.Access} }

// Validate checks the rules the struct tags cannot express and resolves
// format, compression and extension.
func (c *SinkConfig) Validate() error {
	if err := c.conn().validate(); err != nil {
		return err
	}
	if c.Format == "json_lines" {
		c.Format = formatJSONL
	}
	if c.Compression == compAuto {
		c.Compression = compNone
		if strings.HasSuffix(c.FileExtension, ".gz") {
			c.Compression = compGzip
		}
	}
	if c.Format == formatParquet && c.Compression == compGzip {
		return connector.ConfigErrorf("compression", "gzip applies to jsonl, csv and json objects; parquet objects are compressed inside (snappy)")
	}
	if c.FileExtension == "" {
		c.FileExtension = "." + c.Format
		if c.Compression == compGzip {
			c.FileExtension += ".gz"
		}
	}
	if !strings.Contains(c.KeyTemplate, "{seq}") {
		return connector.ConfigErrorf("key_template", "must contain {seq}, or the objects of one run would overwrite each other")
	}
	if c.MaxRecordsPerFile < 0 {
		return connector.ConfigErrorf("max_records_per_file", "must not be negative, got %d", c.MaxRecordsPerFile)
	}
	if c.PartSizeMB < 5 || c.PartSizeMB > 5120 {
		return connector.ConfigErrorf("part_size_mb", "must be between 5 and 5120 (S3's part size limits), got %d", c.PartSizeMB)
	}
	if c.Concurrency < 1 {
		return connector.ConfigErrorf("concurrency", "must be at least 1, got %d", c.Concurrency)
	}
	return nil
}

// Sink writes records into objects. Each object is first encoded into a
// local temporary file by the format's file encoder, then uploaded whole
// (multipart above part_size_mb), so an object becomes visible only when
// it is complete. See the package documentation for when objects are cut
// and how they are named.
type Sink struct {
	cfg     SinkConfig
	cfgPath string
	conn    connection
	opts    connector.SinkOptions

	up      *manager.Uploader
	runID   string
	dir     string  // local staging directory
	seq     int     // number of the next object
	cur     *part   // the object being written, nil between objects
	pending []*part // complete objects, in order, not uploaded yet
}

// part is one object: encoded locally at path, uploaded to key.
type part struct {
	key, path string
	enc       connector.Sink
	records   int
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{cfgPath: c.Path}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.conn = s.cfg.conn()
	return s, nil
}

// Open builds the client and the staging directory; it does not touch
// the bucket (Check does).
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cl, err := s.conn.client(ctx)
	if err != nil {
		return err
	}
	s.up = manager.NewUploader(cl, func(u *manager.Uploader) {
		u.PartSize = int64(s.cfg.PartSizeMB) << 20
		u.Concurrency = s.cfg.Concurrency
	})
	s.runID = s.cfg.RunID
	if s.runID == "" {
		var b [3]byte
		_, _ = rand.Read(b[:])
		s.runID = time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
	}
	s.dir, err = os.MkdirTemp("", "faucet-s3-sink-")
	if err != nil {
		return fmt.Errorf("s3: staging directory: %w", err)
	}
	s.opts = opts
	return nil
}

// key is the object key of object number seq.
func (s *Sink) key(seq int) string {
	r := strings.NewReplacer("{run_id}", s.runID, "{seq}", fmt.Sprintf("%06d", seq), "{ext}", s.cfg.FileExtension)
	return s.cfg.Prefix + r.Replace(s.cfg.KeyTemplate)
}

// Write uploads the objects completed by earlier writes, then encodes the
// page's records locally, completing an object every
// max_records_per_file records. An upload failure fails the Write before
// the page is touched, so the engine's retry of it writes the page once.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if err := s.upload(ctx); err != nil {
		return err
	}
	recs := p.Records
	for len(recs) > 0 {
		if s.cur == nil {
			if err := s.start(ctx); err != nil {
				return err
			}
		}
		n := len(recs)
		if m := s.cfg.MaxRecordsPerFile; m > 0 && n > m-s.cur.records {
			n = m - s.cur.records
		}
		if err := s.cur.enc.Write(ctx, &connector.Page{Records: recs[:n]}); err != nil {
			return fmt.Errorf("s3: encode %s: %w", s.conn.url(s.cur.key), err)
		}
		s.cur.records += n
		recs = recs[n:]
		if m := s.cfg.MaxRecordsPerFile; m > 0 && s.cur.records >= m {
			if err := s.complete(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// start begins the next object with a fresh encoder.
func (s *Sink) start(ctx context.Context) error {
	seq := s.seq
	p := &part{key: s.key(seq), path: filepath.Join(s.dir, strconv.Itoa(seq)+s.cfg.FileExtension)}
	enc, err := s.encoder(p.path)
	if err != nil {
		return err
	}
	if err := enc.Open(ctx, s.opts); err != nil {
		return fmt.Errorf("s3: %s: %w", s.conn.url(p.key), err)
	}
	p.enc = enc
	s.seq++
	s.cur = p
	return nil
}

// encoder is the format's file sink writing to path.
func (s *Sink) encoder(path string) (connector.Sink, error) {
	if s.cfg.Format == formatJSON {
		return &arraySink{path: path, compression: s.cfg.Compression}, nil
	}
	kv := []connector.KeyValue{{Key: "path", Value: path}}
	switch s.cfg.Format {
	case formatJSONL:
		kv = append(kv, connector.KeyValue{Key: "compression", Value: s.cfg.Compression})
	case formatCSV:
		kv = append(kv, connector.KeyValue{Key: "compression", Value: s.cfg.Compression},
			connector.KeyValue{Key: "delimiter", Value: int(s.cfg.Delimiter)},
			connector.KeyValue{Key: "write_headers", Value: s.cfg.WriteHeaders})
	}
	v, err := connector.FromAny(kv)
	if err != nil {
		return nil, err
	}
	spec, err := connector.Default.Sink(s.cfg.Format)
	if err != nil {
		return nil, err
	}
	return spec.New(connector.Config{Path: s.cfgPath, Value: v})
}

// complete finishes the current object's file (a parquet footer, the end
// of a gzip stream or JSON array) and queues it for upload.
func (s *Sink) complete(ctx context.Context) error {
	p := s.cur
	if p == nil {
		return nil
	}
	s.cur = nil
	var err error
	if ow, ok := p.enc.(connector.Overwriter); ok && ow.Overwriting() {
		err = ow.CommitOverwrite(ctx) // parquet: writes the footer, renames into place
	} else {
		err = p.enc.Flush(ctx)
	}
	if cerr := p.enc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p.path)
		return fmt.Errorf("s3: finish %s: %w", s.conn.url(p.key), err)
	}
	p.enc = nil
	s.pending = append(s.pending, p)
	return nil
}

// upload puts the completed objects, in order. A failed upload stays
// queued under the same key, so trying again overwrites, never
// duplicates.
func (s *Sink) upload(ctx context.Context) error {
	for len(s.pending) > 0 {
		p := s.pending[0]
		f, err := os.Open(p.path)
		if err != nil {
			return fmt.Errorf("s3: upload %s: %w", s.conn.url(p.key), err)
		}
		_, err = s.up.Upload(ctx, &s3.PutObjectInput{
			Bucket:      aws.String(s.conn.bucket),
			Key:         aws.String(p.key),
			Body:        f,
			ContentType: aws.String(contentType(s.cfg.Format, s.cfg.Compression)),
		})
		f.Close()
		if err != nil {
			return describe(err, "put "+s.conn.url(p.key), s.conn.bucket)
		}
		os.Remove(p.path)
		s.pending = s.pending[1:]
	}
	return nil
}

func contentType(format, compression string) string {
	if compression == compGzip {
		return "application/gzip"
	}
	switch format {
	case formatCSV:
		return "text/csv"
	case formatJSON:
		return "application/json"
	case formatParquet:
		return "application/vnd.apache.parquet"
	}
	return "application/x-ndjson"
}

// Flush completes the current object and uploads every completed one:
// when it returns nil, all records written so far are in complete,
// visible objects. The next Write starts a new object.
func (s *Sink) Flush(ctx context.Context) error {
	if err := s.complete(ctx); err != nil {
		return err
	}
	return s.upload(ctx)
}

// Close drops what was not flushed (the object being written and any not
// uploaded) with the staging directory; nothing half-written is ever
// uploaded.
func (s *Sink) Close() error {
	var err error
	if s.cur != nil {
		err = s.cur.enc.Close()
		s.cur = nil
	}
	s.pending = nil
	if s.dir != "" {
		err = errors.Join(err, os.RemoveAll(s.dir))
		s.dir = ""
	}
	return err
}

var _ connector.Sink = (*Sink)(nil)
