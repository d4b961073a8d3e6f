package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Options say what a command's standard descriptors are and how far an
// output may go to get written.
type Options struct {
	// Stdout and Stderr are what descriptors 1 and 2 mean (-, /dev/stdout,
	// /dev/stderr, /dev/fd/1...): the command's own streams. Nil means
	// os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// MkdirAll creates a Replaced file's missing folders, with DirPerm.
	MkdirAll bool
	// DirPerm is the mode of the folders MkdirAll creates (before the
	// umask); 0 means 0700.
	DirPerm os.FileMode
	// InPlace, when set, lets a Replaced file that exists be truncated and
	// written in place when its folder takes no temporary file (a read-only
	// folder holding a writable file); InPlace is told why first. Without
	// it that is an error.
	InPlace func(reason string)
}

// Output is an output being written. Nothing a reader can see changes
// before Commit for a Replaced file; Through and Descriptor outputs are
// written as the bytes come.
type Output struct {
	t       Target
	w       io.Writer
	tmp     *os.File // Replaced: the temporary file
	f       *os.File // Through, or Replaced written in place: the file
	perm    os.FileMode
	done    bool
	inPlace bool
}

// Open starts writing name by the one rule every command follows (see
// Resolve): a Replaced file goes through a temporary file in its folder
// (a new file gets perm, an existing one keeps its mode); anything else is
// written directly.
func Open(name string, perm os.FileMode, o Options) (*Output, error) {
	t, err := Resolve(name, o.MkdirAll)
	if err != nil {
		return nil, err
	}
	return OpenTarget(t, perm, o)
}

// OpenTarget is Open for a target already resolved.
func OpenTarget(t Target, perm os.FileMode, o Options) (*Output, error) {
	out := &Output{t: t, perm: perm}
	switch t.Kind {
	case Descriptor:
		w, err := descriptorWriter(t, o)
		if err != nil {
			return nil, err
		}
		out.w = w
	case Through:
		f, err := os.OpenFile(t.File, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", t.Name, PlainError(err))
		}
		out.f, out.w = f, f
	case Replaced:
		if o.MkdirAll {
			perm := o.DirPerm
			if perm == 0 {
				perm = 0o700
			}
			if err := os.MkdirAll(filepath.Dir(t.File), perm); err != nil {
				return nil, fmt.Errorf("write %s: folder %s: %w", t.Name, filepath.Dir(t.File), PlainError(err))
			}
		}
		if info, err := os.Stat(t.File); err == nil {
			out.perm = info.Mode().Perm()
		}
		tmp, err := createTemp(filepath.Dir(t.File), "."+filepath.Base(t.File)+".tmp-*")
		if err != nil {
			if f := openInPlace(t, err, o); f != nil {
				out.f, out.w, out.inPlace = f, f, true
				return out, nil
			}
			return nil, fmt.Errorf("write %s: %w", t.Name, PlainError(err))
		}
		out.tmp, out.w = tmp, tmp
	default:
		return nil, fmt.Errorf("write %s: unknown output kind %v", t.Name, t.Kind)
	}
	return out, nil
}

// createTemp makes the temporary file; tests replace it to refuse one.
var createTemp = os.CreateTemp

// openInPlace opens an existing regular file for writing in place, when o
// allows it and tempErr says that the folder refused the temporary file;
// nil otherwise.
func openInPlace(t Target, tempErr error, o Options) *os.File {
	if o.InPlace == nil || !(errors.Is(tempErr, fs.ErrPermission) || errors.Is(tempErr, syscall.EROFS)) {
		return nil
	}
	if info, err := os.Stat(t.File); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.OpenFile(t.File, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil
	}
	o.InPlace(fmt.Sprintf("no temporary file allowed beside %s (%v); writing it in place, so a failure leaves it incomplete",
		t.Name, PlainError(tempErr)))
	return f
}

// descriptorWriter is where a Descriptor target's bytes go.
func descriptorWriter(t Target, o Options) (io.Writer, error) {
	switch t.FD {
	case 1:
		if o.Stdout != nil {
			return o.Stdout, nil
		}
		return os.Stdout, nil
	case 2:
		if o.Stderr != nil {
			return o.Stderr, nil
		}
		return os.Stderr, nil
	}
	return openDescriptor(t)
}

// Target is where the output goes.
func (o *Output) Target() Target { return o.t }

// Atomic reports whether the output goes through a temporary file, so that
// Abort leaves the target as it was.
func (o *Output) Atomic() bool { return o.tmp != nil }

// Write writes to the temporary file, the file or the descriptor.
func (o *Output) Write(b []byte) (int, error) {
	n, err := o.w.Write(b)
	if err != nil {
		err = fmt.Errorf("write %s: %w", o.t.Name, PlainError(err))
	}
	return n, err
}

// Commit finishes the output: a temporary file is synced and renamed over
// the target (the target of a symbolic link; the link stays), a file
// opened is closed. A descriptor stays open: it is the process's.
func (o *Output) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	var err error
	switch {
	case o.tmp != nil:
		err = o.tmp.Chmod(o.perm)
		if err == nil {
			err = o.tmp.Sync()
		}
		if cerr := o.tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(o.tmp.Name(), o.t.File)
		}
		if err != nil {
			os.Remove(o.tmp.Name())
		}
	case o.f != nil:
		err = o.f.Close()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", o.t.Name, PlainError(err))
	}
	return nil
}

// Abort gives up: a temporary file is removed and the target left as it
// was. What went through to a device, a pipe or a descriptor (or a file
// written in place) stays written. A no-op after Commit.
func (o *Output) Abort() {
	if o.done {
		return
	}
	o.done = true
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
	if o.f != nil {
		o.f.Close()
	}
}
