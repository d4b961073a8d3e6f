package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// pruneHome is a state directory with three old logs (two session logs and
// verify's replay log, 2,048 bytes between them), fresh ones, and old tool
// baselines that prune must never touch.
func pruneHome(t *testing.T) (home string, old []string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	long := time.Now().Add(-40 * 24 * time.Hour)
	put := func(rel string, size int, mtime time.Time) string {
		p := filepath.Join(home, rel)
		writeFile(t, p, []byte(strings.Repeat("x", size)))
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old = []string{
		put("sessions/a-1.jsonl", 1000, long),
		put("sessions/b-2.jsonl", 536, long),
		put("replays/c-3.jsonl", 512, long),
	}
	put("sessions/fresh.jsonl", 10, time.Now())
	put("replays/fresh.jsonl", 10, time.Now())
	put("sessions/notes.txt", 10, long)
	put("tool-baselines/0123456789abcdef0123456789abcdef.json", 50, long)
	put("tool-baselines/old.jsonl", 50, long)
	return home, old
}

func pruneRun(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"prune"}, args...), stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestPrune(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		terminal bool
		code     int
		stdout   string // with $OLD0, $OLD1 and $OLD2 for the old logs' paths
		stderr   string
		removed  bool // the three old logs are gone
	}{
		{name: "no flag", code: 2, stderr: "mcpsnoop prune: --older-than is required, e.g. 30d or 72h\n"},
		{name: "zero", args: []string{"--older-than", "0d"}, code: 2, stderr: "mcpsnoop prune: --older-than must be greater than zero\n"},
		{name: "bad age", args: []string{"--older-than", "a month"}, code: 2,
			stderr: "mcpsnoop prune: invalid --older-than \"a month\": use whole days (30d) or a Go duration (72h)\n"},
		{name: "extra argument", args: []string{"--older-than", "30d", "logs"}, code: 2, stderr: "mcpsnoop: unknown command \"logs\" for \"mcpsnoop prune\"\n"},
		{name: "nothing old enough", args: []string{"--older-than", "60d", "--yes"}, stdout: "nothing to prune: no session logs older than 60d\n"},
		{name: "dry run", args: []string{"--older-than", "30d", "--dry-run"},
			stdout: "would remove 3 session log(s), 2.0 KiB:\n  $OLD0\n  $OLD1\n  $OLD2\n"},
		{name: "no terminal to ask on", args: []string{"--older-than", "30d"}, stdin: "y\n", code: 1,
			stderr: "mcpsnoop prune: standard input is not a terminal, so there is no one to ask before removing 3 session log(s), 2.0 KiB; pass --yes to remove them, or --dry-run to list them\n"},
		{name: "yes", args: []string{"--older-than", "720h", "--yes"}, stdout: "removed 3 session log(s), 2.0 KiB\n", removed: true},
		{name: "asked, agreed", args: []string{"--older-than", "30d"}, stdin: "Yes\n", terminal: true,
			stdout: "removed 3 session log(s), 2.0 KiB\n", stderr: "remove 3 session log(s), 2.0 KiB? [y/N] ", removed: true},
		{name: "asked, declined", args: []string{"--older-than", "30d"}, stdin: "n\n", terminal: true,
			stdout: "aborted\n", stderr: "remove 3 session log(s), 2.0 KiB? [y/N] "},
		{name: "asked, no answer", args: []string{"--older-than", "30d"}, terminal: true,
			stdout: "aborted\n", stderr: "remove 3 session log(s), 2.0 KiB? [y/N] "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, old := pruneHome(t)
			if tt.terminal {
				saved := stdinIsTerminal
				stdinIsTerminal = func(io.Reader) bool { return true }
				t.Cleanup(func() { stdinIsTerminal = saved })
			}
			before := snapshot(t, home)
			code, stdout, stderr := pruneRun(t, strings.NewReader(tt.stdin), tt.args...)
			wantOut := strings.NewReplacer("$OLD0", old[0], "$OLD1", old[1], "$OLD2", old[2]).Replace(tt.stdout)
			if code != tt.code || stdout != wantOut || stderr != tt.stderr {
				t.Errorf("exit %d\nstdout %q\nstderr %q\nwant exit %d\nstdout %q\nstderr %q", code, stdout, stderr, tt.code, wantOut, tt.stderr)
			}
			changes := diffSnapshots(before, snapshot(t, home))
			want := ""
			if tt.removed {
				want = "removed replays/c-3.jsonl, removed sessions/a-1.jsonl, removed sessions/b-2.jsonl"
			}
			slices.Sort(changes)
			if got := strings.Join(changes, ", "); got != want {
				t.Errorf("changes: %s; want %q", got, want)
			}
		})
	}
}

// With no sessions folder at all there is nothing to prune.
func TestPruneEmptyState(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", filepath.Join(t.TempDir(), "never-created"))
	code, stdout, stderr := pruneRun(t, strings.NewReader(""), "--older-than", "1d")
	if code != 0 || stdout != "nothing to prune: no session logs older than 1d\n" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Only a real terminal counts: a file, a pipe and /dev/null (a character
// device, but nobody answers on it) do not.
func TestStdinIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "answers"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, in := range map[string]io.Reader{"devnull": null, "pipe": r, "file": file, "reader": strings.NewReader("y\n")} {
		if stdinIsTerminal(in) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
}

// A log that cannot be removed is reported, the others still go, and the
// exit code is 1.
func TestPruneRemoveFailure(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root removes files from read-only folders")
	}
	home, _ := pruneHome(t)
	sessions := filepath.Join(home, "sessions")
	if err := os.Chmod(sessions, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sessions, 0o700) })
	code, stdout, stderr := pruneRun(t, strings.NewReader(""), "--older-than", "30d", "--yes")
	if code != 1 || stdout != "removed 0 session log(s), 0 B\n" || !strings.HasSuffix(stderr, "mcpsnoop prune: 2 session log(s) could not be removed\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
