//go:build unix

package capture

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO cannot reserve (ErrCannotReserve), which is no failure: its log
// is not marked unreserved.
func TestReserveNextToFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "log.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := reserveNextTo(r, 512); !errors.Is(err, ErrCannotReserve) {
		t.Errorf("a FIFO: %v", err)
	}
	if release, failed := tryReserve(r, 512); release != nil || failed {
		t.Errorf("a FIFO: release %v failed %v", release != nil, failed)
	}
}
