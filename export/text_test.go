package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// TestTextTitlesAreTerminalSafe: what the peers named is escaped in title
// lines, and any byte in a tool name (NUL included) stays inside its field.
func TestTextTitlesAreTerminalSafe(t *testing.T) {
	log := `{"session_id":"s","seq":1,"ts":"2026-07-28T12:00:00Z","direction":"c2s","raw":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a\u0000b\u001b[2J"}}}
{"session_id":"s","seq":2,"ts":"2026-07-28T12:00:01Z","direction":"s2c","raw":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}
{"session_id":"s","seq":3,"ts":"2026-07-28T12:00:02Z","direction":"c2s","raw":{"jsonrpc":"2.0","id":3,"method":"odd\u001b]0;title\u0007"}}
`
	x, err := Load(NewText(), []capture.Input{{Name: "stdin", Stdin: true}}, strings.NewReader(log), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var out bytes.Buffer
	if err := x.Write(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		`#1 2026-07-28T12:00:00Z c2s request tools/call id=2 status=ok duration_ms=1000.000 tool=a\x00b\x1b[2J` + "\n",
		`#2 2026-07-28T12:00:01Z s2c response tools/call id=2 status=ok duration_ms=1000.000 tool=a\x00b\x1b[2J` + "\n",
		`#3 2026-07-28T12:00:02Z c2s request odd\x1b]0;title\a id=3 status=pending duration_ms=pending` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing title %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "root_id") {
		t.Errorf("a root_id appeared though no frame is an MRTR retry:\n%s", text)
	}
}
