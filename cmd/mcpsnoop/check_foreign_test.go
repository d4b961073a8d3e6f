package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without --baseline, check writes first-seen baselines only for this
// machine's captures: the logs in <state>/sessions and in the log-dir (or
// trace-file) of .mcpsnoop.toml in the working directory. A log from
// anywhere else still has its later sessions compared with its first, but
// leaves nothing behind.
func TestCheckForeignLogs(t *testing.T) {
	data, err := os.ReadFile(fixture(t, "conformance/drift-two-sessions-default-gate.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	writeFile(t, filepath.Join(project, ".mcpsnoop.toml"), []byte("log-dir = \"captures\"\n"))
	t.Chdir(project)
	tests := []struct {
		name    string
		log     string // where the log is put ("-": standard input)
		flags   []string
		written bool
	}{
		{name: "a downloaded log", log: "{tmp}/downloads/bug.jsonl"},
		{name: "standard input", log: "-"},
		{name: "beside the sessions folder", log: "{home}/elsewhere.jsonl"},
		{name: "in the state directory's sessions", log: "{home}/sessions/s.jsonl", written: true},
		{name: "in the configured log-dir", log: "captures/ci/run.jsonl", written: true},
		{name: "a log from elsewhere with --baseline", log: "{tmp}/downloads/bug.jsonl", flags: []string{"--baseline", "{tmp}/kept"}, written: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, tmp := t.TempDir(), t.TempDir()
			t.Setenv("MCPSNOOP_HOME", home)
			expand := func(s string) string {
				return strings.NewReplacer("{home}", home, "{tmp}", tmp).Replace(s)
			}
			args := []string{"--fail-on", "drift"}
			for _, f := range tt.flags {
				args = append(args, expand(f))
			}
			stdin := ""
			if tt.log == "-" {
				stdin = string(data)
			} else {
				writeFile(t, expand(tt.log), data)
			}
			code, out, errOut := checkRun(t, stdin, append(args, expand(tt.log))...)
			// The second session is compared with the first either way.
			if code != 1 || !strings.Contains(out, "description changed: a") || errOut != "" {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			dir := filepath.Join(home, "tool-baselines")
			if tt.flags != nil {
				dir = expand("{tmp}/kept")
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			if tt.written != (len(files) == 1) {
				t.Errorf("baselines written: %v, want written %v", files, tt.written)
			}
			held := strings.Contains(out, "first-seen tool baseline held for this check only")
			if held == tt.written || strings.Contains(out, "recorded first-seen") != tt.written {
				t.Errorf("the report does not say what became of the baseline:\n%s", out)
			}
		})
	}
}
