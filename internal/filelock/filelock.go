// Package filelock takes advisory whole-file locks that cooperating
// processes honour: flock(2) on Unix, LockFileEx on Windows. mcpsnoop uses
// them where several of its processes may touch one file at once: shims
// appending to one trace file, wraps editing one client config, trust
// records in the state directory.
//
// A lock belongs to an open file (its open file description on Unix, its
// handle on Windows), not to the process: two opens of one file in the
// same process exclude each other like two processes do. It is advisory:
// a program that does not ask for it is not stopped.
package filelock

import (
	"errors"
	"fmt"
	"os"
)

// Lock takes the exclusive lock on f, waiting for whoever holds it.
func Lock(f *os.File) error {
	if err := lock(f); err != nil {
		return fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return nil
}

// Unlock gives the lock on f back. Closing f gives it back too.
func Unlock(f *os.File) error {
	if err := unlock(f); err != nil {
		return fmt.Errorf("unlocking %s: %w", f.Name(), err)
	}
	return nil
}

// ErrUnsupported is what Lock returns where the system has no such locks.
var ErrUnsupported = errors.New("file locks are not supported on this system")

// OpenLocked opens path with open and locks the file. A file replaced by
// a rename (or removed) while this waited for the lock is not the file
// the path names any more: it is let go and whatever path names now is
// opened and locked in its place. So the caller holds the lock on the file
// path names, and a writer that replaces the file by a rename while it
// holds the lock makes the next one in line see the new file.
func OpenLocked(path string, open func(string) (*os.File, error)) (*os.File, error) {
	for {
		f, err := open(path)
		if err != nil {
			return nil, err
		}
		if err := Lock(f); err != nil {
			f.Close()
			return nil, err
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if now, err := os.Stat(path); err == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close() // replaced or removed meanwhile: open what is there now
	}
}

// Open opens path for reading, to lock it: a file that is locked and then
// replaced by a rename (on Windows too, where the handle lets the file be
// renamed over).
func Open(path string) (*os.File, error) { return openShared(path) }
