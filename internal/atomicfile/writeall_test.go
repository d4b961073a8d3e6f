package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteAll replaces no output when any one of them fails, wherever the
// failing one stands in the list: a temporary file the folder refuses,
// or a write that fails going through to a device (a full disk).
func TestWriteAllReplacesNothingWhenOneFails(t *testing.T) {
	refuse := func(name string) func(string, string) (*os.File, error) {
		return func(dir, pattern string) (*os.File, error) {
			if strings.HasPrefix(pattern, "."+name+".tmp-") {
				return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: errors.New("no space left on device")}
			}
			return os.CreateTemp(dir, pattern)
		}
	}
	_, fullErr := os.Stat("/dev/full")
	for _, tt := range []struct {
		name    string
		files   []string // "a", "b" (files in the folder) or a device path
		refused string   // the file whose temporary file is refused
		device  bool     // needs /dev/full
	}{
		{name: "the last refused", files: []string{"a", "b"}, refused: "b"},
		{name: "the first refused", files: []string{"a", "b"}, refused: "a"},
		{name: "a full device after a file", files: []string{"a", "/dev/full"}, device: true},
		{name: "a full device before a file", files: []string{"/dev/full", "a"}, device: true},
		{name: "a full device between files", files: []string{"a", "/dev/full", "b"}, device: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.device && fullErr != nil {
				t.Skip("no /dev/full here")
			}
			dir := t.TempDir()
			var files []File
			for _, n := range tt.files {
				p := n
				if !strings.HasPrefix(n, "/") {
					p = filepath.Join(dir, n)
					if err := os.WriteFile(p, []byte("old "+n), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				files = append(files, File{Path: p, Data: []byte("new " + n), Perm: 0o600})
			}
			if tt.refused != "" {
				createTemp = refuse(tt.refused)
				defer func() { createTemp = os.CreateTemp }()
			}
			if err := WriteAll(files, Options{}); err == nil {
				t.Fatal("WriteAll succeeded")
			}
			for _, n := range tt.files {
				if strings.HasPrefix(n, "/") {
					continue
				}
				if got, _ := os.ReadFile(filepath.Join(dir, n)); string(got) != "old "+n {
					t.Errorf("%s was replaced: %q", n, got)
				}
			}
			assertNoTemps(t, dir)
		})
	}
}
