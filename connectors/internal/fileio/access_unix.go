//go:build unix

package fileio

import "syscall"

// canCreateIn reports whether this process may create files in dir.
func canCreateIn(dir string) error { return syscall.Access(dir, 0x2|0x1) } // W_OK|X_OK
