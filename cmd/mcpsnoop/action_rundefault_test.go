package main

// The action's default selection (issue 21): with session empty it gates
// a whole agent run, every log of log-dir when that is set, else every
// session of the newest run in the state directory; never only the newest
// log.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// runWithHome runs the action with MCPSNOOP_HOME at home.
func (f *actionFixture) runWithHome(t *testing.T, inputs map[string]string, home string) (*actionResult, []upload) {
	t.Helper()
	var uploads []upload
	res := runAction(t, f.meta, actionJob{
		Inputs: inputs, Workspace: f.workspace, Temp: t.TempDir(),
		Env:     map[string]string{"MCPSNOOP_HOME": home},
		Replace: map[string]map[string]string{"build": {"path": f.binary}},
		Uses: map[string]usesHandler{
			setupGo: func(map[string]string) (map[string]string, error) { return nil, nil },
			uploadSARIF: func(with map[string]string) (map[string]string, error) {
				data, err := os.ReadFile(with["sarif_file"])
				if err != nil {
					return nil, err
				}
				uploads = append(uploads, upload{file: with["sarif_file"], category: with["category"], data: data})
				return map[string]string{"sarif-id": "test"}, validateUpload(t, data)
			},
		},
	})
	if testing.Verbose() {
		t.Logf("log:\n%s\nsummary:\n%s", res.Log, res.Summary)
	}
	return res, uploads
}

// sessionHeadings are the sessions the job summary reports, sorted.
func sessionHeadings(summary string) []string {
	var out []string
	for _, line := range strings.Split(summary, "\n") {
		if _, id, ok := strings.Cut(line, " session "); ok && strings.HasPrefix(line, "### ") {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

var untracedRun = []string{"files-97484-d23f128b2f33", "github-97485-1818892f902b", "search-97486-95315d9dc9f8"}

func TestActionDefaultChecksTheNewestRun(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	home := t.TempDir()
	sessions := filepath.Join(home, "sessions")
	// The state directory holds one agent run of three servers and, written
	// after it, a log of no run: the newest log alone would be that one.
	for _, id := range untracedRun {
		data, err := os.ReadFile(filepath.Join(f.workspace, "logs", "untraced", id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(sessions, id+".jsonl"), data)
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(sessions, id+".jsonl"), old, old); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(f.workspace, "logs", "pass", "mrtr.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sessions, "demo.jsonl"), data)

	res, _ := f.runWithHome(t, map[string]string{"upload-sarif": "false"}, home)
	if !res.Failed {
		t.Fatalf("the run's failing session did not fail the job:\n%s", res.Log)
	}
	wantOutputsEqual(t, res, map[string]string{"outcome": "findings", "exit-code": "1", "errors": "1", "findings": "1"})
	if got := sessionHeadings(res.Summary); !slices.Equal(got, untracedRun) {
		t.Errorf("sessions checked = %q, want the run's %q\n%s", got, untracedRun, res.Summary)
	}

	// A state directory with no run is an error, not a silent pass.
	empty := t.TempDir()
	res, _ = f.runWithHome(t, map[string]string{"upload-sarif": "false"}, empty)
	wantOutputsEqual(t, res, map[string]string{"outcome": "error", "exit-code": "2"})
	if !res.Failed {
		t.Errorf("an empty state directory passed:\n%s", res.Log)
	}
	// Said in the action's terms: which inputs were empty, where it looked,
	// what to set; never `session log "<state>/sessions" not found`.
	for _, want := range []string{
		"Nothing was checked: no session logs\\: none were named (the action's session and log-dir inputs are empty",
		"there are none in " + strings.ReplaceAll(filepath.Join(empty, "sessions"), ".", "\\."),
		"(the state directory's sessions folder, which does not exist",
		"Set log-dir to the folder the recording step's shims wrote to (mcpsnoop --log-dir DIR, or MCPSNOOP\\_LOG\\_DIR), or session to the logs",
	} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, res.Summary)
		}
	}
	if strings.Contains(res.Summary, `session log "`) || strings.Contains(res.Summary, "not found") {
		t.Errorf("summary:\n%s", res.Summary)
	}
}

func TestActionLogDir(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	home := t.TempDir() // empty: nothing may come from the state directory
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		want   []string
	}{
		{"every log of the folder", map[string]string{"log-dir": "logs/untraced"}, untracedRun},
		{"from a working directory", map[string]string{"log-dir": "untraced", "working-directory": "logs"}, untracedRun},
		{"a run looked up in the folder", map[string]string{"log-dir": " logs/untraced ", "session": "run:latest"}, untracedRun},
		{"session wins", map[string]string{"log-dir": "logs/untraced", "session": "logs/pass/mrtr.jsonl"}, []string{"demo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]string{"upload-sarif": "false", "fail-on-findings": "false"}
			for k, v := range tc.inputs {
				in[k] = v
			}
			res, _ := f.runWithHome(t, in, home)
			if res.Failed {
				t.Fatalf("the job failed:\n%s", res.Log)
			}
			if got := sessionHeadings(res.Summary); !slices.Equal(got, tc.want) {
				t.Errorf("sessions checked = %q, want %q\n%s", got, tc.want, res.Log)
			}
		})
	}
	// A log-dir that is no folder, or holds no log, is said in the action's
	// terms before mcpsnoop runs.
	writeFile(t, filepath.Join(f.workspace, "logs", "nolog", "notes.txt"), []byte("x"))
	for dir, want := range map[string]string{
		"logs/none":  "Nothing was checked: the log-dir input is `logs/none`, which is not a folder in `" + f.workspace + "` (working-directory).",
		"logs/nolog": "Nothing was checked: the log-dir input is `logs/nolog`, a folder with no session log (*.jsonl) in it",
	} {
		res, _ := f.runWithHome(t, map[string]string{"log-dir": dir, "upload-sarif": "false"}, home)
		wantOutputsEqual(t, res, map[string]string{"outcome": "error", "exit-code": "2"})
		if !res.Failed || !strings.Contains(res.Log, dir) || !strings.Contains(res.Summary, want) {
			t.Errorf("log-dir %s: failed %v\n%s\nsummary:\n%s", dir, res.Failed, res.Log, res.Summary)
		}
	}
}

// How the empty session input becomes arguments, against a stand-in
// binary that records them.
func TestActionDefaultSelectionArgs(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	argsFile := filepath.Join(t.TempDir(), "args")
	fake := filepath.Join(t.TempDir(), "mcpsnoop")
	writeFile(t, fake, []byte("#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > \""+argsFile+"\"\n"))
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	f.binary = fake
	for _, dir := range []string{"artifacts/mcp", "my logs"} { // the action looks before it passes a log-dir on
		writeFile(t, filepath.Join(f.workspace, dir, "x.jsonl"), []byte("{}\n"))
	}
	for _, tc := range []struct {
		inputs map[string]string
		tail   []string // the arguments after the report's flags
	}{
		{map[string]string{}, []string{"--run", "latest", "--"}},
		{map[string]string{"session": "\n  \n"}, []string{"--run", "latest", "--"}},
		{map[string]string{"log-dir": "artifacts/mcp"}, []string{"--", "artifacts/mcp"}},
		{map[string]string{"log-dir": "my logs"}, []string{"--", "my logs"}},
		{map[string]string{"log-dir": "artifacts/mcp", "session": "run:p-1-2"}, []string{"--run", "p-1-2", "--", "artifacts/mcp"}},
		{map[string]string{"session": "run:p-1-2"}, []string{"--run", "p-1-2", "--"}},
		{map[string]string{"log-dir": "artifacts/mcp", "session": "a.jsonl"}, []string{"--", "a.jsonl"}},
	} {
		os.Remove(argsFile)
		res, _ := f.runWithHome(t, tc.inputs, t.TempDir())
		data, err := os.ReadFile(argsFile)
		if err != nil {
			t.Fatalf("%v: the stand-in never ran: %v\n%s", tc.inputs, err, res.Log)
		}
		got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		n := len(got) - len(tc.tail)
		if n < 0 || !slices.Equal(got[n:], tc.tail) || slices.Contains(got[:n], "--run") || slices.Contains(got[:n], "--") {
			t.Errorf("%v: args %q, want them to end %q", tc.inputs, got, tc.tail)
		}
	}
}
