package baseline_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// named is the key of a session of label whose server gave name.
func named(label, name string) checker.BaselineKey {
	return checker.BaselineKey{Label: label, ServerName: name}
}

// observe is Observe that fails the test on an error.
func observe(t *testing.T, s baseline.Store, key checker.BaselineKey, tools []tooldef.Tool) checker.BaselineObservation {
	t.Helper()
	obs, err := s.Observe(key, tools)
	if err != nil {
		t.Fatalf("Observe(%+v): %v", key, err)
	}
	return obs
}

// files lists the names in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestPathFor(t *testing.T) {
	s := baseline.Store{Dir: "dir"}
	if s.PathFor("srv", "") != s.Path("srv") {
		t.Errorf("a server without a name is not kept where the reference keeps its label's baseline")
	}
	a, b := s.PathFor("srv", "alpha"), s.PathFor("srv", "beta")
	if a == b || a == s.Path("srv") || filepath.Dir(a) != "dir" || !strings.HasSuffix(a, ".json") || len(filepath.Base(a)) != 37 {
		t.Errorf("PathFor: %s, %s", a, b)
	}
}

// Two servers under one label keep two baselines once the second is
// accepted; until then the second is told whose the baseline is, and
// nothing is recorded for it.
func TestTwoServersUnderOneLabel(t *testing.T) {
	alpha := defs(t, `{"name":"read","description":"alpha reads"}`)
	beta := defs(t, `{"name":"send","description":"beta sends"}`)
	s := baseline.Store{Dir: t.TempDir()}
	if obs := observe(t, s, named("index.js", "alpha"), alpha); !obs.Created {
		t.Fatalf("first server: %+v, want Created", obs)
	}
	obs := observe(t, s, named("index.js", "beta"), beta)
	if obs.Created || obs.Tools != nil || !reflect.DeepEqual(obs.OtherNames, []string{"alpha"}) {
		t.Fatalf("second server: %+v, want OtherNames [alpha], nothing created or compared", obs)
	}
	if n := len(files(t, s.Dir)); n != 1 {
		t.Fatalf("%d files after the second server, want 1: nothing recorded for it", n)
	}
	if err := s.Accept("index.js", "beta", beta); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		tools []tooldef.Tool
	}{{"alpha", alpha}, {"beta", beta}} {
		obs := observe(t, s, named("index.js", tt.name), tt.tools)
		if obs.Created || obs.OtherNames != nil || !reflect.DeepEqual(obs.Tools, tt.tools) {
			t.Errorf("%s: %+v, want compared with its own baseline", tt.name, obs)
		}
	}
	// A third name is told both.
	if obs := observe(t, s, named("index.js", "gamma"), beta); !reflect.DeepEqual(obs.OtherNames, []string{"alpha", "beta"}) {
		t.Errorf("third server: %+v", obs)
	}
}

// A server that renames itself gets no fresh baseline, and a reset forgets
// every baseline of its label.
func TestRenamedServer(t *testing.T) {
	tools := defs(t, `{"name":"a","description":"d"}`)
	s := baseline.Store{Dir: t.TempDir()}
	observe(t, s, named("files", "files-server"), tools)
	for range 2 {
		if obs := observe(t, s, named("files", "totally-new"), tools); obs.Created || !reflect.DeepEqual(obs.OtherNames, []string{"files-server"}) {
			t.Fatalf("renamed: %+v, want OtherNames", obs)
		}
	}
	if err := s.Reset("files"); err != nil {
		t.Fatal(err)
	}
	if got := files(t, s.Dir); len(got) != 0 {
		t.Fatalf("after Reset: %v", got)
	}
	if obs := observe(t, s, named("files", "totally-new"), tools); !obs.Created {
		t.Errorf("after Reset: %+v, want Created", obs)
	}
}

// A session whose server gave no name (its log starts after initialize)
// is compared with the label's only baseline, and cannot choose between
// several.
func TestNamelessSession(t *testing.T) {
	tools := defs(t, `{"name":"a","description":"d"}`)
	s := baseline.Store{Dir: t.TempDir()}
	observe(t, s, named("srv", "alpha"), tools)
	if obs := observe(t, s, key("srv"), nil); obs.Created || !reflect.DeepEqual(obs.Tools, tools) {
		t.Errorf("nameless: %+v, want compared with alpha's", obs)
	}
	if err := s.Accept("srv", "beta", tools); err != nil {
		t.Fatal(err)
	}
	_, err := s.Observe(key("srv"), nil)
	if err == nil || !strings.Contains(err.Error(), `label "srv" has tool baselines for servers ["alpha" "beta"]`) {
		t.Errorf("nameless with two: %v", err)
	}
	if n := len(files(t, s.Dir)); n != 2 {
		t.Errorf("%d files, want 2", n)
	}
}

// writeLegacy writes a baseline as a version before server names wrote it.
func writeLegacy(t *testing.T, s baseline.Store, label, content string) {
	t.Helper()
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(label), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The first check after the upgrade finds the baseline written under the
// label alone, or under the old label, compares with it, and moves it to
// the server's key.
func TestUpgrade(t *testing.T) {
	v2 := `{"version":2,"server":"%s","tools":[{"name":"a","description":"old","input_schema":null}]}`
	oldTools := []tooldef.Tool{{Name: "a", Description: "old", InputSchema: []byte("null")}}
	tests := []struct {
		name     string
		legacy   string // label of the legacy file
		content  string
		key      checker.BaselineKey
		version  int
		moved    bool
		wantErr  string
		recorded bool // a fresh baseline instead
	}{
		{name: "label alone to label and name", legacy: "files", content: strings.Replace(v2, "%s", "files", 1),
			key: named("files", "files-srv"), version: 2, moved: true},
		{name: "old label to new label", legacy: "index.js", content: strings.Replace(v2, "%s", "index.js", 1),
			key: checker.BaselineKey{Label: "weather", ServerName: "weather-srv", OldLabel: "index.js"}, version: 2, moved: true},
		{name: "old label, server gave no name", legacy: "server.py", content: strings.Replace(v2, "%s", "server.py", 1),
			key: checker.BaselineKey{Label: "notes", OldLabel: "server.py"}, version: 2, moved: true},
		{name: "a version 1 file keeps its version", legacy: "index.js",
			content: `{"version":1,"server":"index.js","tools":[{"name":"a","description":"old"}]}`,
			key:     checker.BaselineKey{Label: "weather", ServerName: "w", OldLabel: "index.js"}, version: 1, moved: true},
		{name: "an old label's file with a server name is not a legacy file", legacy: "index.js",
			content: `{"version":2,"server":"index.js","server_name":"x","tools":[]}`,
			key:     checker.BaselineKey{Label: "weather", ServerName: "w", OldLabel: "index.js"}, recorded: true},
		{name: "an old label's corrupt file is ignored", legacy: "index.js", content: `{not json`,
			key: checker.BaselineKey{Label: "weather", ServerName: "w", OldLabel: "index.js"}, recorded: true},
		{name: "the label's own corrupt file is its error", legacy: "files", content: `{not json`,
			key: named("files", "files-srv"), wantErr: `tool baseline "files" is corrupt`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := baseline.Store{Dir: t.TempDir()}
			writeLegacy(t, s, tt.legacy, tt.content)
			cur := defs(t, `{"name":"a","description":"new"}`)
			obs, err := s.Observe(tt.key, cur)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.recorded {
				if !obs.Created {
					t.Errorf("%+v, want a fresh baseline", obs)
				}
				if _, err := os.Stat(s.Path(tt.legacy)); err != nil {
					t.Errorf("the file that was not moved is gone: %v", err)
				}
				return
			}
			if obs.Created || obs.Version != tt.version || !reflect.DeepEqual(obs.Tools, oldTools) {
				t.Fatalf("Observe = %+v, want the legacy baseline (version %d)", obs, tt.version)
			}
			if _, err := os.Stat(s.Path(tt.legacy)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the legacy file is still there (%v)", err)
			}
			version, tools, err := s.Load(tt.key.Label, tt.key.ServerName)
			if err != nil || version != tt.version || !reflect.DeepEqual(tools, oldTools) {
				t.Fatalf("moved baseline: %d %+v %v", version, tools, err)
			}
			// From now on it is found by its key, and drift is drift.
			again := observe(t, s, tt.key, cur)
			if again.Created || !reflect.DeepEqual(again.Tools, oldTools) {
				t.Errorf("second Observe = %+v", again)
			}
			if got := files(t, s.Dir); len(got) != 1 {
				t.Errorf("files %v, want the moved one only", got)
			}
		})
	}
}

// Servers that shared an old label shared its baseline: it goes to the
// first one checked, and the next starts afresh under its own new label.
func TestUpgradeSharedOldLabel(t *testing.T) {
	s := baseline.Store{Dir: t.TempDir()}
	writeLegacy(t, s, "index.js", `{"version":2,"server":"index.js","tools":[]}`)
	first := observe(t, s, checker.BaselineKey{Label: "weather", ServerName: "w", OldLabel: "index.js"}, nil)
	second := observe(t, s, checker.BaselineKey{Label: "notes", ServerName: "n", OldLabel: "index.js"}, nil)
	if first.Created || !second.Created {
		t.Errorf("first %+v, second %+v; want the first moved, the second created", first, second)
	}
}

// A log from elsewhere is compared with what the store has, and its
// first-seen baseline is held for the check, never written.
func TestOnlyOwnLogs(t *testing.T) {
	root := t.TempDir()
	own := filepath.Join(root, "state", "sessions")
	logDir := filepath.Join(root, "logs")
	traceFile := filepath.Join(root, "trace.jsonl")
	dir := filepath.Join(root, "state", "tool-baselines")
	s := baseline.Store{Dir: dir}.OnlyOwnLogs(own, logDir, traceFile)
	tools := defs(t, `{"name":"a","description":"d"}`)
	changed := defs(t, `{"name":"a","description":"changed"}`)
	foreign := func(label, log string) checker.BaselineKey {
		return checker.BaselineKey{Label: label, ServerName: "srv", Log: log}
	}

	for _, log := range []string{filepath.Join(root, "downloads", "bug.jsonl"), "", filepath.Join(root, "state", "other.jsonl")} {
		label := "x" + log
		obs := observe(t, s, foreign(label, log), tools)
		if !obs.Created || !obs.Held {
			t.Fatalf("log %q: %+v, want Created and Held", log, obs)
		}
		// The rest of the check compares with it.
		if obs := observe(t, s, foreign(label, log), changed); obs.Created || !reflect.DeepEqual(obs.Tools, tools) {
			t.Errorf("log %q, second session: %+v, want compared with the held baseline", log, obs)
		}
		if obs := observe(t, s, checker.BaselineKey{Label: label, ServerName: "renamed", Log: log}, tools); !reflect.DeepEqual(obs.OtherNames, []string{"srv"}) {
			t.Errorf("log %q, renamed: %+v, want OtherNames", log, obs)
		}
	}
	if got := files(t, dir); len(got) != 0 {
		t.Fatalf("a foreign log wrote %v", got)
	}
	// Another check starts without them.
	if obs := observe(t, baseline.Store{Dir: dir}.OnlyOwnLogs(own), foreign("x", ""), tools); !obs.Held {
		t.Errorf("held baselines outlived their store: %+v", obs)
	}

	for _, log := range []string{filepath.Join(own, "s.jsonl"), filepath.Join(logDir, "deep", "s.jsonl"), traceFile} {
		if obs := observe(t, s, foreign("own"+log, log), tools); !obs.Created || obs.Held {
			t.Errorf("own log %s: %+v, want written", log, obs)
		}
	}
	if got := files(t, dir); len(got) != 3 {
		t.Errorf("own logs wrote %v, want 3 baselines", got)
	}

	// A foreign log is compared with an existing baseline, and with a
	// legacy one where it lies: nothing moves for it.
	if obs := observe(t, s, foreign("own"+traceFile, ""), changed); obs.Created || !reflect.DeepEqual(obs.Tools, tools) {
		t.Errorf("foreign log of a known server: %+v", obs)
	}
	writeLegacy(t, baseline.Store{Dir: dir}, "index.js", `{"version":2,"server":"index.js","tools":[]}`)
	key := checker.BaselineKey{Label: "weather", ServerName: "w", OldLabel: "index.js", Log: ""}
	if obs := observe(t, s, key, tools); obs.Created || obs.Tools == nil {
		t.Errorf("foreign log with an old-label baseline: %+v, want compared with it", obs)
	}
	if _, err := os.Stat(baseline.Store{Dir: dir}.Path("index.js")); err != nil {
		t.Errorf("a foreign log moved a baseline: %v", err)
	}
}

// Through a symbolic link to the state directory, a log is still its own.
func TestOnlyOwnLogsThroughLinks(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(root, "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	log := filepath.Join(real, "sessions", "s.jsonl")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := baseline.Store{Dir: filepath.Join(root, "b")}.OnlyOwnLogs(filepath.Join(root, "link", "sessions"))
	if obs := observe(t, s, checker.BaselineKey{Label: "srv", Log: log}, nil); obs.Held {
		t.Errorf("a log in the linked sessions folder was taken for a foreign one")
	}
}

func TestLoadServerNameMismatch(t *testing.T) {
	s := baseline.Store{Dir: t.TempDir()}
	if err := s.Accept("srv", "alpha", nil); err != nil {
		t.Fatal(err)
	}
	// A file under another key's name (copied by hand): never compared.
	if err := os.Rename(s.PathFor("srv", "alpha"), s.PathFor("srv", "beta")); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.Load("srv", "beta")
	if err == nil || err.Error() != `tool baseline "srv" records server name "alpha", not "beta"; run mcpsnoop baseline --reset to record this one` {
		t.Errorf("err = %v", err)
	}
}
