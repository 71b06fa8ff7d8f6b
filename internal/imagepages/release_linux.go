//go:build linux

package imagepages

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release drops the executable's read-only pages from the process (see
// the package comment). It reports nothing: a failure only leaves the
// pages mapped.
func Release() {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return
	}
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer maps.Close()
	spans := executableSpans(maps, unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
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

// executableSpans reads /proc/self/maps and returns the mappings of the
// file dev major:minor, inode ino that are not writable.
func executableSpans(maps io.Reader, major, minor uint32, ino uint64) []span {
	var out []span
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		// address perms offset dev inode [path]
		f := strings.Fields(sc.Text())
		if len(f) < 5 || len(f[1]) < 2 || f[1][1] != '-' {
			continue
		}
		if n, err := strconv.ParseUint(f[4], 10, 64); err != nil || n != ino {
			continue
		}
		maj, min, ok := strings.Cut(f[3], ":")
		if !ok || !hexIs(maj, uint64(major)) || !hexIs(min, uint64(minor)) {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b <= a {
			continue
		}
		out = append(out, span{a, b})
	}
	if sc.Err() != nil {
		return nil
	}
	return out
}

func hexIs(s string, want uint64) bool {
	n, err := strconv.ParseUint(s, 16, 32)
	return err == nil && n == want
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
