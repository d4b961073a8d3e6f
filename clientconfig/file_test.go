package clientconfig

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const twoServers = "{\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"npx\", \"args\": [\"fs\"] },\n" +
	"    \"git\": {\n      \"command\": \"uvx\"\n    }\n  },\n  \"theme\": \"dark\"\n}\n"

func tempConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Wrap two servers, one at a time, then unwrap them: one backup, taken
// before the first wrap, and the file comes back byte for byte.
func TestWrapUnwrapRoundTrip(t *testing.T) {
	p := tempConfig(t, twoServers)
	bak := BackupPath(p)
	steps := []struct {
		do                        func() (Outcome, error)
		changed, created, restore bool
		removed, backupAfter      bool
	}{
		{do: func() (Outcome, error) { return WrapFile(p, "fs", opts, false) }, changed: true, created: true, backupAfter: true},
		{do: func() (Outcome, error) { return WrapFile(p, "fs", opts, false) }, backupAfter: true},
		{do: func() (Outcome, error) { return WrapFile(p, "git", opts, false) }, changed: true, backupAfter: true},
		{do: func() (Outcome, error) { return UnwrapFile(p, "fs", nil, false) }, changed: true, backupAfter: true},
		{do: func() (Outcome, error) { return UnwrapFile(p, "fs", nil, false) }, backupAfter: true},
		{do: func() (Outcome, error) { return UnwrapFile(p, "git", nil, false) }, changed: true, restore: true, removed: true},
	}
	for i, s := range steps {
		o, err := s.do()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if o.Changed != s.changed || o.BackupCreated != s.created || o.BackupRestored != s.restore || o.BackupRemoved != s.removed {
			t.Errorf("step %d: %+v", i, o)
		}
		if exists(bak) != s.backupAfter {
			t.Errorf("step %d: backup exists %v", i, exists(bak))
		}
		if s.backupAfter && read(t, bak) != twoServers {
			t.Errorf("step %d: backup is not the original:\n%s", i, read(t, bak))
		}
	}
	if got := read(t, p); got != twoServers {
		t.Errorf("not restored:\n%s", got)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", info.Mode().Perm())
	}
}

// When the file changed in other ways since the wrap, unwrap undoes only
// the wrap; the backup no longer matches and is removed all the same once
// nothing is wrapped.
func TestUnwrapAfterOtherEdits(t *testing.T) {
	p := tempConfig(t, twoServers)
	if _, err := WrapFile(p, "fs", opts, false); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(read(t, p), `"dark"`, `"light"`, 1)
	if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := UnwrapFile(p, "fs", nil, false)
	if err != nil || o.BackupRestored || !o.BackupRemoved {
		t.Fatalf("%+v, %v", o, err)
	}
	if got, want := read(t, p), strings.Replace(twoServers, `"dark"`, `"light"`, 1); !SameConfig([]byte(got), []byte(want)) {
		t.Errorf("got:\n%s", got)
	}
	if exists(BackupPath(p)) {
		t.Error("backup left behind")
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	p := tempConfig(t, twoServers)
	o, err := WrapFile(p, "fs", opts, true)
	if err != nil || !o.Changed || !o.BackupCreated || string(o.Entry) != `{"args":["--","npx","fs"],"command":"`+bin+`"}` {
		t.Fatalf("%+v %s, %v", o, o.Entry, err)
	}
	if read(t, p) != twoServers || exists(BackupPath(p)) {
		t.Error("dry run wrote")
	}
	if _, err := WrapFile(p, "fs", opts, false); err != nil {
		t.Fatal(err)
	}
	wrapped := read(t, p)
	o, err = UnwrapFile(p, "fs", nil, true)
	if err != nil || !o.Changed || !o.BackupRestored || !o.BackupRemoved {
		t.Fatalf("%+v, %v", o, err)
	}
	if read(t, p) != wrapped || !exists(BackupPath(p)) {
		t.Error("dry run wrote")
	}
}

// A change made between reading and writing the config wins: mcpsnoop
// writes nothing.
func TestConcurrentChange(t *testing.T) {
	p := tempConfig(t, twoServers)
	testHookBeforeWrite = func(path string) { os.WriteFile(path, []byte(twoServers+"\n"), 0o600) }
	t.Cleanup(func() { testHookBeforeWrite = nil })
	_, err := WrapFile(p, "fs", opts, false)
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err %v, want ErrChanged", err)
	}
	if read(t, p) != twoServers+"\n" {
		t.Error("the other writer's change was lost")
	}
}

func TestMissingConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	for _, f := range []func() (Outcome, error){
		func() (Outcome, error) { return WrapFile(p, "fs", opts, false) },
		func() (Outcome, error) { return UnwrapFile(p, "fs", nil, false) },
	} {
		_, err := f()
		var ie *InputError
		if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &ie) {
			t.Errorf("err %v", err)
		}
	}
	if exists(p) || exists(BackupPath(p)) {
		t.Error("created files")
	}
}

// A config that is a symbolic link stays one; its target is edited.
func TestSymlinkedConfig(t *testing.T) {
	target := tempConfig(t, twoServers)
	link := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, err := WrapFile(link, "fs", opts, false); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v", err)
	}
	if !AnyWrapped([]byte(read(t, target))) {
		t.Error("target not wrapped")
	}
	if _, err := UnwrapFile(link, "fs", nil, false); err != nil {
		t.Fatal(err)
	}
	if read(t, target) != twoServers || exists(BackupPath(link)) {
		t.Error("not restored")
	}
}
