//go:build unix

package capture

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenLogFileMakesItsFolder: a trace file in a folder that is not
// there yet (--trace-file recordings/x.jsonl) is recorded, its folders
// made as mkdir -p makes them; inside the state directory they are 0700
// like the rest of it. A folder that is a file is still an error.
func TestOpenLogFileMakesItsFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", filepath.Join(tmp, "state"))
	ref := filepath.Join(tmp, "ref")
	if err := os.Mkdir(ref, 0o755); err != nil { // the umask applied the same way
		t.Fatal(err)
	}
	info, _ := os.Stat(ref)
	public := info.Mode().Perm()
	t.Chdir(tmp)
	for _, tc := range []struct {
		path    string
		folders []string
		perm    os.FileMode
	}{
		{"recordings/x.jsonl", []string{"recordings"}, public},
		{filepath.Join(tmp, "a", "b", "y.jsonl"), []string{"a", filepath.Join("a", "b")}, public},
		{filepath.Join(tmp, "state", "mine", "z.jsonl"), []string{"state", filepath.Join("state", "mine")}, 0o700},
	} {
		f, path, err := OpenLogFile(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if _, err := f.Write([]byte("{}\n")); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if data, err := os.ReadFile(path); err != nil || string(data) != "{}\n" {
			t.Errorf("%s: %q, %v", path, data, err)
		}
		for _, d := range tc.folders {
			if info, err := os.Stat(filepath.Join(tmp, d)); err != nil || info.Mode().Perm() != tc.perm {
				t.Errorf("%s: folder %s is %v (%v), want %o", tc.path, d, info.Mode().Perm(), err, tc.perm)
			}
		}
	}
	os.WriteFile(filepath.Join(tmp, "plain"), nil, 0o644)
	if _, _, err := OpenLogFile(filepath.Join(tmp, "plain", "x.jsonl")); err == nil {
		t.Errorf("a log under a regular file was opened")
	}
}
