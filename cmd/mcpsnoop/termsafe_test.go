package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is what a peer can put in a session id, a label or a tool name
// to forge lines: a line break, a fake verdict, a workflow command, a
// terminal escape and a bidirectional override. JSON-escaped, for a log.
const hostile = `x\ncheck passed\n::error::forged\r\u001b[31m\u202e`

// TestPeerTextIsEscaped: whatever a log names reaches a terminal or a CI
// log as one escaped run of text, in every text output: check (with
// --verbose), export -T text, diff and open's stream. No output line is a
// forged "check passed", starts a workflow command, or holds a control or
// bidi character.
func TestPeerTextIsEscaped(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	fixture, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "mrtr.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	log := strings.NewReplacer(
		`"session_id":"demo"`, `"session_id":"s-`+hostile+`"`,
		`"server_label":"booking"`, `"server_label":"srv-`+hostile+`"`,
		`"name":"book_flight"`, `"name":"book-`+hostile+`"`,
	).Replace(string(fixture))
	// A stray line the default gate fails on, so no verdict is "passed".
	// Its text is a body (export -T text keeps a body's own line breaks):
	// only its escape sequence is hostile.
	log += `{"session_id":"s-` + hostile + `","server_label":"srv","seq":99,"ts":"2026-07-28T12:01:00Z","direction":"s2c","transport":"stdio","text":"stray \u001b]0;title\u0007"}` + "\n"
	writeFile(t, "hostile.jsonl", []byte(log))
	writeFile(t, "before.jsonl", fixture)

	outputs := map[string][]string{
		"check":           {"check", "hostile.jsonl"},
		"check --verbose": {"check", "--verbose", "--max-duration", "1ms", "hostile.jsonl"},
		"export -T text":  {"export", "-T", "text", "hostile.jsonl"},
		"diff":            {"diff", "before.jsonl", "hostile.jsonl"},
		"open":            {"open", "hostile.jsonl"},
	}
	for name, args := range outputs {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errOut)
		if code == 2 {
			t.Fatalf("%s: exit 2: %s", name, errOut.String())
		}
		text := out.String()
		if !strings.Contains(text, `\ncheck passed\n::error::forged\r\x1b[31m\u202e`) {
			t.Errorf("%s: the hostile name is not there, escaped:\n%s", name, text)
		}
		for i, line := range strings.Split(text, "\n") {
			switch {
			case line == "check passed":
				t.Errorf("%s: line %d is a forged verdict", name, i+1)
			case strings.HasPrefix(strings.TrimSpace(line), "::"):
				t.Errorf("%s: line %d starts a workflow command: %q", name, i+1, line)
			case strings.ContainsAny(line, "\r\x1b\u202e"):
				t.Errorf("%s: line %d holds a control or bidi character: %q", name, i+1, line)
			}
		}
	}
}
