package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStateDir(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", "/x/home")
	t.Setenv("XDG_STATE_HOME", "/x/xdg")
	if got := StateDir(); got != "/x/home" {
		t.Errorf("MCPSNOOP_HOME: %s", got)
	}
	t.Setenv("MCPSNOOP_HOME", "")
	if got := StateDir(); got != "/x/xdg/mcpsnoop" {
		t.Errorf("XDG_STATE_HOME: %s", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/x/user")
	if got := StateDir(); got != "/x/user/.local/state/mcpsnoop" {
		t.Errorf("HOME: %s", got)
	}
	if got := SessionLogPath("abc"); got != "/x/user/.local/state/mcpsnoop/sessions/abc.jsonl" {
		t.Errorf("SessionLogPath: %s", got)
	}
}

func write(t *testing.T, path, content string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		os.Chtimes(path, mtime, mtime)
	}
}

func names(ins []Input) string {
	var out []string
	for _, in := range ins {
		out = append(out, filepath.Base(in.Name))
	}
	return strings.Join(out, ",")
}

func TestResolveInputs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	sessions := filepath.Join(home, "sessions")
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	write(t, filepath.Join(sessions, "old.jsonl"), "x", day(1))
	write(t, filepath.Join(sessions, "new.jsonl"), "x", day(2))
	write(t, filepath.Join(sessions, "empty.jsonl"), "", day(3))
	write(t, filepath.Join(sessions, "127.0.0.1_8080-7-aaaaaaaaaaaa.jsonl"), "x", day(1))
	write(t, filepath.Join(sessions, "ref:9-8-bbbbbbbbbbbb.jsonl"), "x", day(1))
	work := t.TempDir()
	write(t, filepath.Join(work, "dir", "b.jsonl"), "x", time.Time{})
	write(t, filepath.Join(work, "dir", "a.jsonl"), "x", time.Time{})
	write(t, filepath.Join(work, "dir", "notes.txt"), "x", time.Time{})
	write(t, filepath.Join(work, "dir", "z.jsonl"), "", time.Time{})
	write(t, filepath.Join(work, "emptydir", "z.jsonl"), "", time.Time{})
	os.MkdirAll(filepath.Join(work, "nologs"), 0o755)
	write(t, filepath.Join(work, "plain.log"), "x", time.Time{})
	t.Chdir(work)

	tests := []struct {
		args []string
		want string
		err  string
	}{
		{args: nil, want: "new.jsonl"},
		{args: []string{"-"}, want: "stdin"},
		{args: []string{"dir"}, want: "a.jsonl,b.jsonl"},
		{args: []string{"plain.log", "-", "dir/b.jsonl"}, want: "plain.log,stdin,b.jsonl"},
		{args: []string{"old"}, want: "old.jsonl"},
		{args: []string{"127.0.0.1_8080-7-aaaaaaaaaaaa"}, want: "127.0.0.1_8080-7-aaaaaaaaaaaa.jsonl"},
		{args: []string{"127.0.0.1:8080-7-aaaaaaaaaaaa"}, want: "127.0.0.1_8080-7-aaaaaaaaaaaa.jsonl"},
		{args: []string{"ref:9-8-bbbbbbbbbbbb"}, want: "ref:9-8-bbbbbbbbbbbb.jsonl"},
		{args: []string{"-", "-"}, err: "standard input (-) can be read only once"},
		{args: []string{"missing.jsonl"}, err: `session log "missing.jsonl" not found`},
		{args: []string{"a/b"}, err: `session log "a/b" not found`},
		{args: []string{"nosuchid"}, err: `session log "` + filepath.Join(sessions, "nosuchid.jsonl") + `" not found`},
		{args: []string{"nologs"}, err: "nologs: no session logs (*.jsonl) in this directory"},
		{args: []string{"emptydir"}, err: "emptydir: no readable session logs"},
	}
	for _, tt := range tests {
		got, err := ResolveInputs(tt.args)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("%v: err = %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || names(got) != tt.want {
			t.Errorf("%v: got %q, %v; want %q", tt.args, names(got), err, tt.want)
		}
	}
}

func TestResolveNewestWithoutLogs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	if _, err := ResolveInputs(nil); err == nil || !strings.HasPrefix(err.Error(), "no session logs found") {
		t.Errorf("no dir: %v", err)
	}
	write(t, filepath.Join(home, "sessions", "e.jsonl"), "", time.Time{})
	if _, err := ResolveInputs(nil); err == nil || !strings.HasPrefix(err.Error(), "no readable session logs found") {
		t.Errorf("only empty: %v", err)
	}
}

// A log named several ways is read once: twice by path, by a directory
// and a path in it, by a symbolic link, by a hard link.
func TestResolveInputsReadsAFileOnce(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "logs", "a.jsonl"), "x", time.Time{})
	write(t, filepath.Join(work, "logs", "b.jsonl"), "y", time.Time{})
	write(t, filepath.Join(work, "other", "a.jsonl"), "x", time.Time{}) // a copy: another file, read too
	if err := os.Symlink(filepath.Join(work, "logs", "a.jsonl"), filepath.Join(work, "sym.jsonl")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Link(filepath.Join(work, "logs", "b.jsonl"), filepath.Join(work, "hard.jsonl")); err != nil {
		t.Skip("no hard links here:", err)
	}
	t.Chdir(work)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"logs/a.jsonl", "logs/a.jsonl"}, "a.jsonl"},
		{[]string{"logs/a.jsonl", "logs"}, "a.jsonl,b.jsonl"},
		{[]string{"logs", "./logs/a.jsonl", "logs/../logs/b.jsonl"}, "a.jsonl,b.jsonl"},
		{[]string{"sym.jsonl", "logs"}, "sym.jsonl,b.jsonl"},
		{[]string{"logs", "hard.jsonl"}, "a.jsonl,b.jsonl"},
		{[]string{"logs/a.jsonl", "other/a.jsonl"}, "a.jsonl,a.jsonl"},
		{[]string{"-", "logs/a.jsonl", "logs/a.jsonl"}, "stdin,a.jsonl"},
	} {
		got, err := ResolveInputs(tc.args)
		if err != nil || names(got) != tc.want {
			t.Errorf("%v: got %q, %v; want %q", tc.args, names(got), err, tc.want)
		}
	}
}
