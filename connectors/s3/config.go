package s3

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/faucet-hq/faucet/connector"
)

// Access says where a bucket is served and how to sign in: the keys the
// s3 source and sink share (both embed it).
type Access struct {
	Region          string           `json:"region" doc:"AWS region; default from the AWS environment, else us-east-1."`
	EndpointURL     string           `json:"endpoint_url" doc:"S3-compatible endpoint (MinIO, R2, Ceph), e.g. http://127.0.0.1:9000."`
	ForcePathStyle  bool             `json:"force_path_style" default:"false" doc:"Address the bucket as endpoint/bucket instead of bucket.endpoint (most S3-compatible stores need this)."`
	AccessKeyID     string           `json:"access_key_id" doc:"Static access key id; default the AWS credential chain (environment, shared files, SSO, instance role)."`
	SecretAccessKey connector.Secret `json:"secret_access_key" doc:"Secret of access_key_id."`
	SessionToken    connector.Secret `json:"session_token" doc:"Session token of temporary credentials."`
}

// connection is what the source and sink share: the bucket, where it is
// served and how to sign requests.
type connection struct {
	bucket string
	Access
}

// validate checks the credential keys: a static key needs its secret.
func (c connection) validate() error {
	if strings.TrimSpace(c.bucket) == "" {
		return connector.ConfigErrorf("bucket", "must not be empty")
	}
	if strings.ContainsAny(c.bucket, "/ ") {
		return connector.ConfigErrorf("bucket", "%q is not a bucket name (give the key part in prefix)", c.bucket)
	}
	if (c.AccessKeyID == "") != (c.SecretAccessKey == "") {
		return connector.ConfigErrorf("access_key_id", "access_key_id and secret_access_key go together (or leave both out to use the default AWS credential chain)")
	}
	if c.SessionToken != "" && c.AccessKeyID == "" {
		return connector.ConfigErrorf("session_token", "needs access_key_id and secret_access_key")
	}
	return nil
}

// client builds an S3 client: static credentials when configured, else the
// default AWS chain (environment, shared files, SSO, instance role).
func (c connection) client(ctx context.Context) (*s3.Client, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if c.Region != "" {
		opts = append(opts, awsconfig.WithRegion(c.Region))
	}
	if c.AccessKeyID != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey.Reveal(), c.SessionToken.Reveal())))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		// The loader's errors name files and profiles, never secrets.
		return nil, fmt.Errorf("s3: load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.EndpointURL != "" {
			o.BaseEndpoint = aws.String(c.EndpointURL)
		}
		o.UsePathStyle = c.ForcePathStyle
		// Checksums only where the API requires them: S3-compatible
		// stores (MinIO, Ceph, test servers) do not all accept the
		// streaming trailers the SDK adds otherwise.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	}), nil
}

// url is s3://bucket/key, the name used in errors and record locations.
func (c connection) url(key string) string { return "s3://" + c.bucket + "/" + key }

// Input formats and compressions.
const (
	formatAuto    = "auto"
	formatJSONL   = "jsonl"
	formatCSV     = "csv"
	formatJSON    = "json"
	formatParquet = "parquet"

	compAuto = "auto"
	compNone = "none"
	compGzip = "gzip"
	compZstd = "zstd"
)

// formatOf is the format an object's extension names ("" when none does),
// after a compression suffix.
func formatOf(key string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(key, ".gz"), ".zst")
	switch strings.ToLower(path.Ext(base)) {
	case ".jsonl", ".ndjson":
		return formatJSONL
	case ".csv":
		return formatCSV
	case ".json":
		return formatJSON
	case ".parquet":
		return formatParquet
	}
	return ""
}

// compressionOf resolves compression for one object: auto goes by the
// .gz / .zst suffix.
func compressionOf(key, compression string) string {
	if compression != compAuto {
		return compression
	}
	switch {
	case strings.HasSuffix(key, ".gz"):
		return compGzip
	case strings.HasSuffix(key, ".zst"):
		return compZstd
	}
	return compNone
}
