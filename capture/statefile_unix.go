//go:build unix

package capture

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens path with O_NOFOLLOW (a link at its last element
// fails with ELOOP, reported as ErrLinkRefused) and O_NONBLOCK, so that a
// FIFO planted there does not hang the open; OpenStateFile refuses it
// next.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrLinkRefused}
	}
	return f, err
}

// openForRead opens path for reading, following links, with O_NONBLOCK so
// that opening a FIFO does not wait for a writer; the caller checks what
// it opened before reading.
func openForRead(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
