package capture

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture/capturetest"
	"github.com/mcpsnoop/mcpsnoop/internal/filelock"
)

// Trust edits trusted.json under its lock: while another trust holds it,
// a second one waits, then reads what the first wrote, so both records
// land.
func TestTrustWaitsForTheLock(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	if _, err := Trust("/projects/a/.mcpsnoop.toml", "a"); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(StateDir(), TrustFile)
	held, err := filelock.OpenLocked(record, filelock.Open)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Trust("/projects/b/.mcpsnoop.toml", "b")
		done <- err
	}()
	waiting, err := capturetest.WaitForLockWaiter(record, 30*time.Second)
	if err != nil || !waiting {
		held.Close()
		t.Fatalf("the second trust did not wait for the lock: %v", err)
	}
	// What the holder writes meanwhile is what the waiter reads.
	data := []byte(`{"files":[{"path":"/projects/a/.mcpsnoop.toml","sha256":"a"},{"path":"/projects/c/.mcpsnoop.toml","sha256":"c"}]}`)
	if err := os.WriteFile(record+".new", data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(record+".new", record); err != nil {
		t.Fatal(err)
	}
	held.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	files, err := TrustedConfigs()
	if err != nil || len(files) != 3 {
		t.Errorf("records %+v, %v; want a, b and c", files, err)
	}
}
