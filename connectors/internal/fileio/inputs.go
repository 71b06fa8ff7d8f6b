package fileio

import (
	"errors"
	"io"
)

// Inputs is where a file source finds and opens its input. A nil *Inputs
// is the local file system (Expand and Open); a non-nil one holds names
// listed elsewhere, in read order (the objects of a bucket, see
// connectors/s3), and opens them with OpenFunc, which returns the stored
// bytes (decompressed by Open when compression says so, like a file).
type Inputs struct {
	Names    []string
	OpenFunc func(name string) (io.ReadCloser, error)
}

// Expand returns the inputs to read: the local files pattern names, or
// the listed names (pattern then only labels the input).
func (in *Inputs) Expand(pattern string) ([]string, error) {
	if in == nil {
		return Expand(pattern)
	}
	if len(in.Names) == 0 {
		return nil, errors.New("no input to read")
	}
	return in.Names, nil
}

// Open opens one input named by Expand.
func (in *Inputs) Open(name, compression string) (*Reader, error) {
	if in == nil {
		return Open(name, compression)
	}
	rc, err := in.OpenFunc(name)
	if err != nil {
		return nil, err
	}
	return newReader(name, rc, compression)
}
