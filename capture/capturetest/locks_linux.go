package capturetest

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// WaitForLockWaiter waits until some process or open file waits for a
// flock(2) lock on the file at path, as /proc/locks shows it (a "->"
// entry for its inode), and reports whether one did within limit. A test
// uses it to know that a writer reached the lock the test holds, without
// sleeping on a guess.
func WaitForLockWaiter(path string, limit time.Duration) (bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return false, fmt.Errorf("%s: no inode", path)
	}
	inode := fmt.Sprintf(":%d ", st.Ino)
	deadline := time.Now().Add(limit)
	for {
		data, err := os.ReadFile("/proc/locks")
		if err != nil {
			return false, err
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if strings.Contains(line, "->") && strings.Contains(line, "FLOCK") && strings.Contains(line, inode) {
				return true, nil
			}
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		time.Sleep(time.Millisecond)
	}
}
