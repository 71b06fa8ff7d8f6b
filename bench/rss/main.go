//go:build linux

// Command rss shows where a process's resident memory is: it runs a
// command under ptrace, stops it as it exits (PTRACE_EVENT_EXIT, when its
// memory is still mapped), and reports its peak RSS, its anonymous and
// file-backed memory, and, for the executable's own mapping, how much of
// each ELF section is resident, read from /proc/PID/pagemap, with the
// function tables (.gopclntab) split by table, which tells stack walks
// (pc-value tables) from symbolization (function names). For a Go
// binary with a symbol table it also counts the 64 KiB windows that hold
// package initialization functions: the kernel maps up to 64 KiB of page
// cache around each page a process touches (fault-around), and every
// package's init runs before main, so those windows are resident in any
// run of the binary whatever it does.
//
//	go run ./bench/rss -- ./faucet version
//	go run ./bench/rss -top 20 -- ./faucet run pipeline.yaml
//	go run ./bench/rss -o report.txt -- ./faucet run pipeline.yaml
//
// Needs permission to ptrace the child and to read its pagemap (root, or
// CAP_SYS_ADMIN for the pagemap's present bits on some kernels).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

func main() {
	top := flag.Int("top", 15, "packages to list by resident code")
	out := flag.String("o", "", "write the report to this file instead of standard output")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: rss [-top N] -- command [args...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	rep, code, err := trace(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
	if rep == nil {
		fmt.Fprintln(os.Stderr, "rss: the command ended before it could be measured")
		os.Exit(1)
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rss:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	rep.print(w, *top)
	if code != 0 {
		fmt.Fprintf(os.Stderr, "rss: the command exited with %d\n", code)
	}
}

// trace runs args stopped at its exit and measures it there.
func trace(args []string) (*report, int, error) {
	path, err := exec.LookPath(args[0])
	if err != nil {
		return nil, 0, err
	}
	// Every ptrace request must come from the thread that started the
	// tracee.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.Command(path, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	pid := cmd.Process.Pid
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil { // the stop at exec
		return nil, 0, err
	}
	if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXIT); err != nil {
		return nil, 0, fmt.Errorf("ptrace: %w", err)
	}
	if err := syscall.PtraceCont(pid, 0); err != nil {
		return nil, 0, err
	}
	var rep *report
	for {
		if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil {
			return rep, 0, err
		}
		switch {
		case ws.Exited():
			return rep, ws.ExitStatus(), nil
		case ws.Signaled():
			return rep, 128 + int(ws.Signal()), nil
		case !ws.Stopped():
			continue
		}
		sig := ws.StopSignal()
		if sig == syscall.SIGTRAP {
			if ws.TrapCause() == syscall.PTRACE_EVENT_EXIT {
				if rep, err = measure(pid, path); err != nil {
					return nil, 0, err
				}
			}
			sig = 0
		}
		// Any other stop is a signal for the command (Go's runtime sends
		// itself SIGURG to preempt goroutines): deliver it.
		if err := syscall.PtraceCont(pid, int(sig)); err != nil {
			return rep, 0, err
		}
	}
}
