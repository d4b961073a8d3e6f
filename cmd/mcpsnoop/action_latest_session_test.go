package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The action's default (session and log-dir empty: --run latest) on a
// state directory whose logs carry no run key, as mcpsnoop http captures
// and logs of other tools do: the newest session is checked, a run of its
// own, instead of exit 2.
func TestActionDefaultWithoutRunKeys(t *testing.T) {
	t.Parallel() // waits for the action's build, like the other action tests
	f := newActionFixture(t)
	home := t.TempDir()
	sessions := filepath.Join(home, "sessions")
	data, err := os.ReadFile(filepath.Join(f.workspace, "logs", "pass", "mrtr.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sessions, "demo.jsonl"), data)
	// An older session of no run, that fails: not the newest, not checked.
	old := `{"session_id":"old","server_label":"srv","seq":1,"ts":"2020-01-01T00:00:00Z","direction":"s2c","transport":"stdio","text":"stray"}` + "\n"
	writeFile(t, filepath.Join(sessions, "old.jsonl"), []byte(old))
	past := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(sessions, "old.jsonl"), past, past)

	res, _ := f.runWithHome(t, map[string]string{"upload-sarif": "false"}, home)
	if res.Failed {
		t.Fatalf("the job failed:\n%s", res.Log)
	}
	wantOutputsEqual(t, res, map[string]string{"outcome": "passed", "exit-code": "0"})
	if got := sessionHeadings(res.Summary); len(got) != 1 || got[0] != "demo" {
		t.Errorf("sessions checked = %q, want the newest, demo\n%s", got, res.Summary)
	}
}
