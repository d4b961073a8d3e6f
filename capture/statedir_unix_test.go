//go:build unix

package capture

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// noHome leaves mcpsnoop with no state directory of the user's choosing:
// the temporary one, under tmp, is used.
func noHome(t *testing.T) (tmp string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("MCPSNOOP_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("TMPDIR", tmp)
	return tmp
}

// With no home at all, the state directory is this user's own folder
// under the temporary directory, named after the uid and made 0700.
func TestStateDirWithoutHome(t *testing.T) {
	tmp := noHome(t)
	want := filepath.Join(tmp, "mcpsnoop-"+strconv.Itoa(os.Getuid()))
	if got := StateDir(); got != want {
		t.Fatalf("StateDir() = %s, want %s", got, want)
	}
	dir, err := MakeStateDir("sessions")
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(want, "sessions") {
		t.Errorf("made %s", dir)
	}
	for _, d := range []string{want, dir} {
		if info, err := os.Stat(d); err != nil || info.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, mode %v; want 0700", d, err, info.Mode().Perm())
		}
	}
	if _, _, err := OpenSessionLog("s-1-abc"); err != nil {
		t.Errorf("a session log in it: %v", err)
	}
}

// The temporary state directory is refused when someone else could have
// made it or may write in it: a folder others may write in, a link, a
// file, a folder of another user's. Nothing is written there.
func TestStateDirRefusesAForeignTempDir(t *testing.T) {
	type setup func(t *testing.T, dir string)
	tests := []struct {
		name  string
		setup setup
		want  string
	}{
		{"writable by all", func(t *testing.T, dir string) {
			mkdir(t, dir, 0o777)
		}, "others may write in it (mode 0777)"},
		{"writable by the group", func(t *testing.T, dir string) {
			mkdir(t, dir, 0o770)
		}, "others may write in it (mode 0770)"},
		{"a link to a private folder", func(t *testing.T, dir string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			mkdir(t, target, 0o700)
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		}, "it is a symbolic link, not a directory"},
		{"a file", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a directory"},
		{"another user's", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a folder to another user")
			}
			mkdir(t, dir, 0o700)
			if err := os.Chown(dir, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}, "it belongs to another user (uid 4242)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noHome(t)
			dir := StateDir()
			tt.setup(t, dir)
			_, err := MakeStateDir("replays")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "set MCPSNOOP_HOME") {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if _, _, err := OpenSessionLog("s-1-abc"); err == nil {
				t.Error("a session log was opened in it")
			}
			if _, err := os.Lstat(filepath.Join(dir, "replays")); !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				t.Errorf("something was made in it: %v", err)
			}
		})
	}
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// A state directory the user chose is used even when others may write in
// it, with a warning.
func TestStateDirWarnsAboutAChosenOne(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	t.Setenv("MCPSNOOP_HOME", dir)
	mkdir(t, dir, 0o700)
	if w := StateDirWarning(); w != "" {
		t.Errorf("a private folder is warned about: %s", w)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if w := StateDirWarning(); !strings.Contains(w, dir+" is writable by other users") {
		t.Errorf("warning %q", w)
	}
	if _, err := MakeStateDir("sessions"); err != nil {
		t.Errorf("the chosen folder is refused: %v", err)
	}
}

// Files mcpsnoop names itself in the state directory are never opened
// through a link, and only when they are regular files: a link planted at
// replays/<session>.jsonl does not make mcpsnoop write where it points.
func TestOpenStateFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "planted.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.jsonl")
	if err := os.Symlink(filepath.Join(dir, "created-by-link"), dangling); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const appendFlags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	for _, tt := range []struct {
		path, want string
		flag       int
	}{
		{link, "is a symbolic link", appendFlags},
		{dangling, "is a symbolic link", appendFlags},
		{fifo, "", os.O_RDONLY}, // refused as a FIFO (read: the open does not wait for a writer)
		{fifo, "", appendFlags}, // refused (write: no reader, no waiting either)
		{dir, "", os.O_RDONLY},
	} {
		f, err := OpenStateFile(tt.path, tt.flag, 0o600)
		if err == nil {
			f.Close()
			t.Errorf("%s: opened", tt.path)
			continue
		}
		if tt.want != "" && !errors.Is(err, ErrLinkRefused) {
			t.Errorf("%s: %v, want ErrLinkRefused", tt.path, err)
		}
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Errorf("the victim holds %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "created-by-link")); err == nil {
		t.Error("a file was created through a dangling link")
	}
	f, err := OpenStateFile(filepath.Join(dir, "new.jsonl"), appendFlags, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// OpenStateLog appends to a replay log as OpenLogFile does, ending a torn
// last line first, and refuses one planted as a link.
func TestOpenStateLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "replayed-session.jsonl")
	if err := os.WriteFile(path, []byte(`{"torn`), 0o600); err != nil {
		t.Fatal(err)
	}
	l, abs, err := OpenStateLog(path)
	if err != nil || abs != path {
		t.Fatalf("%v %s", err, abs)
	}
	l.Write([]byte("{}\n"))
	l.Close()
	if got, _ := os.ReadFile(path); string(got) != "{\"torn\n{}\n" {
		t.Errorf("the log holds %q", got)
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "planted.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenStateLog(link); !errors.Is(err, ErrLinkRefused) {
		t.Errorf("a planted link: %v", err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Errorf("the victim holds %q", got)
	}
}
