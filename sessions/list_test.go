package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestList(t *testing.T) {
	logs, err := Logs(filepath.Join("..", "fixtures", "run-traced"))
	if err != nil || len(logs) != 3 {
		t.Fatalf("Logs: %d, %v", len(logs), err)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs = append(logs, Input(bad))
	entries, problems := List(logs)
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), bad) {
		t.Errorf("problems %v, want one naming %s", problems, bad)
	}
	if len(entries) != 3 {
		t.Fatalf("%d entries", len(entries))
	}
	for i := 1; i < len(entries); i++ {
		if entries[i].Start.After(entries[i-1].Start) {
			t.Errorf("not newest first: %v before %v", entries[i-1].Start, entries[i].Start)
		}
	}
	var github Entry
	for _, e := range entries {
		if e.Label == "github" {
			github = e
		}
		if len(e.RunIDs) != 1 || e.RunIDs[0] != "t-4bf92f3577b34da6" || e.Line != 1 || e.Transport != "stdio" {
			t.Errorf("%s: runs %v, line %d, transport %q", e.ID, e.RunIDs, e.Line, e.Transport)
		}
	}
	if github.ID != "github-97145-6513269e0d37" || github.Errors != 1 || github.Calls == 0 || github.Frames <= github.Calls ||
		!strings.HasSuffix(github.Path, "github-97145-6513269e0d37.jsonl") || github.Start.IsZero() || !github.Last.After(github.Start) {
		t.Errorf("github: %+v", github)
	}
	if got, _ := Logs(filepath.Join(t.TempDir(), "missing")); got != nil {
		t.Errorf("a missing folder lists %v", got)
	}
}

func TestWriteTextEscapes(t *testing.T) {
	var b strings.Builder
	e := Entry{ID: "a\x1b[2Jb", Label: "", Start: time.Date(2026, 8, 1, 10, 0, 0, 5, time.FixedZone("x", 3600)), Path: "p\tq"}
	if err := WriteText(&b, []Entry{e}); err != nil {
		t.Fatal(err)
	}
	want := "ID         LABEL  START                 FRAMES  CALLS  ERRORS  RUN  PATH\n" +
		`a\x1b[2Jb` + "  -      2026-08-01T09:00:00Z  0       0      0       -    p q\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}
}
