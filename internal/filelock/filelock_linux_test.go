package filelock

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitForWaiter waits until an open of the file at path waits for its
// flock lock, as /proc/locks shows it.
func waitForWaiter(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	inode := fmt.Sprintf(":%d ", info.Sys().(*syscall.Stat_t).Ino)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if strings.Contains(line, "->") && strings.Contains(line, inode) {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("nobody waited for the lock")
}

// A file replaced by a rename while a caller waited for its lock is let
// go: OpenLocked returns the file the path names now, locked, so a second
// editor works on the first one's result, not on the file it replaced.
func TestOpenLockedFollowsARename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := OpenLocked(path, Open)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *os.File, 1)
	go func() {
		f, err := OpenLocked(path, Open)
		if err != nil {
			t.Error(err)
		}
		got <- f
	}()
	waitForWaiter(t, path)
	tmp := filepath.Join(dir, "new")
	if err := os.WriteFile(tmp, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	first.Close()
	second := <-got
	if second == nil {
		t.FailNow()
	}
	defer second.Close()
	buf := make([]byte, 8)
	n, _ := second.Read(buf)
	if string(buf[:n]) != "new" {
		t.Errorf("the second editor holds %q, the file the rename replaced", buf[:n])
	}
}
