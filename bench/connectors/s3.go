package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// fakeS3 is gofakes3 over an in-memory store, served on a loopback port
// by this process (so its CPU and memory are not faucet's).
type fakeS3 struct {
	url string
	mem *s3mem.Backend
	srv *http.Server
}

func startS3() (*fakeS3, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &fakeS3{mem: s3mem.New(), url: "http://" + ln.Addr().String()}
	f.srv = &http.Server{Handler: gofakes3.New(f.mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()}
	go f.srv.Serve(ln)
	return f, nil
}

// s3Conn is the connection part of an s3 source or sink config.
func (f *fakeS3) conn(bucket string) string {
	return fmt.Sprintf(`bucket: %s, endpoint_url: %q, force_path_style: true, region: us-east-1, access_key_id: AKIABENCH, secret_access_key: bench-secret`, bucket, f.url)
}

// reset empties and recreates bucket, so each run starts from nothing and
// the in-memory store does not grow over the runs.
func (f *fakeS3) reset(bucket string) error {
	if ok, _ := f.mem.BucketExists(bucket); ok {
		if err := f.emptyBucket(bucket); err != nil {
			return err
		}
		if err := f.mem.DeleteBucket(bucket); err != nil {
			return err
		}
	}
	return f.mem.CreateBucket(bucket)
}

func (f *fakeS3) emptyBucket(bucket string) error {
	res, err := f.mem.ListBucket(bucket, &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil {
		return err
	}
	for _, o := range res.Contents {
		if _, err := f.mem.DeleteObject(bucket, o.Key); err != nil {
			return err
		}
	}
	return nil
}

// countLines counts the lines of every object in bucket (all JSON Lines,
// uncompressed) and how many objects there are.
func (f *fakeS3) countLines(bucket string) (lines int64, objects int, err error) {
	res, err := f.mem.ListBucket(bucket, &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil {
		return 0, 0, err
	}
	for _, o := range res.Contents {
		obj, err := f.mem.GetObject(bucket, o.Key, nil)
		if err != nil {
			return 0, 0, err
		}
		n, err := countNewlines(obj.Contents)
		obj.Contents.Close()
		if err != nil {
			return 0, 0, err
		}
		lines += n
		objects++
	}
	return lines, objects, nil
}

func countNewlines(r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, err := br.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// putFile stores a local file as one object.
func (f *fakeS3) putFile(bucket, key, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, err = f.mem.PutObject(bucket, key, map[string]string{}, bytes.NewReader(b), int64(len(b)), nil)
	return err
}
