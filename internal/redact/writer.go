package redact

import (
	"io"
	"sync"
)

// Writer scrubs secrets from everything written through it. It writes whole
// lines at once (holding back a partial last line until the next newline or
// Flush) so that a secret split across two Write calls is still caught.
type Writer struct {
	mu  sync.Mutex
	set *Set
	out io.Writer
	buf []byte
}

// NewWriter wraps out, scrubbing with set (Global when nil).
func NewWriter(out io.Writer, set *Set) *Writer {
	if set == nil {
		set = Global
	}
	return &Writer{set: set, out: out}
}

// Write buffers p and writes every complete line, scrubbed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	last := -1
	for i := len(w.buf) - 1; i >= 0; i-- {
		if w.buf[i] == '\n' || w.buf[i] == '\r' {
			last = i
			break
		}
	}
	if last < 0 {
		// No line end yet: keep a bounded tail so a runaway line still
		// flows, but never cut inside a possible secret.
		if keep := w.set.Longest(); len(w.buf) > 64<<10+keep {
			cut := len(w.buf) - keep
			if err := w.emit(w.buf[:cut]); err != nil {
				return 0, err
			}
			w.buf = append(w.buf[:0], w.buf[cut:]...)
		}
		return len(p), nil
	}
	if err := w.emit(w.buf[:last+1]); err != nil {
		return 0, err
	}
	w.buf = append(w.buf[:0], w.buf[last+1:]...)
	return len(p), nil
}

// Flush writes any held-back partial line.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	err := w.emit(w.buf)
	w.buf = w.buf[:0]
	return err
}

func (w *Writer) emit(b []byte) error {
	_, err := io.WriteString(w.out, w.set.String(string(b)))
	return err
}
