package s3

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

const (
	testKeyID  = "AKIAFAUCETTEST"
	testSecret = "s3cr3t-SECRET-value-do-not-print"
	testToken  = "session-TOKEN-value-do-not-print"
)

// fakeS3 is gofakes3 (a real S3 protocol server over an in-memory store)
// in an httptest server. In front of it: a check of the access key id of
// each request's SigV4 Authorization header (gofakes3 accepts any), so
// wrong credentials are refused as S3 refuses them, a request counter, and
// an optional fault for PUTs.
type fakeS3 struct {
	url     string
	mem     *s3mem.Backend
	lists   atomic.Int64 // ListObjectsV2 requests
	parts   atomic.Int64 // UploadPart requests
	mu      sync.Mutex
	failPut func(key string) bool // when set and true, a PUT of key gets a 503
}

var credRe = regexp.MustCompile(`Credential=([^/]+)/`)

func newFakeS3(t testing.TB, buckets ...string) *fakeS3 {
	t.Helper()
	f := &fakeS3{mem: s3mem.New()}
	for _, b := range buckets {
		if err := f.mem.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	inner := gofakes3.New(f.mem, gofakes3.WithAutoBucket(false), gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := credRe.FindStringSubmatch(r.Header.Get("Authorization")); m == nil || m[1] != testKeyID {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
			return
		}
		q := r.URL.Query()
		if r.Method == http.MethodGet && q.Get("list-type") == "2" {
			f.lists.Add(1)
		}
		if r.Method == http.MethodPut && q.Get("uploadId") != "" {
			f.parts.Add(1)
		}
		if r.Method == http.MethodPut {
			f.mu.Lock()
			fail := f.failPut != nil && f.failPut(r.URL.Path)
			f.mu.Unlock()
			if fail {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>`)
				return
			}
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

func (f *fakeS3) setFailPut(fn func(path string) bool) {
	f.mu.Lock()
	f.failPut = fn
	f.mu.Unlock()
}

// put stores an object directly in the backend (test setup).
func (f *fakeS3) put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	if _, err := f.mem.PutObject(bucket, key, nil, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

// get reads an object directly from the backend.
func (f *fakeS3) get(t testing.TB, bucket, key string) []byte {
	t.Helper()
	o, err := f.mem.GetObject(bucket, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Contents.Close()
	b, err := io.ReadAll(o.Contents)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keys lists the keys under prefix, sorted.
func (f *fakeS3) keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	list, err := f.mem.ListBucket(bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list.Contents {
		out = append(out, c.Key)
	}
	sort.Strings(out)
	return out
}

// cfg is a config for the fake server plus kv.
func (f *fakeS3) cfg(t testing.TB, bucket string, kv ...any) connector.Config {
	t.Helper()
	fields := []connector.KeyValue{
		{Key: "bucket", Value: bucket},
		{Key: "endpoint_url", Value: f.url},
		{Key: "force_path_style", Value: true},
		{Key: "region", Value: "us-east-1"},
		{Key: "access_key_id", Value: testKeyID},
		{Key: "secret_access_key", Value: testSecret},
	}
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		replaced := false
		for j := range fields {
			if fields[j].Key == k {
				fields[j].Value, replaced = kv[i+1], true
			}
		}
		if !replaced {
			fields = append(fields, connector.KeyValue{Key: k, Value: kv[i+1]})
		}
	}
	v, err := connector.FromAny(fields)
	if err != nil {
		t.Fatal(err)
	}
	return connector.Config{Path: "pipeline.source.config", Value: v}
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readAll opens a source on c (restricted to shard when not nil) and
// returns its records as compact JSON, in order.
func readAll(t testing.TB, c connector.Config, sh *connector.ShardSpec) []string {
	t.Helper()
	out, err := tryReadAll(c, sh)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tryReadAll(c connector.Config, sh *connector.ShardSpec) ([]string, error) {
	src, err := newSource(c)
	if err != nil {
		return nil, err
	}
	if sh != nil {
		if err := src.(*Source).ApplyShard(*sh); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
		return nil, err
	}
	defer src.Close()
	var out []string
	for {
		p, err := connectortest.NextPage(ctx, src)
		if errors.Is(err, io.EOF) {
			return out, src.Close()
		}
		if err != nil {
			return nil, err
		}
		if len(p.Failed) > 0 {
			return nil, errors.New(p.Failed[0].Error())
		}
		for _, r := range p.Records {
			out = append(out, string(connector.AppendRecordJSON(nil, r)))
		}
		p.Done()
	}
}

func lines(data []byte) int {
	return strings.Count(strings.TrimRight(string(data), "\n"), "\n") + 1
}
