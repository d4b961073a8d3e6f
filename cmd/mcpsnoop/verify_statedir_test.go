//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// With no home, another user of the machine can make the temporary state
// directory first and plant replays/<session>.jsonl (a predictable name)
// as a link to a file of the victim's: verify must not append its replay
// there. The folder is refused, and nothing is written.
func TestVerifyRefusesAPlantedStateDir(t *testing.T) {
	v1, _ := replayServerBins(t)
	useShim(t)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	rec := recordSession(t, t.TempDir())
	sid := readFrames(t, rec)[0].SessionID

	tmp := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("TMPDIR", tmp)
	victim := filepath.Join(t.TempDir(), ".profile")
	if err := os.WriteFile(victim, []byte("export PATH\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Planted where this and earlier versions look, open to all.
	for _, name := range []string{"mcpsnoop", "mcpsnoop-" + strconv.Itoa(os.Getuid())} {
		replays := filepath.Join(tmp, name, "replays")
		if err := os.MkdirAll(replays, 0o777); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{filepath.Dir(replays), replays} {
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(victim, filepath.Join(replays, sid+".jsonl")); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := verifyRun(t, "", "--yes", rec, "--", v1)
	if code != 2 || !strings.Contains(stderr, "mcpsnoop will not use it") || !strings.Contains(stderr, "set MCPSNOOP_HOME") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if got, _ := os.ReadFile(victim); string(got) != "export PATH\n" {
		t.Errorf("the replay was appended to the victim's file:\n%.300s", got)
	}
}

// TestVerifyOpensItsReplayLogWithoutFollowingALink: the replay log
// mcpsnoop names itself in a state directory it accepted is opened
// without following a link, so a link planted there (a directory another
// process could write to once) never makes verify append to its target; a
// --replay-log the user names may still be one.
func TestVerifyOpensItsReplayLogWithoutFollowingALink(t *testing.T) {
	v1, _ := replayServerBins(t)
	useShim(t)
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	rec := recordSession(t, t.TempDir())
	sid := readFrames(t, rec)[0].SessionID
	victim := filepath.Join(t.TempDir(), ".profile")
	if err := os.WriteFile(victim, []byte("export PATH\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	replays := filepath.Join(home, "replays")
	if err := os.MkdirAll(replays, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(replays, sid+".jsonl")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := verifyRun(t, "", "--yes", rec, "--", v1)
	if code != 2 || !strings.Contains(stderr, "replay log") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if got, _ := os.ReadFile(victim); string(got) != "export PATH\n" {
		t.Errorf("the replay was appended to the link's target:\n%.300s", got)
	}
	// Named by the user, the link is the user's choice.
	code, stdout, stderr = verifyRun(t, "", "--yes", "--replay-log", filepath.Join(replays, sid+".jsonl"), rec, "--", v1)
	if code != 0 {
		t.Errorf("--replay-log through a link: exit %d\n%s%s", code, stdout, stderr)
	}
}
