package s3

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// object is one listed object.
type object struct {
	key  string
	size int64
}

// listing says which objects a source reads: those under prefix whose key
// matches glob (when set), in key order, at most max (0: all).
type listing struct {
	prefix  string
	glob    string
	maxKeys int32 // objects per ListObjectsV2 request
	max     int
}

// listPrefix is the prefix sent to S3: prefix, or the literal start of the
// glob when it is longer.
func (l listing) listPrefix() string {
	p := l.prefix
	if l.glob != "" {
		lit := l.glob
		if i := strings.IndexAny(lit, "*?[\\"); i >= 0 {
			lit = lit[:i]
		}
		if len(lit) > len(p) && strings.HasPrefix(lit, p) {
			p = lit
		}
	}
	return p
}

// match reports whether key is one of the listing's objects. A key ending
// in "/" (a folder marker) never is.
func (l listing) match(key string) bool {
	if strings.HasSuffix(key, "/") || !strings.HasPrefix(key, l.prefix) {
		return false
	}
	if l.glob == "" {
		return true
	}
	ok, _ := path.Match(l.glob, key) // the pattern was checked by Validate
	return ok
}

// list pages through ListObjectsV2 with continuation tokens and returns
// the matching objects in key order (S3 lists in UTF-8 byte order; the
// sort makes that a guarantee for other stores too).
func (l listing) list(ctx context.Context, cl *s3.Client, conn connection) ([]object, error) {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(conn.bucket)}
	if p := l.listPrefix(); p != "" {
		in.Prefix = aws.String(p)
	}
	if l.maxKeys > 0 {
		in.MaxKeys = aws.Int32(l.maxKeys)
	}
	var out []object
	pages := s3.NewListObjectsV2Paginator(cl, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, describe(err, "list "+conn.url(l.listPrefix()), conn.bucket)
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			if l.match(key) {
				out = append(out, object{key: key, size: aws.ToInt64(o.Size)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	if l.max > 0 && len(out) > l.max {
		out = out[:l.max]
	}
	return out, nil
}

// what names the listing in messages: s3://bucket/prefix, and the glob.
func (l listing) what(conn connection) string {
	s := conn.url(l.prefix)
	if l.glob != "" {
		s += fmt.Sprintf(" matching %q", l.glob)
	}
	return s
}
