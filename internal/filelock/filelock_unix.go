//go:build unix && !aix

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// flock(2) locks the open file description, so every open of a file is a
// party of its own, whether in this process or another.

func lock(f *os.File) error {
	return retryEINTR(func() error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) })
}

func unlock(f *os.File) error {
	return retryEINTR(func() error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) })
}

// retryEINTR runs call again when a signal interrupted it: the shim catches
// SIGPIPE and passes signals on, so a wait for a lock may be woken early.
func retryEINTR(call func() error) error {
	for {
		err := call()
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func openShared(path string) (*os.File, error) { return os.Open(path) }
