//go:build windows

package capture

import (
	"os"

	"github.com/mcpsnoop/mcpsnoop/internal/filelock"
)

// lockHandle is what a LogFile locks: LockFileEx wants a handle opened
// for reading or writing, and a log opened for appending has only
// FILE_APPEND_DATA, so the lock is taken on a read handle of its own (a
// lock is a handle's: every writer's own handle excludes the others).
// When that cannot be opened, the file's handle is tried as it is.
func lockHandle(f *os.File) *os.File {
	if h, err := filelock.Open(f.Name()); err == nil {
		return h
	}
	return f
}
