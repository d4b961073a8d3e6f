package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Kind says how an output is written.
type Kind int

const (
	// Replaced is a regular file, or a name with nothing behind it yet: the
	// content goes to a temporary file beside it, renamed over it at the end.
	Replaced Kind = iota
	// Through is anything else that can be opened for writing (a character
	// device such as /dev/null, a FIFO, a socket): it is opened and written,
	// never replaced.
	Through
	// Descriptor is one of the process's open descriptors, named as -,
	// /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N: the bytes go to
	// that descriptor as it is, whatever it is connected to (a terminal, a
	// pipe, a regular file the shell redirected it to).
	Descriptor
)

func (k Kind) String() string {
	switch k {
	case Replaced:
		return "replaced"
	case Through:
		return "written through"
	case Descriptor:
		return "descriptor"
	}
	return "kind " + strconv.Itoa(int(k))
}

// Target is an output name resolved: how it is written and where.
type Target struct {
	// Name is the output as the user gave it.
	Name string
	Kind Kind
	// File is what is written, symbolic links followed: the file a
	// temporary file replaces (Replaced), or the file opened (Through).
	// Empty for a Descriptor.
	File string
	// FD is the descriptor (1 for - and /dev/stdout, 2 for /dev/stderr).
	FD int
}

// maxLinks bounds a chain of symbolic links, as the kernel's ELOOP does.
const maxLinks = 40

// Resolve says how name would be written, without writing anything: a
// descriptor name means that descriptor; otherwise symbolic links are
// followed (a link to /dev/stdout is that descriptor too) to a regular or
// missing file, which is Replaced (in a folder that must exist unless
// mkdirs), or to anything else, which is written Through. A directory, a
// folder that is not one, and standard input are refused.
func Resolve(name string, mkdirs bool) (Target, error) {
	if name == "" {
		return Target{}, errors.New("an output needs a file name (or - for standard output)")
	}
	p := name
	for range maxLinks {
		if fd, ok := descriptorName(p); ok {
			if fd == 0 {
				return Target{}, fmt.Errorf("write %s: that is standard input, which takes no output", name)
			}
			return Target{Name: name, Kind: Descriptor, FD: fd}, nil
		}
		info, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return replaced(name, p, mkdirs)
		case err != nil:
			if _, ferr := replaced(name, p, false); ferr != nil {
				return Target{}, ferr // the folder's fault, said plainly
			}
			return Target{}, fmt.Errorf("write %s: %w", name, PlainError(err))
		case info.Mode()&fs.ModeSymlink != 0:
			dest, err := os.Readlink(p)
			if err != nil {
				return Target{}, fmt.Errorf("write %s: %w", name, PlainError(err))
			}
			if !filepath.IsAbs(dest) {
				// A relative target starts from the folder the link
				// really sits in, as the kernel takes it: the links on
				// the way there followed first, so that a ".." leaves
				// the folder they lead to, not the one the name spells.
				// That folder exists (the link was just found in it).
				dir, err := filepath.EvalSymlinks(linkFolder(p))
				if err != nil {
					return Target{}, fmt.Errorf("write %s: %w", name, PlainError(err))
				}
				dest = filepath.Join(dir, dest)
			}
			p = dest
			continue
		case info.IsDir():
			return Target{}, fmt.Errorf("write %s: is a directory", name)
		case info.Mode().IsRegular():
			return replaced(name, p, mkdirs)
		default:
			return Target{Name: name, Kind: Through, File: p}, nil
		}
	}
	return Target{}, fmt.Errorf("write %s: too many levels of symbolic links", name)
}

// linkFolder is the folder holding p, spelled as in p: not cleaned, so that
// a ".." after a linked folder is resolved the kernel's way.
func linkFolder(p string) string {
	dir, _ := filepath.Split(p)
	if dir == "" {
		return "."
	}
	return dir
}

// replaced is the Target of a regular or missing file at p, whose folder
// must be one (or, with mkdirs, be missing).
func replaced(name, p string, mkdirs bool) (Target, error) {
	if strings.Contains(p, "..") {
		// The folder is the one the kernel finds, not the one the name
		// spells once cleaned (a2/../f, a2 a linked folder): the
		// temporary file goes there.
		if real, err := filepath.EvalSymlinks(linkFolder(p)); err == nil {
			p = filepath.Join(real, filepath.Base(p))
		}
	}
	dir := filepath.Dir(p)
	info, err := os.Stat(dir)
	switch {
	case err == nil && !info.IsDir():
		return Target{}, fmt.Errorf("write %s: %s is not a folder", name, dir)
	case errors.Is(err, fs.ErrNotExist) && mkdirs:
	case err != nil:
		return Target{}, fmt.Errorf("write %s: folder %s: %w", name, dir, PlainError(err))
	}
	return Target{Name: name, Kind: Replaced, File: p}, nil
}

// descriptorName recognises the names of the process's own descriptors.
// They are taken by name, before the file system is asked: /dev/stdout is a
// link whose target changes with every redirection, and following it would
// replace the file the shell redirected to, or /dev/stdout itself.
func descriptorName(p string) (int, bool) {
	switch p {
	case "-", "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	case "/dev/stdin":
		return 0, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(p, dir); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && strconv.Itoa(n) == rest {
				return n, true
			}
		}
	}
	return 0, false
}

// Same reports whether two targets are one output: the same descriptor, or
// the same file by name or by identity (hard links, links to one device).
func Same(a, b Target) bool {
	if a.Kind == Descriptor || b.Kind == Descriptor {
		return a.Kind == b.Kind && a.FD == b.FD
	}
	absA, errA := filepath.Abs(a.File)
	absB, errB := filepath.Abs(b.File)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	ia, errA := os.Stat(a.File)
	ib, errB := os.Stat(b.File)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}
