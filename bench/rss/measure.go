//go:build linux

package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const (
	page   = 4096
	window = 64 << 10 // the kernel's default fault_around_bytes
)

// report is what measure found.
type report struct {
	hwm, anon, file int64 // KiB, from /proc/PID/status
	sections        []section
	pcln            []section        // .gopclntab by table
	otherFiles      map[string]int64 // resident bytes of other file mappings
	initWindows     int              // 64 KiB windows holding init functions
	initResident    int              // of them with a resident page
	packages        map[string]int64 // resident text bytes per package
	noSymbols       bool
}

type section struct {
	name           string
	size, resident int64
}

// measure reads the stopped process's status, maps and pagemap.
func measure(pid int, exe string) (*report, error) {
	r := &report{otherFiles: map[string]int64{}, packages: map[string]int64{}}
	if err := r.status(pid); err != nil {
		return nil, err
	}
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return nil, err
	}
	defer pm.Close()
	present := func(addr uint64) bool {
		var b [8]byte
		if _, err := pm.ReadAt(b[:], int64(addr/page*8)); err != nil {
			return false
		}
		return binary.LittleEndian.Uint64(b[:])&(1<<63) != 0
	}
	exeReal, _ := filepath.EvalSymlinks(exe)
	maps, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || !strings.HasPrefix(f[5], "/") || f[5] == exeReal {
			continue
		}
		lo, hi := span(f[0])
		for a := lo; a < hi; a += page {
			if present(a) {
				r.otherFiles[f[5]] += page
			}
		}
	}
	ef, err := elf.Open(exe)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Size < page || s.Type == elf.SHT_NOBITS {
			continue
		}
		sec := section{name: s.Name, size: int64(s.Size)}
		for a := s.Addr &^ (page - 1); a < s.Addr+s.Size; a += page {
			if present(a) {
				sec.resident += page
			}
		}
		r.sections = append(r.sections, sec)
		if s.Name == ".gopclntab" {
			r.pcln = pclnParts(s, present)
		}
	}
	syms, err := ef.Symbols()
	if err != nil {
		r.noSymbols = true
		return r, nil
	}
	r.symbols(syms, present)
	return r, nil
}

// status reads the peak and current RSS split.
func (r *report) status(pid int) error {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			r.hwm = n
		case "RssAnon:":
			r.anon = n
		case "RssFile:":
			r.file = n
		}
	}
	return nil
}

// symbols counts init windows and resident code per package.
func (r *report) symbols(syms []elf.Symbol, present func(uint64) bool) {
	var text []elf.Symbol
	windows := map[uint64]bool{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 {
			continue
		}
		text = append(text, s)
		if isInit(s.Name) {
			windows[s.Value/window] = true
		}
	}
	r.initWindows = len(windows)
	for w := range windows {
		for a := w * window; a < (w+1)*window; a += page {
			if present(a) {
				r.initResident++
				break
			}
		}
	}
	sort.Slice(text, func(i, j int) bool { return text[i].Value < text[j].Value })
	for i, s := range text {
		end := s.Value + s.Size
		if i+1 < len(text) && text[i+1].Value > end {
			end = text[i+1].Value
		}
		for a := s.Value &^ (page - 1); a < end; a += page {
			if a >= s.Value && present(a) {
				r.packages[pkgOf(s.Name)] += page
			}
		}
	}
}

// isInit reports whether name is a package's init function (pkg.init or
// pkg.init.N), not a closure or method named init.
func isInit(name string) bool {
	i := strings.LastIndex(name, ".init")
	if i < 0 {
		return false
	}
	rest := name[i+len(".init"):]
	if rest == "" {
		return !strings.Contains(name[:i], ".") || strings.LastIndex(name[:i], "/") > strings.LastIndex(name[:i], ".")
	}
	if rest[0] != '.' {
		return false
	}
	_, err := strconv.Atoi(rest[1:])
	return err == nil
}

// pkgOf is the import path a Go symbol belongs to (a generated equality
// function counts for its type's package).
func pkgOf(name string) string {
	name = strings.TrimPrefix(name, "type:.eq.")
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}

func span(s string) (uint64, uint64) {
	lo, hi, _ := strings.Cut(s, "-")
	a, _ := strconv.ParseUint(lo, 16, 64)
	b, _ := strconv.ParseUint(hi, 16, 64)
	return a, b
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func (r *report) print(w io.Writer, top int) {
	fmt.Fprintf(w, "peak RSS %.1f MiB; at exit: anonymous %.1f MiB, file-backed %.1f MiB\n",
		float64(r.hwm)/1024, float64(r.anon)/1024, float64(r.file)/1024)
	var exe int64
	fmt.Fprintln(w, "\nthe executable's sections:")
	for _, s := range r.sections {
		exe += s.resident
		fmt.Fprintf(w, "  %-16s %7.1f MiB, resident %6.1f MiB\n", s.name, mib(s.size), mib(s.resident))
	}
	fmt.Fprintf(w, "  %-16s %7s      resident %6.1f MiB\n", "total", "", mib(exe))
	if len(r.pcln) > 0 {
		fmt.Fprintln(w, "\n.gopclntab by table:")
		for _, s := range r.pcln {
			fmt.Fprintf(w, "  %-18s %5.1f MiB, resident %6.1f MiB\n", s.name, mib(s.size), mib(s.resident))
		}
	}
	if len(r.otherFiles) > 0 {
		fmt.Fprintln(w, "\nother mapped files:")
		for _, name := range sortedKeys(r.otherFiles) {
			fmt.Fprintf(w, "  %6.1f MiB %s\n", mib(r.otherFiles[name]), name)
		}
	}
	if r.noSymbols {
		fmt.Fprintln(w, "\nno symbol table (built with -s): no per-package figures")
		return
	}
	fmt.Fprintf(w, "\npackage init functions lie in %d distinct 64 KiB windows (%.1f MiB), %d of them resident\n",
		r.initWindows, float64(r.initWindows)/16, r.initResident)
	fmt.Fprintf(w, "\nresident code by package (top %d):\n", top)
	for i, name := range sortedKeys(r.packages) {
		if i == top {
			break
		}
		fmt.Fprintf(w, "  %6.2f MiB %s\n", mib(r.packages[name]), name)
	}
}

// sortedKeys orders m's keys by value, largest first.
func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
