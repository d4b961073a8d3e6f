//go:build !windows

package capture

import "os"

// lockHandle is what a LogFile locks: the file itself (flock works on a
// descriptor opened for writing only).
func lockHandle(f *os.File) *os.File { return f }
