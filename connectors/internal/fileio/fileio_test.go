package fileio

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.csv", "a.csv", "c.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "d.csv"), 0o755)
	got, err := Expand(filepath.Join(dir, "*.csv"))
	if err != nil || len(got) != 2 || filepath.Base(got[0]) != "a.csv" || filepath.Base(got[1]) != "b.csv" {
		t.Errorf("glob: %v %v (directories excluded, sorted)", got, err)
	}
	if _, err := Expand(filepath.Join(dir, "*.json")); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("empty glob: %v", err)
	}
	if _, err := Expand(filepath.Join(dir, "missing.csv")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Expand(filepath.Join(dir, "d.csv")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Expand(filepath.Join(dir, "[")); err == nil {
		t.Error("bad glob: no error")
	}
}

func TestIsGzip(t *testing.T) {
	for _, tt := range []struct {
		path, comp string
		want       bool
	}{
		{"a.csv.gz", "auto", true}, {"a.csv", "auto", false}, {"a.csv", "gzip", true}, {"a.gz", "none", false},
	} {
		if got := IsGzip(tt.path, tt.comp); got != tt.want {
			t.Errorf("IsGzip(%q, %q) = %v", tt.path, tt.comp, got)
		}
	}
}

func TestWriterGzipMembersAndAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.gz")
	w, err := Create(path, false, "auto")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("one\n"))
	if err := w.Flush(); err != nil { // ends the first member
		t.Fatal(err)
	}
	w.Write([]byte("two\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, _ = Create(path, true, "auto")
	w.Write([]byte("three\n"))
	w.Close()
	if got, err := readBack(path); err != nil || got != "one\ntwo\nthree\n" {
		t.Errorf("read back %q, %v", got, err)
	}
	// Truncate replaces the content.
	w, _ = Create(path, false, "none")
	w.Write([]byte("raw"))
	w.Close()
	if b, _ := os.ReadFile(path); string(b) != "raw" {
		t.Errorf("truncate: %q", b)
	}
	if _, err := gzip.NewReader(strings.NewReader("raw")); err == nil {
		t.Error("sanity: raw text is not gzip")
	}
}

func TestWriterLargeWritesKeepOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	w, err := Create(path, false, "none")
	if err != nil {
		t.Fatal(err)
	}
	small := strings.Repeat("s", 100)
	big := strings.Repeat("B", directWrite+1)
	w.Write([]byte(small))
	w.Write([]byte(big)) // flushes the small one first, then goes direct
	w.Write([]byte(small))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != small+big+small {
		t.Errorf("got %d bytes in the wrong order", len(got))
	}
}

// TestWriterFlushBuffersLeavesAReadableFile: after FlushBuffers (Flush
// without the fsync) a reader sees everything written, a gzip file
// included (its member is ended), while the writer stays open.
func TestWriterFlushBuffersLeavesAReadableFile(t *testing.T) {
	for _, name := range []string{"out.txt", "out.gz"} {
		path := filepath.Join(t.TempDir(), name)
		w, err := Create(path, false, "auto")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("one\n"))
		if err := w.FlushBuffers(); err != nil {
			t.Fatal(err)
		}
		if got, err := readBack(path); err != nil || got != "one\n" {
			t.Errorf("%s: read back %q, %v before the writer closed", name, got, err)
		}
		w.Write([]byte("two\n"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got, err := readBack(path); err != nil || got != "one\ntwo\n" {
			t.Errorf("%s: read back %q, %v after the writer closed", name, got, err)
		}
	}
}

// readBack is the content of the file at path, decompressed as Open
// would.
func readBack(path string) (string, error) {
	r, err := Open(path, "auto")
	if err != nil {
		return "", err
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	return string(got), err
}
