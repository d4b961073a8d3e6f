//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// TestLinkToDeviceOrFIFO is the /dev/stdout case, rebuilt in a temporary
// folder so that a broken rule can harm nothing of the machine's: a
// symbolic link to a character device, or to a FIFO, is written through,
// and the link, the device and the FIFO all stay what they were.
func TestLinkToDeviceOrFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink(fifo, filepath.Join(dir, "to-fifo"))
	// The reading end is opened first (so the writer's open does not
	// wait) and read once the write is done: a rule that never wrote, or
	// replaced the FIFO, reads as "" rather than hanging.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteAll([]File{{Path: filepath.Join(dir, "to-fifo"), Data: []byte("through the fifo"), Perm: 0o644}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "through the fifo" {
		t.Errorf("the fifo's reader got %q", b)
	}
	assertKind(t, filepath.Join(dir, "to-fifo"), os.ModeSymlink)
	assertKind(t, fifo, os.ModeNamedPipe)

	// A character device of our own: /dev/null's numbers (1, 3) on Linux,
	// made here so that the machine's /dev/null is never at stake. Making
	// one needs root, and a folder not mounted nodev.
	if runtime.GOOS != "linux" {
		return
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Logf("no character device of our own (%v); the device case is left to root", err)
		return
	}
	if f, err := os.OpenFile(null, os.O_WRONLY, 0); err != nil {
		t.Logf("the device made here cannot be opened (%v); skipping the device case", err)
		return
	} else {
		f.Close()
	}
	os.Symlink(null, filepath.Join(dir, "stdout"))
	for _, name := range []string{"stdout", "null"} {
		tg, err := Resolve(filepath.Join(dir, name), false)
		if err != nil || tg.Kind != Through || tg.File != null {
			t.Errorf("Resolve(%s) = %+v, %v; want written through to %s", name, tg, err, null)
		}
		if err := Write(filepath.Join(dir, name), []byte("to the device"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	assertKind(t, filepath.Join(dir, "stdout"), os.ModeSymlink)
	assertKind(t, null, os.ModeDevice|os.ModeCharDevice)
	assertNoTemps(t, dir)
}

// TestDescriptorN: /dev/fd/N writes to descriptor N as it is: a regular
// file open on it gets the bytes at its offset and is not replaced.
func TestDescriptorN(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fd-target")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("kept|")
	before, _ := os.Stat(path)
	name := "/dev/fd/" + strconv.Itoa(int(f.Fd()))
	if err := WriteAll([]File{{Path: name, Data: []byte("written"), Perm: 0o644}}, Options{}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if got, _ := os.ReadFile(path); string(got) != "kept|written" || !os.SameFile(before, after) {
		t.Errorf("%s: file holds %q, same file %v", name, got, os.SameFile(before, after))
	}
	if _, err := Open("/dev/fd/987", 0o644, Options{}); err == nil {
		t.Errorf("a descriptor that is not open was accepted")
	}
}

// TestRelativeLinkUnderLinkedFolder: a relative link target is taken from
// the folder the link really sits in, as the kernel takes it. Under a
// linked folder a2 -> b/c, the link a2/l -> ../x names b/x, not the x
// beside a2; the same goes for a link not yet pointing at anything, and
// for a name that steps out of a linked folder with "..".
func TestRelativeLinkUnderLinkedFolder(t *testing.T) {
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	os.MkdirAll(path("b/c"), 0o755)
	os.Symlink("b/c", path("a2"))
	os.Symlink("../x", path("b/c/l"))
	os.Symlink("../new", path("b/c/dangling"))
	os.Symlink("x", path("b/n"))
	os.WriteFile(path("x"), []byte("unrelated"), 0o644)
	os.WriteFile(path("b/x"), []byte("old"), 0o644)
	os.WriteFile(path("b/plain"), []byte("old"), 0o644)
	os.WriteFile(path("plain"), []byte("unrelated"), 0o644)

	for _, w := range []struct{ name, data, file string }{
		{"a2/l", "via a2/l", "b/x"},
		{"a2/dangling", "created", "b/new"},
		{"a2/../n", "via a2/../n", "b/x"},
		{"a2/../plain", "via a2/../plain", "b/plain"},
	} {
		// filepath.Join would clean the name's ".." away: it is built by hand.
		name := dir + string(filepath.Separator) + w.name
		tg, err := Resolve(name, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(name, []byte(w.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path(w.file)); string(got) != w.data {
			t.Errorf("write %s: %s holds %q, want %q", w.name, w.file, got, w.data)
		}
		// Compared once written, by identity: the temporary folder's own
		// path may run through a link (macOS's /tmp).
		if !Same(tg, Target{Kind: Replaced, File: path(w.file)}) {
			t.Errorf("Resolve(%s) = %s, want %s", w.name, tg.File, path(w.file))
		}
		// The temporary file goes beside the file written.
		got, _ := os.Stat(filepath.Dir(tg.File))
		want, _ := os.Stat(filepath.Dir(path(w.file)))
		if got == nil || want == nil || !os.SameFile(got, want) {
			t.Errorf("Resolve(%s): the temporary file would go to %s, not beside %s", w.name, filepath.Dir(tg.File), w.file)
		}
	}
	for _, n := range []string{"x", "plain"} {
		if got, _ := os.ReadFile(path(n)); string(got) != "unrelated" {
			t.Errorf("the unrelated %s beside a2 was replaced: it holds %q", n, got)
		}
	}
	if _, err := os.Lstat(path("new")); err == nil {
		t.Errorf("the dangling link's write landed beside a2")
	}
	for _, l := range []string{"a2", "b/c/l", "b/c/dangling", "b/n"} {
		assertKind(t, path(l), os.ModeSymlink)
	}
	assertNoTemps(t, dir)
	assertNoTemps(t, path("b"))
}

func assertKind(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil || info.Mode().Type() != want {
		t.Errorf("%s: %v (%v), want type %v", path, info.Mode().Type(), err, want)
	}
}

// TestMkdirAllDirPerm: the folders MkdirAll makes get DirPerm under the
// umask, as mkdir -p would (a report folder others may read), and 0700
// without it.
func TestMkdirAllDirPerm(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	if err := os.Mkdir(ref, 0o755); err != nil { // the umask applied the same way
		t.Fatal(err)
	}
	want, _ := os.Stat(ref)
	for _, tc := range []struct {
		perm os.FileMode
		want os.FileMode
	}{{0o755, want.Mode().Perm()}, {0, 0o700}} {
		nested := filepath.Join(dir, "m"+strconv.Itoa(int(tc.perm)), "a", "b.json")
		if err := WriteAll([]File{{Path: nested, Data: []byte("x"), Perm: 0o644}}, Options{MkdirAll: true, DirPerm: tc.perm}); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{filepath.Dir(nested), filepath.Dir(filepath.Dir(nested))} {
			if info, err := os.Stat(d); err != nil || info.Mode().Perm() != tc.want {
				t.Errorf("DirPerm %o: %s is %v (%v), want %o", tc.perm, d, info.Mode().Perm(), err, tc.want)
			}
		}
	}
}
