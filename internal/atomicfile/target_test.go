package atomicfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestResolveNames: the descriptor names are taken by name, without asking
// the file system (these cases never write anything, so the machine's own
// /dev/stdout is safe even as root).
func TestResolveNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind Kind
		fd   int
	}{
		{"-", Descriptor, 1},
		{"/dev/stdout", Descriptor, 1},
		{"/dev/stderr", Descriptor, 2},
		{"/dev/fd/1", Descriptor, 1},
		{"/dev/fd/2", Descriptor, 2},
		{"/dev/fd/7", Descriptor, 7},
		{"/proc/self/fd/9", Descriptor, 9},
	} {
		got, err := Resolve(tc.name, false)
		if err != nil || got.Kind != tc.kind || got.FD != tc.fd || got.Name != tc.name {
			t.Errorf("Resolve(%q) = %+v, %v; want %v fd %d", tc.name, got, err, tc.kind, tc.fd)
		}
	}
	for _, name := range []string{"/dev/stdin", "/dev/fd/0"} {
		if _, err := Resolve(name, false); err == nil || !strings.Contains(err.Error(), "standard input") {
			t.Errorf("Resolve(%q) = %v, want a refusal naming standard input", name, err)
		}
	}
	for _, name := range []string{"/dev/fd/01", "/dev/fd/x", "/dev/fd/-1"} {
		if fd, ok := descriptorName(name); ok {
			t.Errorf("%q read as descriptor %d", name, fd)
		}
	}
	if _, err := Resolve("", false); err == nil {
		t.Errorf("an empty name resolved")
	}
}

// TestDescriptorWrittenThrough: - writes to the command's stdout as it is,
// also when that is a regular file (a shell redirection): appended at its
// offset, never replaced.
func TestDescriptorWrittenThrough(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAll([]File{{Path: "-", Data: []byte("report\n")}}, Options{Stdout: &buf}); err != nil || buf.String() != "report\n" {
		t.Fatalf("- wrote %q, %v", buf.String(), err)
	}
	var errBuf bytes.Buffer
	out, err := Open("/dev/stderr", 0o644, Options{Stderr: &errBuf})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(out, "to stderr")
	if err := out.Commit(); err != nil || errBuf.String() != "to stderr" {
		t.Fatalf("/dev/stderr wrote %q, %v", errBuf.String(), err)
	}

	dir := t.TempDir()
	redirected := filepath.Join(dir, "redirected.txt")
	f, err := os.OpenFile(redirected, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("earlier output\n")
	before, _ := os.Stat(redirected)
	if err := WriteAll([]File{{Path: "/dev/stdout", Data: []byte("report\n"), Perm: 0o644}}, Options{Stdout: f}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(redirected)
	if got, _ := os.ReadFile(redirected); string(got) != "earlier output\nreport\n" || !os.SameFile(before, after) {
		t.Errorf("the redirected file holds %q (same file: %v); want the report after the earlier output, in the same file",
			got, os.SameFile(before, after))
	}
	assertNoTemps(t, dir)
}

// TestRegularFilesAndLinks: a regular file is replaced (a new inode, no
// temp file left), a symbolic link has its target replaced and stays a link
// (also through a chain of relative links, and a dangling one, whose
// target is created), and two names for one file are one output.
func TestRegularFilesAndLinks(t *testing.T) {
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(path("report.json"), []byte("old"), 0o640)
	os.Mkdir(path("real"), 0o755)
	os.WriteFile(path("real/target.json"), []byte("old target"), 0o600)
	os.Symlink("real/target.json", path("link.json"))
	os.Symlink("link.json", path("chain.json"))
	os.Symlink(path("real/new.json"), path("dangling.json"))
	os.Symlink("loop-b", path("loop-a"))
	os.Symlink("loop-a", path("loop-b"))
	os.Link(path("report.json"), path("hard.json"))

	before, _ := os.Stat(path("report.json"))
	if err := Write(path("report.json"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path("report.json"))
	if got, _ := os.ReadFile(path("report.json")); string(got) != "new" || os.SameFile(before, after) || after.Mode().Perm() != 0o640 {
		t.Errorf("regular file: %q, replaced %v, mode %v; want new content in a new file with the old mode", got, !os.SameFile(before, after), after.Mode().Perm())
	}

	for _, link := range []string{"link.json", "chain.json"} {
		if err := Write(path(link), []byte("via "+link), 0o644); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(path(link)); err != nil || info.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", link)
		}
		if got, _ := os.ReadFile(path("real/target.json")); string(got) != "via "+link {
			t.Errorf("%s: target holds %q", link, got)
		}
	}
	if err := Write(path("dangling.json"), []byte("created"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path("real/new.json")); string(got) != "created" {
		t.Errorf("a dangling link's target holds %q", got)
	}
	if info, err := os.Lstat(path("dangling.json")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced")
	}
	if _, err := Resolve(path("loop-a"), false); err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
		t.Errorf("a link loop: %v", err)
	}
	assertNoTemps(t, dir)
	assertNoTemps(t, path("real"))

	os.WriteFile(path("h1"), []byte("one file"), 0o644)
	os.Link(path("h1"), path("h2"))
	resolve := func(n string) Target {
		tg, err := Resolve(n, false)
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	same := []struct {
		a, b string
		want bool
	}{
		{path("link.json"), path("real/target.json"), true},
		{path("chain.json"), path("real/../real/target.json"), true},
		{path("h1"), path("h2"), true},                  // hard links
		{path("hard.json"), path("report.json"), false}, // no longer: report.json was replaced
		{"-", "/dev/stdout", true},
		{"/dev/fd/2", "/dev/stderr", true},
		{"-", "/dev/stderr", false},
		{path("link.json"), path("report.json"), false},
		{path("missing-a"), path("missing-b"), false},
	}
	for _, s := range same {
		if got := Same(resolve(s.a), resolve(s.b)); got != s.want {
			t.Errorf("Same(%s, %s) = %v", s.a, s.b, got)
		}
	}
}

// TestInPlaceWhenNoTempFileIsAllowed: a folder that refuses the temporary
// file fails the write, unless Options.InPlace allows writing an existing
// file in place, which is then said first.
func TestInPlaceWhenNoTempFileIsAllowed(t *testing.T) {
	defer func(orig func(string, string) (*os.File, error)) { createTemp = orig }(createTemp)
	createTemp = func(dir, _ string) (*os.File, error) {
		return nil, &os.PathError{Op: "open", Path: dir, Err: syscall.EACCES}
	}
	dir := t.TempDir()
	existing := filepath.Join(dir, "report.json")
	os.WriteFile(existing, []byte("an old report, longer than the new"), 0o644)
	before, _ := os.Stat(existing)

	if err := Write(existing, []byte("new"), 0o644); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("without InPlace: %v, want permission denied", err)
	}
	var said []string
	o := Options{InPlace: func(reason string) { said = append(said, reason) }}
	if err := WriteAll([]File{{Path: existing, Data: []byte("new"), Perm: 0o644}}, o); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(existing)
	if got, _ := os.ReadFile(existing); string(got) != "new" || !os.SameFile(before, after) {
		t.Errorf("in place: %q (same file %v)", got, os.SameFile(before, after))
	}
	if len(said) != 1 || !strings.Contains(said[0], "report.json") || !strings.Contains(said[0], "in place") {
		t.Errorf("InPlace was told %q", said)
	}
	// A missing file cannot be written in place.
	if err := WriteAll([]File{{Path: filepath.Join(dir, "new.json"), Data: []byte("x")}}, o); err == nil {
		t.Errorf("a missing file was written in a folder that takes no file")
	}
}

// TestStreamAbortLeavesTarget: a streamed output replaces its file only on
// Commit; Abort leaves it as it was, and MkdirAll makes a missing folder.
func TestStreamAbortLeavesTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	os.WriteFile(target, []byte("old"), 0o600)
	out, err := Open(target, 0o644, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out.Write([]byte("half"))
	out.Abort()
	if data, _ := os.ReadFile(target); string(data) != "old" {
		t.Errorf("Abort changed the target: %q", data)
	}
	out, err = Open(target, 0o644, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out.Write([]byte("new "))
	out.Write([]byte("content"))
	if data, _ := os.ReadFile(target); string(data) != "old" {
		t.Errorf("the target changed before Commit: %q", data)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	out.Abort() // a no-op after Commit
	if data, _ := os.ReadFile(target); string(data) != "new content" {
		t.Errorf("after Commit: %q", data)
	}
	assertNoTemps(t, dir)

	nested := filepath.Join(dir, "a", "b", "c.json")
	if _, err := Open(nested, 0o644, Options{}); err == nil {
		t.Errorf("Open in a missing folder succeeded without MkdirAll")
	}
	out, err = Open(nested, 0o644, Options{MkdirAll: true})
	if err != nil {
		t.Fatal(err)
	}
	out.Write([]byte("x"))
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, "a")); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("made folder: %v, %v", info, err)
	}
}
