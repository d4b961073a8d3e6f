package capture

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture/capturetest"
	"github.com/mcpsnoop/mcpsnoop/internal/filelock"
)

// A LogFile writes under the file's advisory lock: while another open of
// the file holds it (another shim appending a frame), a write waits, and
// lands after what the holder wrote.
func TestLogFileWritesUnderTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.jsonl")
	l, _, err := OpenLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	holder, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := filelock.Lock(holder); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.Write([]byte("{\"writer\":2}\n"))
		done <- err
	}()
	waiting, err := capturetest.WaitForLockWaiter(path, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !waiting {
		t.Fatal("the write did not wait for the lock")
	}
	holder.Write([]byte("{\"writer\":1}\n"))
	filelock.Unlock(holder)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\"writer\":1}\n{\"writer\":2}\n" {
		t.Errorf("the file holds %q", got)
	}
}
