//go:build unix

package main

import (
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
