package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("old a"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)

	tests := []struct {
		name  string
		files []File
		err   string
	}{
		{name: "missing folder", files: []File{{Path: a, Data: []byte("new")}, {Path: filepath.Join(dir, "nope", "x"), Data: []byte("x")}},
			err: "write " + filepath.Join(dir, "nope", "x") + ": folder " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{name: "directory target", files: []File{{Path: a, Data: []byte("new")}, {Path: filepath.Join(dir, "sub"), Data: []byte("x")}},
			err: "write " + filepath.Join(dir, "sub") + ": is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteAll(tt.files)
			if err == nil || err.Error() != tt.err {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if got, _ := os.ReadFile(a); string(got) != "old a" {
				t.Errorf("a.txt changed to %q", got)
			}
			assertNoTemps(t, dir)
		})
	}
	if err := WriteAll([]File{{Path: a, Data: []byte("new a"), Perm: 0o600}, {Path: b, Data: []byte("b"), Perm: 0o644}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "new a" {
		t.Errorf("a = %q", got)
	}
	if info, _ := os.Stat(a); info.Mode().Perm() != 0o600 {
		t.Errorf("a mode = %v", info.Mode())
	}
	assertNoTemps(t, dir)
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}
