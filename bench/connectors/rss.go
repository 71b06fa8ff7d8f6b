package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// rssSample is the child's resident memory split as the kernel counts it
// in /proc/PID/status: RssAnon (heap, stacks, the Go runtime's arenas:
// what a data path allocates) and RssFile (the binary's and libraries'
// file-backed pages: fixed per binary), in KiB.
type rssSample struct{ anonKB, fileKB int64 }

// sampleRSS polls /proc/PID/status of the child of timePID (the process
// GNU time runs) every 5 ms until stop is closed and sends the peaks of
// RssAnon and RssFile it saw. A poll can miss a peak shorter than its
// interval; GNU time's peak RSS is exact.
func sampleRSS(timePID int, stop <-chan struct{}, out chan<- rssSample) {
	var peak rssSample
	children := fmt.Sprintf("/proc/%d/task/%d/children", timePID, timePID)
	path := ""
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		if path == "" {
			if b, err := os.ReadFile(children); err == nil && len(bytes.Fields(b)) > 0 {
				path = "/proc/" + string(bytes.Fields(b)[0]) + "/status"
			}
		}
		if b, err := os.ReadFile(path); path != "" && err == nil {
			peak.anonKB = max(peak.anonKB, statusKB(b, "RssAnon:"))
			peak.fileKB = max(peak.fileKB, statusKB(b, "RssFile:"))
		}
		select {
		case <-stop:
			out <- peak
			return
		case <-t.C:
		}
	}
}

// statusKB is the number after key in a /proc/PID/status text (kB).
func statusKB(b []byte, key string) int64 {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0
	}
	rest := b[i+len(key):]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	n, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
	return n
}
