package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/faucet-hq/faucet/connector"
)

// FileConfig is the `config:` of `state: {type: file}`.
type FileConfig struct {
	Path string `json:"path" required:"true" doc:"directory holding one <key>.json file per state key"`
}

// Validate implements connector.Validator.
func (c *FileConfig) Validate() error {
	if strings.TrimSpace(c.Path) == "" {
		return connector.ConfigErrorf("path", "must not be empty")
	}
	return nil
}

func init() {
	Register(Kind{
		Name:    "file",
		Summary: "one JSON file per state key in a directory; atomic, fsynced writes",
		Config:  &FileConfig{},
		Open: func(cfg connector.Config) (Store, error) {
			var c FileConfig
			if err := cfg.Decode(&c); err != nil {
				return nil, err
			}
			return NewFile(c.Path), nil
		},
	})
}

// File stores each key in its own file under a directory (see doc.go).
type File struct {
	dir string
	mu  sync.Mutex
	seq atomic.Uint64
}

// NewFile returns a file store rooted at dir; the directory is created on
// the first Put.
func NewFile(dir string) *File { return &File{dir: dir} }

// Dir is the store's directory.
func (s *File) Dir() string { return s.dir }

// PathFor returns the file that holds key.
func (s *File) PathFor(key string) string {
	return filepath.Join(s.dir, strings.ReplaceAll(key, ":", "%3A")+".json")
}

// CorruptError reports a state file that exists but cannot be used.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("state file %s is corrupt: %v (fix or delete it to start over)", e.Path, e.Err)
}
func (e *CorruptError) Unwrap() error { return e.Err }

// Get implements Store.
func (s *File) Get(_ context.Context, key string) ([]byte, bool, error) {
	if err := ValidateKey(key); err != nil {
		return nil, false, err
	}
	path := s.PathFor(key)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read state file %s: %w", path, err)
	}
	if !json.Valid(data) {
		return nil, false, &CorruptError{Path: path, Err: errors.New("not valid JSON")}
	}
	return data, true, nil
}

// Put implements Store: temp file, fsync, rename, fsync directory.
func (s *File) Put(_ context.Context, key string, value []byte) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if !json.Valid(value) {
		return fmt.Errorf("state value for %q is not valid JSON", key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	path := s.PathFor(key)
	tmp := fmt.Sprintf("%s.%d.%d.json.tmp", strings.TrimSuffix(path, ".json"), os.Getpid(), s.seq.Add(1))
	if err := writeSynced(tmp, value); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write state for %q: %w", key, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write state for %q: %w", key, err)
	}
	return syncDir(s.dir)
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync state directory: %w", err)
	}
	return nil
}

// Delete implements Store.
func (s *File) Delete(_ context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.PathFor(key))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Close implements Store.
func (s *File) Close() error { return nil }
