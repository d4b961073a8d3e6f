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
	os.WriteFile(a, []byte("old a"), 0o600)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644)

	tests := []struct {
		name  string
		files []File
		err   string
	}{
		{name: "missing folder", files: []File{{Path: a, Data: []byte("new")}, {Path: filepath.Join(dir, "nope", "x"), Data: []byte("x")}},
			err: "write " + filepath.Join(dir, "nope", "x") + ": folder " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{name: "directory target", files: []File{{Path: a, Data: []byte("new")}, {Path: filepath.Join(dir, "sub"), Data: []byte("x")}},
			err: "write " + filepath.Join(dir, "sub") + ": is a directory"},
		{name: "folder that is a file", files: []File{{Path: a, Data: []byte("new")}, {Path: filepath.Join(dir, "plain", "x"), Data: []byte("x")}},
			err: "write " + filepath.Join(dir, "plain", "x") + ": " + filepath.Join(dir, "plain") + " is not a folder"},
		{name: "standard input", files: []File{{Path: a, Data: []byte("new")}, {Path: "/dev/stdin", Data: []byte("x")}},
			err: "write /dev/stdin: that is standard input, which takes no output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteAll(tt.files, Options{})
			if err == nil || err.Error() != tt.err {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if got, _ := os.ReadFile(a); string(got) != "old a" {
				t.Errorf("a.txt changed to %q", got)
			}
			assertNoTemps(t, dir)
		})
	}
	if err := WriteAll([]File{{Path: a, Data: []byte("new a"), Perm: 0o644}, {Path: b, Data: []byte("b"), Perm: 0o640}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "new a" {
		t.Errorf("a = %q", got)
	}
	// An existing file keeps its mode; a new one gets the one asked for.
	if info, _ := os.Stat(a); info.Mode().Perm() != 0o600 {
		t.Errorf("a mode = %v, want the file's own 0600", info.Mode())
	}
	if info, _ := os.Stat(b); info.Mode().Perm() != 0o640 {
		t.Errorf("b mode = %v, want 0640", info.Mode())
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
