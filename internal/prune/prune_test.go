package prune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30d", 30 * 24 * time.Hour, ""},
		{" 1d ", 24 * time.Hour, ""},
		{"72h", 72 * time.Hour, ""},
		{"90m", 90 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"", 0, "--older-than is required, e.g. 30d or 72h"},
		{"0d", 0, "--older-than must be greater than zero"},
		{"0", 0, "--older-than must be greater than zero"},
		{"-1h", 0, "--older-than must be greater than zero"},
		{"-3d", 0, "--older-than must be greater than zero"},
		{"1.5d", 0, `invalid --older-than "1.5d": days must be a whole number, e.g. 30d`},
		{"d", 0, `invalid --older-than "d": days must be a whole number, e.g. 30d`},
		{"30", 0, `invalid --older-than "30": use whole days (30d) or a Go duration (72h)`},
		{"2w", 0, `invalid --older-than "2w": use whole days (30d) or a Go duration (72h)`},
		{"999999999d", 0, `invalid --older-than "999999999d": too many days`},
	}
	for _, tt := range tests {
		got, err := ParseAge(tt.in)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("ParseAge(%q) = %v, %q; want %v, %q", tt.in, got, msg, tt.want, tt.err)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {3, "3 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{1024*1024 - 1, "1.0 MiB"}, {5 * 1024 * 1024, "5.0 MiB"}, {3 << 30, "3.0 GiB"},
		{1<<63 - 1, "8.0 EiB"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestFindAndRemove(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-48 * time.Hour)
	write := func(name string, size int, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", size)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.jsonl", 1000, old)
	b := write("b.jsonl", 536, old)
	write("new.jsonl", 10, now)
	write("old.txt", 10, old)
	if err := os.Mkdir(filepath.Join(dir, "old.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	logs, err := Find(dir, now.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Path != a || logs[1].Path != b || TotalSize(logs) != 1536 {
		t.Fatalf("Find = %+v", logs)
	}
	n, size, errs := Remove(logs)
	if n != 2 || size != 1536 || len(errs) != 0 {
		t.Errorf("Remove = %d, %d, %v", n, size, errs)
	}
	left, _ := os.ReadDir(dir)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "link.jsonl new.jsonl old.jsonl old.txt" {
		t.Errorf("left %v", names)
	}
	if logs, err := Find(filepath.Join(dir, "missing"), now); err != nil || logs != nil {
		t.Errorf("missing folder: %v, %v", logs, err)
	}
}

// TestRemoveFailure: a log that cannot be removed is an error and is not
// counted; the others still go. (A non-empty folder in a log's place
// fails even for root, who may remove any file.)
func TestRemoveFailure(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(gone, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stuck := filepath.Join(dir, "b.jsonl")
	if err := os.MkdirAll(filepath.Join(stuck, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	removed, bytes, errs := Remove([]Log{{Path: stuck, Size: 100}, {Path: gone, Size: 3}, {Path: filepath.Join(dir, "already-gone.jsonl"), Size: 7}})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "b.jsonl") {
		t.Fatalf("errors %v, want one naming b.jsonl", errs)
	}
	if removed != 2 || bytes != 10 {
		t.Errorf("removed %d logs, %d bytes; want 2 and 10 (the missing one counts as gone)", removed, bytes)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("a.jsonl is still there")
	}
}
