package connector

import (
	"errors"
	"fmt"
	"time"
)

// RetryableError marks a failure that may succeed when tried again (a 503, a
// dropped connection). The engine retries the operation with exponential
// backoff and jitter; After, when set, is the least delay the peer asked for.
type RetryableError struct {
	Err   error
	After time.Duration
}

func (e *RetryableError) Error() string { return e.Err.Error() }
func (e *RetryableError) Unwrap() error { return e.Err }

// Retryable wraps err as retryable. It returns nil for nil.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	return &RetryableError{Err: err}
}

// IsRetryable reports whether err, or an error it wraps, is retryable and
// not fatal.
func IsRetryable(err error) bool {
	if IsFatal(err) {
		return false
	}
	var r *RetryableError
	return errors.As(err, &r)
}

// FatalError marks a failure that retrying cannot fix and that must stop the
// run even under on_error: continue (a misconfiguration, lost credentials).
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// Fatal wraps err as fatal. It returns nil for nil.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return &FatalError{Err: err}
}

// IsFatal reports whether err, or an error it wraps, is fatal.
func IsFatal(err error) bool {
	var f *FatalError
	return errors.As(err, &f)
}

// ConfigError is a problem with a config value. Path is the dotted key path
// from the document root ("pipeline.source.config.delimiter"); the config
// loader adds file, line and column.
type ConfigError struct {
	Path string
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// ConfigErrorf builds a ConfigError at path.
func ConfigErrorf(path, format string, args ...any) *ConfigError {
	return &ConfigError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Secret is a string that never prints: fmt, logs and JSON show "***".
// Reveal returns the value.
type Secret string

func (s Secret) String() string                { return "***" }
func (s Secret) GoString() string              { return `"***"` }
func (s Secret) MarshalJSON() ([]byte, error)  { return []byte(`"***"`), nil }
func (s Secret) Reveal() string                { return string(s) }
func (s Secret) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte("***")) }
func (s *Secret) UnmarshalText(b []byte) error { *s = Secret(b); return nil }
