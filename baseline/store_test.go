package baseline_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

func TestDefaultDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	want := filepath.Join(home, "tool-baselines")
	if got := baseline.DefaultDir(); got != want {
		t.Errorf("DefaultDir() = %s, want %s", got, want)
	}
	if got := (baseline.Store{}).Location(); got != want {
		t.Errorf("Store{}.Location() = %s, want %s", got, want)
	}
	if got := (baseline.Store{Dir: "x"}).Location(); got != "x" {
		t.Errorf("Location() = %s, want x", got)
	}
}

// key is the key of a session of label whose server gave no name.
func key(label string) checker.BaselineKey {
	return checker.BaselineKey{Label: label}
}

// assertOnlyBaselines fails when dir holds anything but baseline files, such
// as a temporary file left behind.
func assertOnlyBaselines(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestObserve(t *testing.T) {
	first := defs(t, `{"name":"b","inputSchema":{"type":"object"}}`, `{"name":"a","description":"old","annotations":{"readOnlyHint":true}}`)
	second := defs(t, `{"name":"a","description":"new"}`)
	dir := filepath.Join(t.TempDir(), "state", "tool-baselines")
	s := baseline.Store{Dir: dir}

	obs, err := s.Observe(key("srv"), first)
	if err != nil {
		t.Fatal(err)
	}
	if !obs.Created || obs.Version != 2 {
		t.Fatalf("first Observe = %+v, want Created, version 2", obs)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, s.Path("srv"): 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got&^want != 0 {
			t.Errorf("%s: mode %v, want at most %v", path, got, os.FileMode(want))
		}
	}
	assertOnlyBaselines(t, dir)

	// Later sessions get the first one's definitions, sorted by name, and
	// never rewrite them.
	before, _ := os.ReadFile(s.Path("srv"))
	obs, err = s.Observe(key("srv"), second)
	if err != nil {
		t.Fatal(err)
	}
	want := []tooldef.Tool{first[1], first[0]}
	if obs.Created || obs.Version != 2 || !reflect.DeepEqual(obs.Tools, want) {
		t.Fatalf("second Observe = %+v, want not Created, version 2, %+v", obs, want)
	}
	if after, _ := os.ReadFile(s.Path("srv")); string(after) != string(before) {
		t.Errorf("Observe rewrote the baseline")
	}
	entries, _ := tooldef.Diff(obs.Tools, second, obs.Version)
	for i := range entries {
		entries[i] = tooldef.DriftEntry{Kind: entries[i].Kind, Tool: entries[i].Tool} // which, not what: tooldef's tests
	}
	wantEntries := []tooldef.DriftEntry{{Kind: tooldef.DriftRemoved, Tool: "b"}, {Kind: tooldef.DriftDescription, Tool: "a"}, {Kind: tooldef.DriftAnnotations, Tool: "a"}}
	if !reflect.DeepEqual(entries, wantEntries) {
		t.Errorf("drift = %v, want %v", entries, wantEntries)
	}

	// Labels do not share baselines.
	if obs, err := s.Observe(key("other"), second); err != nil || !obs.Created {
		t.Errorf("other label: %+v, %v; want Created", obs, err)
	}
	if _, err := s.Observe(key(""), second); !errors.Is(err, baseline.ErrNoLabel) {
		t.Errorf("empty label: err = %v, want ErrNoLabel", err)
	}
}

func TestObserveRace(t *testing.T) {
	dir := t.TempDir()
	s := baseline.Store{Dir: dir}
	const writers = 8
	for round := range 20 {
		label := fmt.Sprintf("srv-%d", round)
		var (
			start sync.WaitGroup
			done  sync.WaitGroup
			obs   [writers]checker.BaselineObservation
			errs  [writers]error
			mine  [writers][]tooldef.Tool
		)
		start.Add(1)
		for i := range writers {
			mine[i] = defs(t, fmt.Sprintf(`{"name":"t","description":"writer %d"}`, i))
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				obs[i], errs[i] = s.Observe(key(label), mine[i])
			}()
		}
		start.Done()
		done.Wait()

		winner := -1
		for i := range writers {
			if errs[i] != nil {
				t.Fatalf("round %d writer %d: %v", round, i, errs[i])
			}
			if obs[i].Created {
				if winner >= 0 {
					t.Fatalf("round %d: writers %d and %d both created the baseline", round, winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody created the baseline", round)
		}
		for i := range writers {
			if i != winner && !reflect.DeepEqual(obs[i].Tools, mine[winner]) {
				t.Errorf("round %d writer %d compared against %+v, want the winner's %+v", round, i, obs[i].Tools, mine[winner])
			}
		}
		_, stored, err := s.Load(label, "")
		if err != nil || !reflect.DeepEqual(stored, mine[winner]) {
			t.Errorf("round %d: stored %+v, %v; want the winner's", round, stored, err)
		}
	}
	assertOnlyBaselines(t, dir)
}

func TestAcceptAndReset(t *testing.T) {
	old := defs(t, `{"name":"a","description":"old"}`)
	cur := defs(t, `{"name":"a","description":"new","title":"A"}`)
	tests := []struct {
		name    string
		prepare func(t *testing.T, s baseline.Store)
	}{
		{name: "no baseline yet", prepare: func(*testing.T, baseline.Store) {}},
		{name: "over a baseline", prepare: func(t *testing.T, s baseline.Store) {
			if _, err := s.Observe(key("srv"), old); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "over a version 1 baseline", prepare: func(t *testing.T, s baseline.Store) {
			os.MkdirAll(s.Dir, 0o700)
			os.WriteFile(s.Path("srv"), []byte(`{"version":1,"server":"srv","tools":[]}`), 0o600)
		}},
		{name: "over a corrupt baseline", prepare: func(t *testing.T, s baseline.Store) {
			os.MkdirAll(s.Dir, 0o700)
			os.WriteFile(s.Path("srv"), []byte(`{not json`), 0o600)
		}},
		{name: "over another server's baseline", prepare: func(t *testing.T, s baseline.Store) {
			os.MkdirAll(s.Dir, 0o700)
			os.WriteFile(s.Path("srv"), []byte(`{"version":2,"server":"x","tools":[]}`), 0o600)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := baseline.Store{Dir: filepath.Join(t.TempDir(), "b")}
			tt.prepare(t, s)
			if err := s.Accept("srv", "", cur); err != nil {
				t.Fatal(err)
			}
			version, tools, err := s.Load("srv", "")
			if err != nil || version != 2 || !reflect.DeepEqual(tools, cur) {
				t.Fatalf("after Accept: %d %+v %v; want 2 %+v", version, tools, err, cur)
			}
			if info, _ := os.Stat(s.Path("srv")); info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", info.Mode().Perm())
			}
			assertOnlyBaselines(t, s.Dir)

			if err := s.Reset("srv"); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.Load("srv", ""); !errors.Is(err, baseline.ErrNotFound) {
				t.Fatalf("after Reset: %v, want ErrNotFound", err)
			}
			if err := s.Reset("srv"); err != nil {
				t.Errorf("Reset of an absent baseline: %v", err)
			}
			if obs, err := s.Observe(key("srv"), old); err != nil || !obs.Created {
				t.Errorf("Observe after Reset = %+v, %v; want Created", obs, err)
			}
		})
	}
	s := baseline.Store{Dir: filepath.Join(t.TempDir(), "never-created")}
	if err := s.Reset("srv"); err != nil {
		t.Errorf("Reset without a directory: %v", err)
	}
	for name, err := range map[string]error{"Accept": s.Accept("", "", cur), "Reset": s.Reset("")} {
		if !errors.Is(err, baseline.ErrNoLabel) {
			t.Errorf("%s(\"\"): err = %v, want ErrNoLabel", name, err)
		}
	}
}

func TestUnwritableDirectory(t *testing.T) {
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	if f, err := os.CreateTemp(locked, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("permissions are not enforced here (running as root?)")
	}
	tools := defs(t, `{"name":"a"}`)
	tests := []struct {
		name string
		dir  string
		op   func(s baseline.Store) error
	}{
		{name: "first-seen in it", dir: locked, op: func(s baseline.Store) error { _, err := s.Observe(key("srv"), tools); return err }},
		{name: "first-seen below it", dir: filepath.Join(locked, "sub"), op: func(s baseline.Store) error { _, err := s.Observe(key("srv"), tools); return err }},
		{name: "accept in it", dir: locked, op: func(s baseline.Store) error { return s.Accept("srv", "", tools) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op(baseline.Store{Dir: tt.dir})
			if err == nil || !errors.Is(err, os.ErrPermission) {
				t.Fatalf("err = %v, want a permission error", err)
			}
			if strings.Contains(err.Error(), ".tmp-") {
				t.Errorf("error names a temporary file: %v", err)
			}
		})
	}
}
