package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPendingCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Create(target, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.Write([]byte("half"))
	p.Abort()
	if data, _ := os.ReadFile(target); string(data) != "old" {
		t.Errorf("Abort changed the target: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Abort left %d files", len(entries))
	}

	p, err = Create(target, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.Write([]byte("new "))
	p.Write([]byte("content"))
	if data, _ := os.ReadFile(target); string(data) != "old" {
		t.Errorf("the target changed before Commit: %q", data)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	p.Abort() // a no-op after Commit
	info, _ := os.Stat(target)
	if data, _ := os.ReadFile(target); string(data) != "new content" || info.Mode().Perm() != 0o644 {
		t.Errorf("after Commit: %q, mode %v", data, info.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Commit left %d files", len(entries))
	}
	if _, err := Create(filepath.Join(dir, "missing", "x"), 0o644); err == nil {
		t.Errorf("Create in a missing folder succeeded")
	}
}
