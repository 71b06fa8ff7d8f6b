package history

import (
	"errors"
	"fmt"
)

// Transience says whether retrying a failed call could succeed.
type Transience int

const (
	// TransienceUnknown: no typed driver error was available to classify.
	// Callers treat it as retriable.
	TransienceUnknown Transience = iota
	// Transient: self-resolving (lost connection, busy database, server
	// starting, serialization failure, deadlock).
	Transient
	// Permanent: the database answered with a deterministic condition.
	Permanent
)

func (t Transience) String() string {
	switch t {
	case Transient:
		return "transient"
	case Permanent:
		return "permanent"
	default:
		return "unknown"
	}
}

// ErrorKind distinguishes the HistoryError variants.
type ErrorKind int

const (
	// KindBackend is a backend failure (classified or not).
	KindBackend ErrorKind = iota
	// KindDegraded is an operation refused because the store is degraded
	// (HTTP 503).
	KindDegraded
	// KindUnreachable is a backend that could not be reached at all; the only
	// failure that trips the degraded fallback.
	KindUnreachable
)

// Error is the run-history error (the seed's HistoryError).
type Error struct {
	Kind       ErrorKind
	Message    string
	Transience Transience
	// Err is the underlying driver error, if any.
	Err error
}

func (e *Error) Error() string {
	if e.Kind == KindDegraded {
		return e.Message
	}
	return "run-history backend error: " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// IsRetriable reports whether retrying could plausibly succeed: everything
// except a typed-permanent failure.
func (e *Error) IsRetriable() bool { return e.Transience != Permanent }

// Backend builds an unclassified backend error (transience unknown).
func Backend(format string, args ...any) *Error {
	return &Error{Kind: KindBackend, Message: fmt.Sprintf(format, args...), Transience: TransienceUnknown}
}

// Classified builds a backend error with a transience verdict.
func Classified(msg string, t Transience, err error) *Error {
	return &Error{Kind: KindBackend, Message: msg, Transience: t, Err: err}
}

// Degraded builds the 503 error for an operation refused while degraded.
func Degraded(format string, args ...any) *Error {
	return &Error{Kind: KindDegraded, Message: fmt.Sprintf(format, args...), Transience: Transient}
}

// Unreachable builds the error for a backend that could not be reached.
func Unreachable(msg string, err error) *Error {
	return &Error{Kind: KindUnreachable, Message: msg, Transience: Transient, Err: err}
}

// TransienceOf returns the verdict of err: the *Error's own, else Unknown.
func TransienceOf(err error) Transience {
	var he *Error
	if errors.As(err, &he) {
		return he.Transience
	}
	return TransienceUnknown
}

// IsRetriable reports whether err is worth retrying (not typed-permanent).
func IsRetriable(err error) bool { return err != nil && TransienceOf(err) != Permanent }

// IsDegraded reports whether err is a Degraded refusal.
func IsDegraded(err error) bool {
	var he *Error
	return errors.As(err, &he) && he.Kind == KindDegraded
}

// IsUnreachable reports whether err says the backend could not be reached.
func IsUnreachable(err error) bool {
	var he *Error
	return errors.As(err, &he) && he.Kind == KindUnreachable
}

// sqlstateLen is the fixed width of a SQLSTATE; a SQLite extended result code
// is at most four digits, so the length separates the two code spaces (many
// SQLSTATEs are all digits, e.g. 53300).
const sqlstateLen = 5

// TransienceOfCode maps a database error code to a verdict, covering both
// dialects exactly as the seed's transience_of_code: no code is Unknown; a
// five-character SQLSTATE is Transient for 57P03, 53300, 40001, 40P01 and
// class 08, else Permanent; a numeric SQLite extended code is masked to its
// primary code and is Transient for BUSY (5) and LOCKED (6), else Permanent;
// anything else is Unknown.
func TransienceOfCode(code string) Transience {
	if code == "" {
		return TransienceUnknown
	}
	if len(code) == sqlstateLen {
		switch {
		case code == "57P03", code == "53300", code == "40001", code == "40P01":
			return Transient
		case code[:2] == "08":
			return Transient
		default:
			return Permanent
		}
	}
	n, ok := parseInt32(code)
	if !ok {
		return TransienceUnknown
	}
	switch n & 0xFF {
	case 5, 6:
		return Transient
	default:
		return Permanent
	}
}

func parseInt32(s string) (int32, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
		if s == "" {
			return 0, false
		}
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
		if n > 1<<31 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n > 1<<31-1 || n < -(1<<31) {
		return 0, false
	}
	return int32(n), true
}
