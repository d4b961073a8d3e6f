package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The listing of the fixtures' runs, as a table and as JSON, against
// testdata/sessions.txt and sessions.json (go test -run SessionsGolden
// -update rewrites them).
func TestSessionsGolden(t *testing.T) {
	t.Chdir("../..") // paths in the listing are as given: fixtures/...
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"sessions.txt", []string{"sessions", "fixtures/run-traced", "fixtures/run-untraced", "fixtures/mrtr.jsonl"}},
		{"sessions.json", []string{"ls", "--json", "fixtures/run-traced", "fixtures/run-untraced", "fixtures/mrtr.jsonl"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, stdout, stderr := wrapRun(t, tc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden := filepath.Join("cmd", "mcpsnoop", "testdata", tc.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("%v differs from %s:\n%s", tc.args, golden, stdout)
			}
		})
	}
}

// Without arguments, the state directory's logs are listed; empty logs are
// no sessions; an unreadable log costs its row and exit 1; a folder that is
// not there is exit 2.
func TestSessionsStateDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	code, stdout, stderr := wrapRun(t, "sessions")
	dir := filepath.Join(home, "sessions")
	if code != 0 || stdout != "" || stderr != "mcpsnoop sessions: no session logs in "+dir+"\n" {
		t.Errorf("empty state: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, stderr = wrapRun(t, "sessions", "--json"); code != 0 || stdout != "[]\n" || stderr != "" {
		t.Errorf("empty state, --json: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	data, err := os.ReadFile("../../fixtures/run-traced/github-97145-6513269e0d37.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "github-97145-6513269e0d37.jsonl"), data)
	writeFile(t, filepath.Join(dir, "never-1-000000000000.jsonl"), nil)
	writeFile(t, filepath.Join(dir, "broken-2-000000000000.jsonl"), []byte("{\"session_id\": 5}\n"))
	code, stdout, stderr = wrapRun(t, "ls")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") ||
		!strings.HasPrefix(lines[1], "github-97145-6513269e0d37  github  2026-08-01T16:20:39Z  ") ||
		!strings.HasSuffix(lines[1], filepath.Join(dir, "github-97145-6513269e0d37.jsonl")) ||
		!strings.HasPrefix(stderr, "mcpsnoop sessions: skipped "+filepath.Join(dir, "broken-2-000000000000.jsonl")+": line 1: ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stdout:\n%s\nstderr %q", code, stdout, stderr)
	}
	missing := filepath.Join(home, "nowhere")
	if code, stdout, stderr = wrapRun(t, "sessions", missing); code != 2 || stdout != "" || stderr != "mcpsnoop sessions: "+missing+": no such folder or log\n" {
		t.Errorf("missing folder: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr = wrapRun(t, "sessions", "--jsn"); code != 2 || !strings.Contains(stderr, "unknown flag: --jsn") {
		t.Errorf("bad flag: exit %d, stderr %q", code, stderr)
	}
}

// check, open, export and diff take a label or the start of an id for a
// session of the state directory; an ambiguous word is refused, naming
// the candidates, with exit 2 and nothing on stdout.
func TestSessionWords(t *testing.T) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	dir := filepath.Join(home, "sessions")
	for _, run := range []string{"run-traced", "run-untraced"} {
		entries, err := os.ReadDir(filepath.Join("../../fixtures", run))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("../../fixtures", run, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, e.Name())
			writeFile(t, p, data)
			if run == "run-traced" {
				old := time.Now().Add(-time.Hour)
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// Both captures start at the same instant; the untraced one's logs
	// were written last, so its sessions are the newer ones.
	const newestGithub = "github-97485-1818892f902b"
	ambiguous := `session "f" is ambiguous: the ids of 2 sessions in ` + dir + ` start with it (files-97144-f2a752e6b438, files-97484-d23f128b2f33); give more of the id`
	notFound := `no session "nope": it is no file here, and no log in ` + dir + ` has that id or label, or an id starting with it`
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a line the report holds
		stderr string
	}{
		{"check by label", []string{"check", "github"}, 1, "session " + newestGithub + ":", ""},
		{"check by prefix", []string{"check", "search-97146"}, 0, "session search-97146-0c5ca6a3a450:", ""},
		{"check by exact id", []string{"check", "github-97145-6513269e0d37"}, 1, "session github-97145-6513269e0d37:", ""},
		{"check ambiguous", []string{"check", "f"}, 2, "", "mcpsnoop check: " + ambiguous},
		{"check none", []string{"check", "nope"}, 2, "", "mcpsnoop check: " + notFound},
		{"export by label", []string{"export", "-T", "text", "files"}, 0, "files-97484-d23f128b2f33", ""},
		{"export ambiguous", []string{"export", "f"}, 2, "", "mcpsnoop export: " + ambiguous},
		{"open by prefix", []string{"open", "search-97486"}, 0, "search-97486-95315d9dc9f8", ""},
		{"open ambiguous", []string{"open", "f"}, 2, "", "mcpsnoop open: " + ambiguous},
		{"diff by labels and prefixes", []string{"diff", "github-97145", "github"}, 0, "mcpsnoop diff github-97145-6513269e0d37 -> " + newestGithub, ""},
		{"diff ambiguous", []string{"diff", "github", "f"}, 2, "", "mcpsnoop diff: " + ambiguous},
		{"diff none", []string{"diff", "nope", "github"}, 2, "", "mcpsnoop diff: " + notFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := wrapRun(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) {
				t.Errorf("exit %d (want %d), stdout lacks %q:\n%s\nstderr %q", code, tc.code, tc.stdout, stdout, stderr)
			}
			if tc.stderr != "" && (stdout != "" || stderr != tc.stderr+"\n") {
				t.Errorf("stdout %q, stderr %q\nwant stderr %q", stdout, stderr, tc.stderr)
			}
		})
	}
}
