//go:build unix

package capture

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A config is read only from a regular file: a FIFO (which would hang the
// shim before its server starts), a link to a device (/dev/zero would fill
// memory; /dev/null is the harmless stand-in here), a folder are refused
// with the kind named, at once.
func TestLoadConfigOnlyFromARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	device := filepath.Join(dir, "device")
	if err := os.Symlink("/dev/null", device); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, []byte("label = x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(regular, linked); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{fifo, "a FIFO, not a regular file"},
		{device, "a character device, not a regular file"},
		{folder, "a directory, not a regular file"},
	} {
		if _, err := LoadConfig(tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.path, err, tt.want)
		}
	}
	if c, err := LoadConfig(linked); err != nil || *c.Label != "x" {
		t.Errorf("a link to a regular file: %+v %v", c, err)
	}
}
