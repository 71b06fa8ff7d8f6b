// Package imagepages gives back the pages of faucet's own executable that
// start-up left mapped and the run does not use.
//
// # Why
//
// Before main runs, the Go runtime sets up every interface table (reading
// the type data) and every linked package runs its initializer. faucet
// links some 265 packages, so those initializers are spread over the
// whole of its code, and the kernel maps up to 64 KiB of page cache
// around each page a process touches (fault-around). The result is
// 20-25 MiB of the executable's code, type data and function tables in
// the resident set of every faucet process, most of which a pipeline
// never touches again. `go run ./bench/rss -- faucet version` shows it.
//
// # What Release does
//
// Release finds in /proc/self/maps the file its own code is mapped from
// (by device and inode, so neither the path nor an overlay file system
// matters), takes that file's read-only mappings (code, read-only data
// and the function tables; never the writable data and BSS) and drops
// them from the process with madvise(MADV_DONTNEED). Their pages are
// clean copies of the file: they stay in the page cache and come back,
// with the same fault-around, when the program touches them again, at
// the cost of a minor fault each. A pipeline's resident set then holds
// the code it runs instead of the code start-up ran.
//
// faucet calls it where it pays: at the start of `faucet run`, for the
// pages package initialization left; in `faucet run` again once a row's
// source and sink are open (engine.Row.Opened), after reading the config,
// connecting and opening, whose code the data path does not run again;
// and in `faucet serve` once it listens. Not in main: a short command
// (`faucet version`) would spend ~2 ms of CPU faulting back what it
// dropped. Measured on CSV -> Postgres at 1M rows: 38 MiB peak RSS
// without Release, 30-34 with the first call alone, 28.6-29.5 with the
// first two (the start-up peak). A `faucet serve` that has answered
// requests holds 20 MiB instead of 22.
//
// The peak RSS the kernel reports still counts start-up: it records the
// high-water mark before unmapping, so Release lowers the resident set
// during a run, not the figure of a process that does nothing. That
// start-up peak depends on how the executable got into the page cache,
// because the kernel maps a whole page-cache folio around a touched page:
// 25-30 MiB after a build, a copy or a cold start here, 39-44 MiB when
// the file was read into large folios (`cat faucet >/dev/null`).
//
// # What it leaves alone
//
// A page of those mappings that the process holds as an anonymous copy
// (a debugger's breakpoint makes one) is kept: /proc/self/pagemap tells
// file pages from such copies, and only runs of file pages or pages not
// present are dropped. When /proc cannot be read, or anything about the
// mappings is unexpected, Release does nothing: the program is correct
// either way, it only holds more memory. Outside Linux it does nothing.
package imagepages
