//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSSKB is the child's peak resident set, in KiB on Linux (getrusage's
// ru_maxrss; bytes on macOS).
func maxRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
