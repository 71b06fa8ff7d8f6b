package s3

import (
	"context"
	"errors"
	"fmt"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/faucet-hq/faucet/connector"
)

// describe turns an SDK error into one a person can act on: what was
// being done (op names the bucket and key), and for the common refusals
// what they mean. Server errors and lost connections (after the SDK's own
// retries) are marked retryable; refusals are not. SDK errors carry the
// operation, status and request id, never the credentials.
func describe(err error, op, bucket string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("s3: %s: %w", op, err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchBucket":
			return fmt.Errorf("s3: %s: bucket %q does not exist: %w", op, bucket, err)
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired":
			return fmt.Errorf("s3: %s: the credentials were rejected for bucket %q (%s): %w", op, bucket, api.ErrorCode(), err)
		case "AccessDenied", "AllAccessDisabled":
			return fmt.Errorf("s3: %s: access to bucket %q denied: %w", op, bucket, err)
		case "NoSuchKey":
			return fmt.Errorf("s3: %s: no such object: %w", op, err)
		}
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch code := re.HTTPStatusCode(); {
		case code == 404:
			return fmt.Errorf("s3: %s: not found (bucket %q): %w", op, bucket, err)
		case code == 403:
			return fmt.Errorf("s3: %s: access to bucket %q denied or credentials rejected: %w", op, bucket, err)
		case code < 500 && code != 429:
			return fmt.Errorf("s3: %s: %w", op, err)
		}
	}
	return connector.Retryable(fmt.Errorf("s3: %s: %w", op, err))
}
