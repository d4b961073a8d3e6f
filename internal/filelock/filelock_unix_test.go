//go:build unix && !aix

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Two opens of one file exclude each other, in one process as across
// processes: the lock is the open file's.
func TestLockExcludesOtherOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	tryB := func() error { return unix.Flock(int(b.Fd()), unix.LOCK_EX|unix.LOCK_NB) }
	if err := tryB(); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Fatalf("a second open took the lock a holds: %v", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := tryB(); err != nil {
		t.Fatalf("the lock was not given back: %v", err)
	}
}
