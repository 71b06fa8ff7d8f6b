//go:build linux

package main

import (
	"debug/elf"
	"encoding/binary"
)

// pclnParts splits the resident pages of a Go binary's .gopclntab by the
// tables it holds, read from its header (runtime/symtab.go, pcHeader,
// Go 1.20 and later on a 64-bit target): function names (read when a PC
// is turned into a name: tracebacks, runtime.Callers' frames, FuncForPC),
// compilation units and file names (file:line of a frame), the pc-value
// tables (stack frame sizes, line numbers and the stack maps' indexes:
// read by stack growth, the collector's stack scans and preemption) and
// the function table with its _func records (any PC lookup).
func pclnParts(s *elf.Section, present func(uint64) bool) []section {
	hdr := make([]byte, 72)
	if _, err := s.ReadAt(hdr, 0); err != nil || binary.LittleEndian.Uint32(hdr) != 0xfffffff1 || hdr[7] != 8 {
		return nil
	}
	off := func(i int) uint64 { return binary.LittleEndian.Uint64(hdr[32+8*i:]) }
	names := []string{"function names", "compilation units", "file names", "pc-value tables", "function table"}
	var parts []section
	for i, name := range names {
		lo, hi := off(i), s.Size
		if i+1 < len(names) {
			hi = off(i + 1)
		}
		if lo >= hi || hi > s.Size {
			return nil
		}
		p := section{name: name, size: int64(hi - lo)}
		for a := (s.Addr + lo) &^ (page - 1); a < s.Addr+hi; a += page {
			if present(a) {
				p.resident += page
			}
		}
		parts = append(parts, p)
	}
	return parts
}
