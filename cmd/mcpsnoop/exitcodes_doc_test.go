package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExitCodesAgreeWithTheDocs: for the commands whose --help states its
// exit codes in the reference's words, the two say the same, code by code:
// the row of docs/reference/exit-codes.md and the "Exit codes:" paragraph
// of the command's help.
func TestExitCodesAgreeWithTheDocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", "exit-codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	space := regexp.MustCompile(`\s+`)
	for _, name := range []string{"baseline"} {
		row := regexp.MustCompile("(?m)^\\| `" + name + "` \\| (.*) \\|$").FindStringSubmatch(string(data))
		if row == nil {
			t.Fatalf("exit-codes.md has no row for %s", name)
		}
		cells := strings.Split(row[1], " | ")
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd.Name() != name {
			t.Fatalf("no command %s: %v", name, err)
		}
		_, help, ok := strings.Cut(cmd.Long, "Exit codes: ")
		if !ok {
			t.Fatalf("%s --help says nothing of its exit codes", name)
		}
		help = strings.TrimSuffix(space.ReplaceAllString(strings.TrimSpace(help), " "), ".")
		var want []string
		for code, cell := range cells {
			if cell != "" {
				want = append(want, string(rune('0'+code))+" "+cell)
			}
		}
		if got := strings.Join(want, "; "); help != got {
			t.Errorf("%s: --help says\n  Exit codes: %s.\nthe reference says\n  Exit codes: %s.", name, help, got)
		}
	}
}
