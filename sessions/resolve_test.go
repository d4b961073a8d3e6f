package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logLine is a meta frame: enough for a log to name its session.
func logLine(id, label, ts string) string {
	return `{"session_id":"` + id + `","server_label":"` + label + `","seq":1,"ts":"` + ts + `","direction":"meta","transport":"stdio","raw":{"command":["x"]}}` + "\n"
}

// stateDir lays out a sessions folder the way captures leave it.
func stateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"fs-100-aaaaaaaaaaaa.jsonl":              logLine("fs-100-aaaaaaaaaaaa", "fs", "2026-08-01T10:00:00Z"),
		"fs-200-bbbbbbbbbbbb.jsonl":              logLine("fs-200-bbbbbbbbbbbb", "fs", "2026-08-01T11:00:00Z"),
		"github-300-cccccccccccc.jsonl":          logLine("github-300-cccccccccccc", "github", "2026-08-01T09:00:00Z"),
		"127.0.0.1_38081-400-dddddddddddd.jsonl": logLine("127.0.0.1_38081-400-dddddddddddd", "127.0.0.1:38081", "2026-08-01T08:00:00Z"),
		"127.0.0.1_38081-401-eeeeeeeeeeee.jsonl": logLine("127.0.0.1_38081-401-eeeeeeeeeeee", "127.0.0.1:38081", "2026-08-01T08:30:00Z"),
		"trace.jsonl":                            logLine("run-7f3a", "notes", "2026-08-01T07:00:00Z"),
		"empty-500-ffffffffffff.jsonl":           "",
		"garbage-600-000000000000.jsonl":         "not a frame\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResolve(t *testing.T) {
	dir := stateDir(t)
	tests := []struct {
		word, want string // want: the log's name, or the error
	}{
		{"fs-100-aaaaaaaaaaaa", "fs-100-aaaaaaaaaaaa.jsonl"}, // an exact id
		{"run-7f3a", "trace.jsonl"},                          // an exact id inside a log of another name
		{"fs", "fs-200-bbbbbbbbbbbb.jsonl"},                  // a label: its newest session, though "fs" starts two ids
		{"github", "github-300-cccccccccccc.jsonl"},
		{"127.0.0.1:38081", "127.0.0.1_38081-401-eeeeeeeeeeee.jsonl"}, // the label as recorded
		{"127.0.0.1_38081", "127.0.0.1_38081-401-eeeeeeeeeeee.jsonl"}, // as spelled in the file name
		{"git", "github-300-cccccccccccc.jsonl"},                      // a unique prefix
		{"fs-1", "fs-100-aaaaaaaaaaaa.jsonl"},
		{"run-7", "trace.jsonl"}, // a prefix of an id inside a log
		{"fs-", `session "fs-" is ambiguous: the ids of 2 sessions in ` + dir + ` start with it (fs-100-aaaaaaaaaaaa, fs-200-bbbbbbbbbbbb); give more of the id`},
		{"127", `session "127" is ambiguous: the ids of 2 sessions in ` + dir + ` start with it (127.0.0.1_38081-400-dddddddddddd, 127.0.0.1_38081-401-eeeeeeeeeeee); give more of the id`},
		{"nope", `no session "nope": it is no file here, and no log in ` + dir + ` has that id or label, or an id starting with it`},
		{"empty", `no session "empty": it is no file here, and no log in ` + dir + ` has that id or label, or an id starting with it`},
		{"garbage", `no session "garbage": it is no file here, and no log in ` + dir + ` has that id or label, or an id starting with it`},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got, err := Resolve(tt.word, dir)
			if strings.HasSuffix(tt.want, ".jsonl") {
				if err != nil || got != filepath.Join(dir, tt.want) {
					t.Errorf("Resolve = %q, %v; want %s", got, err, tt.want)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Errorf("Resolve = %q, %v; want the error %s", got, err, tt.want)
			}
		})
	}
}

func TestAmbiguousErrorNamesAtMostTen(t *testing.T) {
	dir := t.TempDir()
	for i := range 12 {
		id := "srv-" + string(rune('a'+i)) + "00-aaaaaaaaaaaa"
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(logLine(id, "x"+id, "2026-08-01T10:00:00Z")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Resolve("srv", dir)
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 12 || !strings.Contains(err.Error(), "srv-j00-aaaaaaaaaaaa and 2 more); give more of the id") {
		t.Errorf("err %v", err)
	}
	// Ten are all named, with nothing said of more.
	amb.Candidates = amb.Candidates[:10]
	if msg := amb.Error(); !strings.Contains(msg, "srv-j00-aaaaaaaaaaaa); give more of the id") || strings.Contains(msg, "more)") {
		t.Errorf("ten candidates: %s", msg)
	}
}

// ResolveWords touches words only: paths, "-" and existing files go on as
// they are; an exact id becomes its log's path.
func TestResolveWords(t *testing.T) {
	dir := stateDir(t)
	t.Chdir(t.TempDir())
	if err := os.WriteFile("fs", []byte("x"), 0o600); err != nil { // a file in the working directory wins
		t.Fatal(err)
	}
	args := []string{"-", "fs", "logs/x.jsonl", "y.jsonl", "fs-200-bbbbbbbbbbbb", "git", "run-7f3a"}
	got, err := ResolveWords(args, dir)
	want := []string{"-", "fs", "logs/x.jsonl", "y.jsonl", filepath.Join(dir, "fs-200-bbbbbbbbbbbb.jsonl"), filepath.Join(dir, "github-300-cccccccccccc.jsonl"), filepath.Join(dir, "trace.jsonl")}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ResolveWords = %q, %v\nwant %q", got, err, want)
	}
	if _, err := ResolveWords([]string{"git", "fs-"}, dir); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("an ambiguous word among good ones: %v", err)
	}
	// A state directory that does not exist: the word is not found.
	if _, err := ResolveWords([]string{"fsx"}, filepath.Join(dir, "none")); err == nil {
		t.Error("a word resolved in a missing folder")
	}
}

// TestResolveAcrossFolders: the words look in every folder given (the
// state directory's sessions, MCPSNOOP_LOG_DIR, a config's log-dir), as
// one: a label found in any, its newest session across them, an exact id
// in the second, a prefix unique over all, and errors that name them all.
func TestResolveAcrossFolders(t *testing.T) {
	state, logs := t.TempDir(), t.TempDir()
	for dir, files := range map[string]map[string]string{
		state: {
			"fs-100-aaaaaaaaaaaa.jsonl": logLine("fs-100-aaaaaaaaaaaa", "fs", "2026-08-01T10:00:00Z"),
		},
		logs: {
			"notes-200-bbbbbbbbbbbb.jsonl": logLine("notes-200-bbbbbbbbbbbb", "notes", "2026-08-01T09:00:00Z"),
			"fs-300-cccccccccccc.jsonl":    logLine("fs-300-cccccccccccc", "fs", "2026-08-01T11:00:00Z"),
		},
	} {
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	dirs := []string{state, filepath.Join(state, "missing"), logs}
	for _, tt := range []struct{ word, want string }{
		{"notes", filepath.Join(logs, "notes-200-bbbbbbbbbbbb.jsonl")},
		{"fs", filepath.Join(logs, "fs-300-cccccccccccc.jsonl")}, // the newest of the label, whichever folder
		{"notes-200-bbbbbbbbbbbb", filepath.Join(logs, "notes-200-bbbbbbbbbbbb.jsonl")},
		{"fs-1", filepath.Join(state, "fs-100-aaaaaaaaaaaa.jsonl")},
		{"fs-", `session "fs-" is ambiguous: the ids of 2 sessions in ` + state + ", " + filepath.Join(state, "missing") + " and " + logs + ` start with it (fs-100-aaaaaaaaaaaa, fs-300-cccccccccccc); give more of the id`},
		{"nope", `no session "nope": it is no file here, and no log in ` + state + ", " + filepath.Join(state, "missing") + " or " + logs + ` has that id or label, or an id starting with it`},
	} {
		got, err := Resolve(tt.word, dirs...)
		if strings.HasSuffix(tt.want, ".jsonl") {
			if err != nil || got != tt.want {
				t.Errorf("%s: %q, %v; want %s", tt.word, got, err, tt.want)
			}
			continue
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %q, %v; want the error %s", tt.word, got, err, tt.want)
		}
	}
	// Folder names may come from a repository's config: escaped.
	if err := (&NotFoundError{Word: "x", Dirs: []string{"a\x1b[31mb"}}).Error(); strings.Contains(err, "\x1b") {
		t.Errorf("an escape sequence reached the message: %q", err)
	}
}
