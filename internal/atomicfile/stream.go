package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Pending is a file being written in pieces, too large to hold in memory:
// the pieces go to a temporary file in the target's folder, and Commit
// renames it over the target. Until then the target is untouched.
type Pending struct {
	path string
	perm os.FileMode
	tmp  *os.File
}

// Create starts writing path through a temporary file beside it.
func Create(path string, perm os.FileMode) (*Pending, error) {
	if err := checkTarget(path); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, PlainError(err))
	}
	return &Pending{path: path, perm: perm, tmp: tmp}, nil
}

// Write writes to the temporary file.
func (p *Pending) Write(b []byte) (int, error) {
	n, err := p.tmp.Write(b)
	if err != nil {
		err = fmt.Errorf("write %s: %w", p.path, PlainError(err))
	}
	return n, err
}

// Commit syncs the temporary file and renames it over the target.
func (p *Pending) Commit() error {
	err := p.tmp.Chmod(p.perm)
	if err == nil {
		err = p.tmp.Sync()
	}
	if cerr := p.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.tmp.Name(), p.path)
	}
	if err != nil {
		os.Remove(p.tmp.Name())
		return fmt.Errorf("write %s: %w", p.path, PlainError(err))
	}
	return nil
}

// Abort drops the temporary file and leaves the target as it was. It is a
// no-op after Commit.
func (p *Pending) Abort() {
	if p.tmp.Close() == nil {
		os.Remove(p.tmp.Name())
	}
}
