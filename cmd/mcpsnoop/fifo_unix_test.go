//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// makeFIFO makes a FIFO in a temporary folder and returns its path.
func makeFIFO(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// readFIFO opens the FIFO's reading end before a command writes to it (so
// the writer's open does not wait) and returns a function that, once the
// command is done, reads what it wrote. The pipe holds 64 KiB, so outputs
// must stay under that. A command that never wrote (or replaced the FIFO)
// gives "", never a hang.
func readFIFO(t *testing.T, path string) func() string {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func() string {
		b, _ := io.ReadAll(f)
		return string(b)
	}
}
