//go:build linux

package imagepages

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestReleasableKeepsAnonymousCopies(t *testing.T) {
	const (
		file    = pmPresent | pmFile
		anon    = pmPresent
		swapped = pmSwapped
		absent  = 0
	)
	for _, tc := range []struct {
		name    string
		entries []uint64
		want    []pageRun
	}{
		{"none", nil, nil},
		{"all file", []uint64{file, file, file}, []pageRun{{0, 3}}},
		{"absent pages join the runs", []uint64{absent, file, absent}, []pageRun{{0, 3}}},
		{"an anonymous copy splits a run", []uint64{file, anon, file, file}, []pageRun{{0, 1}, {2, 4}}},
		{"a swapped-out copy is kept too", []uint64{file, swapped, absent}, []pageRun{{0, 1}, {2, 3}}},
		{"only copies", []uint64{anon, swapped}, nil},
		{"copy at both ends", []uint64{anon, file, absent, anon}, []pageRun{{1, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := releasable(tc.entries); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("releasable = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExecutableSpansPicksTheReadOnlyMappingsOfTheFile(t *testing.T) {
	maps := strings.Join([]string{
		"00400000-01a00000 r-xp 00000000 fd:01 1234 /usr/bin/faucet",
		"01a00000-02600000 r--p 01600000 fd:01 1234 /usr/bin/faucet",
		"02600000-02700000 rw-p 02200000 fd:01 1234 /usr/bin/faucet",
		"02700000-02800000 rw-p 00000000 00:00 0",
		"7f0000000000-7f0000100000 r--p 00000000 fd:01 99 /usr/lib/other",
		"7f0000100000-7f0000200000 r--p 00000000 fd:02 1234 /mnt/same-inode-other-disk",
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]",
		"garbage line",
	}, "\n")
	want := []span{{0x400000, 0x1a00000}, {0x1a00000, 0x2600000}}
	for _, pc := range []uint64{0x400000, 0x1234567, 0x19fffff} {
		if got := executableSpans(maps, pc); !reflect.DeepEqual(got, want) {
			t.Fatalf("pc %#x: spans = %#v, want %#v", pc, got, want)
		}
	}
	// The file is the one the code runs from, whatever its path says.
	if got := executableSpans(maps, 0x7f0000000010); !reflect.DeepEqual(got, []span{{0x7f0000000000, 0x7f0000100000}}) {
		t.Fatalf("code in /usr/lib/other: spans = %#v", got)
	}
	for _, pc := range []uint64{0x2700010, 0x7ffd00000010, 0x1} {
		if got := executableSpans(maps, pc); got != nil {
			t.Fatalf("pc %#x in anonymous or no memory: spans = %#v, want none", pc, got)
		}
	}
}

// TestReleaseDropsTheTestBinarysPages runs Release in this test binary:
// with every page of its read-only mappings made resident first
// (MADV_POPULATE_READ), Release must drop most of them, and the program
// must go on running (this test's own code comes back on the next
// instruction). What comes back at once is not small in a binary this
// size: the kernel maps a whole page-cache folio around a touched page,
// up to 1 MiB on some file systems.
func TestReleaseDropsTheTestBinarysPages(t *testing.T) {
	size := uint64(os.Getpagesize())
	var total uint64
	for _, s := range exeSpans(t) {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(s.lo), uintptr(s.hi-s.lo), unix.MADV_POPULATE_READ); errno != 0 {
			t.Skipf("MADV_POPULATE_READ: %v (kernel older than 5.14?)", errno)
		}
		total += (s.hi - s.lo) / size
	}
	before := exePages(t)
	if before < int(total)*9/10 {
		t.Fatalf("%d of %d pages resident after MADV_POPULATE_READ", before, total)
	}
	Release()
	after := exePages(t)
	t.Logf("executable pages resident: %d before Release (of %d), %d after", before, total, after)
	if after*4 > before*3 {
		t.Fatalf("executable pages resident: %d before Release, %d after; want at least a quarter dropped", before, after)
	}
}

// exeSpans is the executable's read-only mappings.
func exeSpans(t *testing.T) []span {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	spans := executableSpans(string(maps), uint64(reflect.ValueOf(Release).Pointer()))
	if len(spans) == 0 {
		t.Fatalf("no mapping of the executable in:\n%s", maps)
	}
	return spans
}

// exePages counts the resident pages of the executable's read-only
// mappings.
func exePages(t *testing.T) int {
	t.Helper()
	spans := exeSpans(t)
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer pm.Close()
	n := 0
	for _, s := range spans {
		entries, err := readPagemap(pm, s, uint64(os.Getpagesize()))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e&pmPresent != 0 {
				n++
			}
		}
	}
	return n
}
