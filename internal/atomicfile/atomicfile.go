// Package atomicfile writes the files commands produce, every one by the
// same rule, so that an output flag never harms what it names:
//
//   - a regular file is replaced atomically: the content goes to a
//     temporary file in the same folder, renamed over it once complete, so
//     a reader never sees half of it and a failure leaves it as it was;
//   - a symbolic link is followed and its target replaced; the link stays;
//   - anything that is not a regular file (a character device such as
//     /dev/null, a FIFO) is opened and written through, never replaced;
//   - -, /dev/stdout, /dev/stderr and /dev/fd/N name the process's own
//     descriptors and are written through too, even when the shell
//     redirected one to a regular file.
//
// Resolve says which case a name is; Open writes one output as a stream,
// WriteAll several from memory as one step.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is one output to write from memory.
type File struct {
	Path string
	Data []byte
	Perm os.FileMode // a new file's mode; an existing one keeps its own
}

// Write writes data to path by the package's rule.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteAll([]File{{Path: path, Data: data, Perm: perm}}, Options{})
}

// WriteAll writes several outputs as one step as far as a file system
// allows: every name is resolved and every temporary file written before
// anything is written through, and that before the first file is replaced,
// so a bad name or a full disk leaves every output as it was.
func WriteAll(files []File, o Options) error {
	targets := make([]Target, len(files))
	for i, f := range files {
		t, err := Resolve(f.Path, o.MkdirAll)
		if err != nil {
			return err
		}
		targets[i] = t
	}
	outs := make([]*Output, len(files))
	abort := func() {
		for _, out := range outs {
			if out != nil {
				out.Abort()
			}
		}
	}
	for i, f := range files {
		if targets[i].Kind != Replaced {
			continue // opened when its turn comes: nothing goes through early
		}
		out, err := OpenTarget(targets[i], f.Perm, o)
		if err == nil {
			_, err = out.Write(f.Data)
		}
		if err != nil {
			if out != nil {
				out.Abort()
			}
			abort()
			return err
		}
		outs[i] = out
	}
	// What goes through (a device, a pipe, a descriptor) is written before
	// any file is replaced: such a write can fail (a full device), and a
	// replaced file cannot be put back.
	for i, f := range files {
		if outs[i] != nil {
			continue
		}
		out, err := OpenTarget(targets[i], f.Perm, o)
		if err != nil {
			abort()
			return err
		}
		outs[i] = out
		if _, err := out.Write(f.Data); err != nil {
			abort()
			return err
		}
	}
	for _, out := range outs {
		if err := out.Commit(); err != nil {
			abort()
			return err
		}
	}
	return nil
}

// WriteNew writes data to path unless a file is there already, in which
// case created is false and nothing changes. Like Write, no reader sees the
// file half written: the data goes to a temporary file in the folder, which
// is then hard-linked to path (a link, unlike a rename, fails when the name
// exists).
func WriteNew(path string, data []byte, perm os.FileMode) (created bool, err error) {
	tmp, err := writeTemp(File{Path: path, Data: data, Perm: perm})
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("write %s: %w", path, PlainError(err))
	}
	return true, nil
}

func writeTemp(f File) (string, error) {
	tmp, err := createTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", f.Path, PlainError(err))
	}
	name := tmp.Name()
	_, err = tmp.Write(f.Data)
	if err == nil {
		err = tmp.Chmod(f.Perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", f.Path, PlainError(err))
	}
	return name, nil
}

// PlainError strips the file name an OS error carries (*fs.PathError,
// *os.LinkError), for messages that name the file their own way: users
// never saw a temporary file's name.
func PlainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
