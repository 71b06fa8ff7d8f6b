package fileio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/faucet-hq/faucet/connector"
)

// CheckReadable is the doctor probe of a file source: pattern names at
// least one file, and the first one opens and yields its first bytes
// (decompressed when compression says so).
func CheckReadable(pattern, compression string) connector.CheckResult {
	files, err := Expand(pattern)
	if err != nil {
		return connector.Failed("read", err, "check the path (relative paths are resolved from the working directory)")
	}
	r, err := Open(files[0], compression)
	if err != nil {
		return connector.Failed("read", err, "check the file's permissions and compression")
	}
	defer r.Close()
	if _, err := r.Read(make([]byte, 512)); err != nil && !errors.Is(err, io.EOF) {
		return connector.Failed("read", fmt.Errorf("%s: %w", files[0], err), "check the file's permissions and compression")
	}
	return connector.Passed("read")
}

// CheckWritable is the doctor probe of a file sink: path is not a
// directory, and the nearest existing directory on its way is writable
// (the sink creates the missing ones). Nothing is created.
func CheckWritable(path string) connector.CheckResult {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return connector.Failed("permissions", fmt.Errorf("%s is a directory", path), "name a file, not a directory")
	}
	dir := filepath.Dir(path)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return connector.Failed("permissions", fmt.Errorf("%s is not a directory", dir), "")
			}
			if err := canCreateIn(dir); err != nil {
				return connector.Failed("permissions", fmt.Errorf("cannot create files in %s: %w", dir, err), "check the directory's permissions")
			}
			return connector.Passed("permissions")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return connector.Failed("permissions", err, "")
		}
		dir = parent
	}
}
