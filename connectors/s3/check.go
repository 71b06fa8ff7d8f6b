package s3

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/faucet-hq/faucet/connector"
)

const credentialsHint = "check access_key_id/secret_access_key (or the AWS_* environment and profile), region, endpoint_url and force_path_style"

// checkBucket is the "bucket" probe: the endpoint answers, the
// credentials are accepted and the bucket exists (HeadBucket).
func checkBucket(ctx context.Context, conn connection) (*s3.Client, connector.CheckResult) {
	cl, err := conn.client(ctx)
	if err != nil {
		return nil, connector.Failed("bucket", err, credentialsHint)
	}
	_, err = cl.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(conn.bucket)})
	if err == nil {
		return cl, connector.Passed("bucket")
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case 404:
			return nil, connector.Failed("bucket", fmt.Errorf("s3: bucket %q does not exist", conn.bucket), "check bucket (and endpoint_url/region)")
		case 403:
			return nil, connector.Failed("bucket", fmt.Errorf("s3: bucket %q: credentials rejected or access denied (403)", conn.bucket), credentialsHint)
		}
	}
	return nil, connector.Failed("bucket", describe(err, "head bucket "+conn.url(""), conn.bucket), credentialsHint)
}

// Check probes the bucket, then that the prefix can be listed and holds
// at least one matching object in the first listing page (a glob matching
// only later keys is not looked for). Nothing is read or written.
func (s *Source) Check(ctx context.Context) []connector.CheckResult {
	cl, res := checkBucket(ctx, s.conn)
	if res.Err != nil {
		return []connector.CheckResult{res, connector.SkippedCheck("list", "the bucket is not reachable")}
	}
	in := &s3.ListObjectsV2Input{Bucket: aws.String(s.conn.bucket), MaxKeys: aws.Int32(int32(s.cfg.ListMaxKeys))}
	if p := s.lst.listPrefix(); p != "" {
		in.Prefix = aws.String(p)
	}
	out, err := cl.ListObjectsV2(ctx, in)
	if err != nil {
		return []connector.CheckResult{res, connector.Failed("list", describe(err, "list "+s.lst.what(s.conn), s.conn.bucket), "the credentials need s3:ListBucket on the bucket")}
	}
	for _, o := range out.Contents {
		if s.lst.match(aws.ToString(o.Key)) {
			return []connector.CheckResult{res, connector.Passed("list")}
		}
	}
	if aws.ToBool(out.IsTruncated) {
		return []connector.CheckResult{res, connector.Passed("list")}
	}
	return []connector.CheckResult{res, connector.Failed("list", fmt.Errorf("s3: no object in %s", s.lst.what(s.conn)), "check prefix and glob")}
}

// Check probes the bucket. Write permission is not probed: that would
// need to create an object.
func (s *Sink) Check(ctx context.Context) []connector.CheckResult {
	_, res := checkBucket(ctx, s.conn)
	return []connector.CheckResult{res}
}

var (
	_ connector.Checker = (*Source)(nil)
	_ connector.Checker = (*Sink)(nil)
)
