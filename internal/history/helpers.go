package history

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ClaimAttempts bounds the idempotency claim loop and the read-max-then-insert
// paths (template versions, launch seqs). Sized for contention (#457).
const ClaimAttempts = 8

// tsLayout is the fixed-width column format: RFC 3339, UTC, nine fractional
// digits, Z.
const tsLayout = "2006-01-02T15:04:05.000000000Z"

// FormatTS renders t in the fixed-width column format (lexical order equals
// chronological order).
func FormatTS(t time.Time) string { return t.UTC().Format(tsLayout) }

// ParseTSStrict parses an RFC 3339 timestamp (any fraction width, any offset).
func ParseTSStrict(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

// ParseTS is the lenient inverse of FormatTS: an unparseable value reads as
// now, so one corrupt timestamp never makes a row unusable (display and
// ordering only).
func ParseTS(s string) time.Time {
	t, err := ParseTSStrict(s)
	if err != nil {
		return time.Now().UTC()
	}
	return t
}

// PadSeq zero-pads a run-log sequence to 20 digits (the width of MaxUint64).
func PadSeq(seq uint64) string { return fmt.Sprintf("%020d", seq) }

// UnpadSeq is the inverse of PadSeq; a malformed value reads as 0.
func UnpadSeq(s string) uint64 {
	n, err := strconv.ParseUint(strings.TrimLeft(s, "0"), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// IsExpired reports whether a claim stamped claimedAt is at least window old.
// An unparseable or future timestamp is not expired (no silent re-claim).
func IsExpired(claimedAt string, now time.Time, window time.Duration) bool {
	t, err := ParseTSStrict(claimedAt)
	if err != nil {
		return false
	}
	age := now.Sub(t)
	if age < 0 {
		return false
	}
	return age >= window
}

// maxWindow clamps absurd windows (the seed clamps at 36 500 days).
const maxWindow = 36500 * 24 * time.Hour

// Threshold renders now-window in the column format (purge/expiry cutoffs).
func Threshold(now time.Time, window time.Duration) string {
	if window < 0 || window > maxWindow {
		window = maxWindow
	}
	return FormatTS(now.Add(-window))
}

var retrySeq atomic.Uint64

// RetryBackoff sleeps before retry number attempt (1-based): nothing on the
// first attempt, then 5ms·2^min(attempt-2,6) capped at 160ms, plus a 0-5ms
// stagger from a process-wide counter so colliding retriers de-align. It
// returns early with ctx's error if ctx ends.
func RetryBackoff(ctx context.Context, attempt int) error {
	d := BackoffDelay(attempt)
	if d == 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// BackoffDelay is the delay RetryBackoff sleeps (it advances the stagger
// counter).
func BackoffDelay(attempt int) time.Duration {
	if attempt <= 1 {
		return 0
	}
	const base, capMS = 5, 160
	shift := attempt - 2
	if shift > 6 {
		shift = 6
	}
	exp := uint64(base) << uint(shift)
	if exp > capMS {
		exp = capMS
	}
	stagger := (retrySeq.Add(1) - 1) % (base + 1)
	return time.Duration(exp+stagger) * time.Millisecond
}

// EncodeJSON serializes a body; failures become Backend("encode <what>: ...").
func EncodeJSON(v any, what string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", Backend("encode %s: %v", what, err)
	}
	return string(b), nil
}

// DecodeJSON parses a body into T; failures become Backend("decode <what>: ...").
// Unknown fields are tolerated.
func DecodeJSON[T any](body, what string) (T, error) {
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return v, Backend("decode %s: %v", what, err)
	}
	return v, nil
}

// EncodeRun / DecodeRun are the run-record body codecs.
func EncodeRun(r *RunRecord) (string, error) { return EncodeJSON(r, "run record") }

// DecodeRun decodes a run-record body.
func DecodeRun(body string) (RunRecord, error) { return DecodeJSON[RunRecord](body, "run record") }

func ptr[T any](v T) *T { return &v }

// Ptr returns a pointer to v (convenience for optional fields).
func Ptr[T any](v T) *T { return ptr(v) }
