package clientconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// manyServers is a config of n servers s00, s01, ...
func manyServers(n int) string {
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := range n {
		sep := ","
		if i == n-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    \"s%02d\": { \"command\": \"server\", \"args\": [\"%d\"] }%s\n", i, i, sep)
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// Forty wraps of one file at once, each of its own server: every one
// lands (each reads the file another left, under the lock), and the
// backup holds the file as it was before any of them.
func TestWrapAtOnce(t *testing.T) {
	const n = 40
	original := manyServers(n)
	p := tempConfig(t, original)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if o, err := WrapFile(p, fmt.Sprintf("s%02d", i), opts, false); err != nil || !o.Changed {
				t.Errorf("s%02d: %+v %v", i, o, err)
			}
		}()
	}
	wg.Wait()
	servers, _, err := Servers([]byte(read(t, p)), nil)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := 0
	for _, s := range servers {
		if s.Wrapped {
			wrapped++
		}
	}
	if wrapped != n {
		t.Errorf("%d of %d servers are wrapped", wrapped, n)
	}
	if read(t, BackupPath(p)) != original {
		t.Error("the backup is not the file before the first wrap")
	}
}

// A read-only config is refused with a message, and left as it is, with
// no backup made; a dry run still shows what would change.
func TestReadOnlyConfig(t *testing.T) {
	p := tempConfig(t, twoServers)
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() (Outcome, error){
		func() (Outcome, error) { return WrapFile(p, "fs", opts, false) },
		func() (Outcome, error) { return UnwrapFile(p, "fs", nil, false) },
	} {
		_, err := f()
		if err == nil {
			continue // unwrap of a server that is not wrapped: nothing to write
		}
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), p+" is read-only") {
			t.Errorf("err %v", err)
		}
	}
	if _, err := WrapFile(p, "fs", opts, false); err == nil {
		t.Fatal("a read-only config was wrapped")
	}
	if read(t, p) != twoServers || exists(BackupPath(p)) {
		t.Error("the read-only config was changed, or a backup made")
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o444 {
		t.Errorf("mode %v", info.Mode().Perm())
	}
	if o, err := WrapFile(p, "fs", opts, true); err != nil || !o.Changed {
		t.Errorf("dry run: %+v %v", o, err)
	}
}

// A config with another hard link (a dotfile manager's) is edited in
// place: both names see the wrap and the unwrap, and stay one file.
func TestHardLinkedConfig(t *testing.T) {
	p := tempConfig(t, twoServers)
	twin := filepath.Join(t.TempDir(), "twin.json")
	if err := os.Link(p, twin); err != nil {
		t.Skip("no hard links here:", err)
	}
	same := func(step string) {
		t.Helper()
		a, errA := os.Stat(p)
		b, errB := os.Stat(twin)
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			t.Fatalf("%s: the config was split from its twin", step)
		}
	}
	if _, err := WrapFile(p, "fs", opts, false); err != nil {
		t.Fatal(err)
	}
	same("wrap")
	if !AnyWrapped([]byte(read(t, twin))) || read(t, BackupPath(p)) != twoServers {
		t.Errorf("twin %s\nbackup %s", read(t, twin), read(t, BackupPath(p)))
	}
	if _, err := WrapFile(p, "git", opts, false); err != nil {
		t.Fatal(err)
	}
	same("second wrap")
	if _, err := UnwrapFile(p, "fs", nil, false); err != nil {
		t.Fatal(err)
	}
	same("unwrap")
	// The backup is gone by hand: the last unwrap still writes in place,
	// with a backup of its own while it does.
	if err := os.Remove(BackupPath(p)); err != nil {
		t.Fatal(err)
	}
	o, err := UnwrapFile(p, "git", nil, false)
	if err != nil || !o.Changed {
		t.Fatalf("%+v %v", o, err)
	}
	same("last unwrap")
	if AnyWrapped([]byte(read(t, twin))) || exists(BackupPath(p)) {
		t.Errorf("twin %s, backup left %v", read(t, twin), exists(BackupPath(p)))
	}
	if !SameConfig([]byte(read(t, p)), []byte(twoServers)) {
		t.Errorf("unwrapped:\n%s", read(t, p))
	}
}

// Unwrap takes out only what wrap put in: an edit made since, to a
// comment or to another entry, stays; the entry itself gets back the bytes
// it had (wrap re-encoded it); and an entry edited since keeps its edit.
func TestUnwrapKeepsLaterEdits(t *testing.T) {
	const original = "// my servers\n{\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"npx\", \"args\": [\"fs\"] },\n" +
		"    \"git\": {\"command\": \"uvx\"}\n  },\n  \"theme\": \"dark\" // or light\n}\n"
	t.Run("a comment edited elsewhere", func(t *testing.T) {
		p := tempConfig(t, original)
		if _, err := WrapFile(p, "fs", opts, false); err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(read(t, p), "// my servers", "// my servers, reviewed", 1)
		if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		o, err := UnwrapFile(p, "fs", nil, false)
		if err != nil || o.BackupRestored || !o.BackupRemoved {
			t.Fatalf("%+v %v", o, err)
		}
		if want := strings.Replace(original, "// my servers", "// my servers, reviewed", 1); read(t, p) != want {
			t.Errorf("got:\n%s\nwant:\n%s", read(t, p), want)
		}
	})
	t.Run("nothing edited", func(t *testing.T) {
		p := tempConfig(t, original)
		for _, name := range []string{"fs", "git"} {
			if _, err := WrapFile(p, name, opts, false); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"git", "fs"} {
			if _, err := UnwrapFile(p, name, nil, false); err != nil {
				t.Fatal(err)
			}
		}
		if read(t, p) != original {
			t.Errorf("not restored byte for byte:\n%s", read(t, p))
		}
	})
	t.Run("the entry edited", func(t *testing.T) {
		p := tempConfig(t, original)
		if _, err := WrapFile(p, "fs", opts, false); err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(read(t, p), `"command"`, `"env": {"DEBUG": "1"}, "command"`, 1)
		if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := UnwrapFile(p, "fs", nil, false); err != nil {
			t.Fatal(err)
		}
		got := read(t, p)
		if !strings.Contains(got, `"DEBUG":"1"`) || AnyWrapped([]byte(got)) || !strings.Contains(got, "// my servers\n") {
			t.Errorf("got:\n%s", got)
		}
	})
}
