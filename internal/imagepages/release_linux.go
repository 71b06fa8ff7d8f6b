//go:build linux

package imagepages

import (
	"encoding/binary"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release drops the executable's read-only pages from the process (see
// the package comment). It reports nothing: a failure only leaves the
// pages mapped.
func Release() {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	// The executable is the file this very function's code is mapped
	// from: /proc/self/maps names it by device and inode, which stat(2)
	// of /proc/self/exe may not repeat (overlay file systems on older
	// kernels report the layer's inode in maps).
	spans := executableSpans(string(maps), uint64(reflect.ValueOf(Release).Pointer()))
	if len(spans) == 0 {
		return
	}
	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return
	}
	defer pagemap.Close()
	size := uint64(os.Getpagesize())
	for _, s := range spans {
		entries, err := readPagemap(pagemap, s, size)
		if err != nil {
			return
		}
		for _, r := range releasable(entries) {
			lo := s.lo + uint64(r.first)*size
			n := uint64(r.end-r.first) * size
			// A raw call: unix.Madvise wants a []byte, and these
			// addresses are no Go object's.
			_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(lo), uintptr(n), unix.MADV_DONTNEED)
		}
	}
}

// span is an address range [lo, hi).
type span struct{ lo, hi uint64 }

// mapping is one line of /proc/self/maps.
type mapping struct {
	span
	writable bool
	file     string // device and inode, "fd:01 1234"; "" for anonymous memory
}

// executableSpans returns the mappings that are not writable of the file
// mapped at address pc, read from the text of /proc/self/maps.
func executableSpans(maps string, pc uint64) []span {
	var all []mapping
	var self string
	for _, line := range strings.Split(maps, "\n") {
		m, ok := parseMapping(line)
		if !ok {
			continue
		}
		all = append(all, m)
		if m.lo <= pc && pc < m.hi {
			self = m.file
		}
	}
	if self == "" {
		return nil
	}
	var out []span
	for _, m := range all {
		if m.file == self && !m.writable {
			out = append(out, m.span)
		}
	}
	return out
}

// parseMapping reads "address perms offset dev inode [path]".
func parseMapping(line string) (mapping, bool) {
	f := strings.Fields(line)
	if len(f) < 5 || len(f[1]) < 2 {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return mapping{}, false
	}
	a, err1 := strconv.ParseUint(lo, 16, 64)
	b, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || b <= a {
		return mapping{}, false
	}
	m := mapping{span: span{a, b}, writable: f[1][1] != '-'}
	if f[4] != "0" {
		m.file = f[3] + " " + f[4]
	}
	return m, true
}

// readPagemap returns the pagemap entries of s's pages.
func readPagemap(pagemap io.ReaderAt, s span, size uint64) ([]uint64, error) {
	n := (s.hi - s.lo) / size
	buf := make([]byte, n*8)
	if _, err := pagemap.ReadAt(buf, int64(s.lo/size*8)); err != nil {
		return nil, err
	}
	entries := make([]uint64, n)
	for i := range entries {
		entries[i] = binary.LittleEndian.Uint64(buf[i*8:])
	}
	return entries, nil
}

// Pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst).
const (
	pmPresent = 1 << 63
	pmSwapped = 1 << 62
	pmFile    = 1 << 61 // file page or shared anonymous
)

// pageRun is the pages [first, end) of a span.
type pageRun struct{ first, end int }

// releasable returns the runs of pages that are file pages or not mapped
// at all: everything but anonymous copies, resident or swapped out, which
// MADV_DONTNEED would discard.
func releasable(entries []uint64) []pageRun {
	var runs []pageRun
	start := -1
	for i, e := range entries {
		ok := e&pmFile != 0 || e&(pmPresent|pmSwapped) == 0
		switch {
		case ok && start < 0:
			start = i
		case !ok && start >= 0:
			runs = append(runs, pageRun{start, i})
			start = -1
		}
	}
	if start >= 0 {
		runs = append(runs, pageRun{start, len(entries)})
	}
	return runs
}
