package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installRuns puts the seed's traced and untraced runs and an unrelated
// capture into a fresh state directory.
func installRuns(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	sessions := filepath.Join(home, "sessions")
	os.MkdirAll(sessions, 0o755)
	var logs []string
	for _, pattern := range []string{"run-traced/*.jsonl", "run-untraced/*.jsonl", "mrtr.jsonl"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", pattern))
		logs = append(logs, m...)
	}
	for _, p := range logs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(sessions, filepath.Base(p)), data, 0o644)
	}
	return sessions
}

func TestCheckRuns(t *testing.T) {
	sessions := installRuns(t)
	tests := []struct {
		args   []string
		code   int
		stdout []string
		not    []string
		stderr string
	}{
		{args: []string{"--runs"}, code: 0, stdout: []string{
			"RUN                 KEY      LABEL                                    SESSIONS  REQUESTS  ERRORS\n" +
				"p-97001-1785601212  process  client 97001 since 2026-08-01T16:20:12Z  3         9         1\n",
			"t-4bf92f3577b34da6  trace    trace 4bf92f3577b34da6a3ce929d0e0e4736   3         9         1\n" +
				// a session in no run is a run of its own
				"s-demo              session  booking                                  1         4         0\n"}},
		{args: []string{"--run", "t-4bf92f3577b34da6"}, code: 1, stdout: []string{
			"session files-97144-f2a752e6b438:", "session github-97145-6513269e0d37:", "session search-97146-0c5ca6a3a450:", "check failed: error"},
			not: []string{"demo", "97484"}},
		{args: []string{"--run", "latest"}, code: 1, stdout: []string{"session files-97484-d23f128b2f33:"}, not: []string{"97144", "demo"}},
		{args: []string{"--run", "t-0000000000000000"}, code: 2, stderr: `mcpsnoop check: run "t-0000000000000000" not found in ` + sessions + " (runs there: p-97001-1785601212, t-4bf92f3577b34da6, s-demo)"},
		{args: []string{"--run", "t-4bf92f3577b34da6", filepath.Join("..", "..", "fixtures", "run-traced")}, code: 1, stdout: []string{"session search-97146-0c5ca6a3a450:"}},
		// Logs of no run (an http capture, a reference log): latest is the
		// newest session, as the action's default needs.
		{args: []string{"--run", "latest", filepath.Join("..", "..", "fixtures", "mrtr.jsonl")}, code: 0, stdout: []string{"session demo:", "check passed"}},
		{args: []string{"--run", "s-demo"}, code: 0, stdout: []string{"session demo:"}, not: []string{"97144", "97484"}},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"check"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tt.args, code, tt.code, stdout.String(), stderr.String())
			continue
		}
		for _, w := range tt.stdout {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", tt.args, w, stdout.String())
			}
		}
		for _, w := range tt.not {
			if strings.Contains(stdout.String(), w) {
				t.Errorf("%v: stdout has %q:\n%s", tt.args, w, stdout.String())
			}
		}
		if tt.stderr != "" && !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("%v: stderr = %q, want %q", tt.args, stderr.String(), tt.stderr)
		}
		if code == 2 && stdout.Len() > 0 {
			t.Errorf("%v: exit 2 with output", tt.args)
		}
	}
}

func TestCheckRunsSkipsUnreadableStateLogs(t *testing.T) {
	sessions := installRuns(t)
	os.WriteFile(filepath.Join(sessions, "zz-crashed.jsonl"), []byte(`{"session_id":"x","se`), 0o644)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", "--runs"}, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "t-4bf92f3577b34da6") {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "skipping") || !strings.Contains(stderr.String(), "zz-crashed.jsonl") {
		t.Errorf("stderr = %q", stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"check", "--run", "latest", "-"}, strings.NewReader(""), &stdout, &stderr); code != 2 || stdout.Len() > 0 || !strings.Contains(stderr.String(), "standard input") {
		t.Errorf("--run with -: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}
