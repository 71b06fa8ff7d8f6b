//go:build !linux

package imagepages

// Release does nothing outside Linux.
func Release() {}
