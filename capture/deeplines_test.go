package capture

import (
	"strings"
	"testing"
)

// writeLines logs each line on the protocol channel through a LineSplitter,
// as the stdio shim does, and returns the log's bytes.
func writeLines(t *testing.T, red *Redactor, lines ...string) []byte {
	t.Helper()
	out := &memLog{}
	w := NewLogWriter(out, LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "deep.jsonl", Redactor: red})
	l := w.Lines(ServerToClient)
	for _, line := range lines {
		for rest := []byte(line + "\n"); len(rest) > 0; {
			buf := l.Buffer(min(len(rest), 64<<10))
			n := copy(buf, rest)
			l.Number(buf[:n])
			l.Fill()
			rest = rest[n:]
		}
	}
	l.End()
	if lost := w.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
	return out.buf.Bytes()
}

// The capture never writes a line its reader refuses: a message nested
// exactly as deep as encoding/json takes (10,000) would make an envelope
// one level deeper, so it is logged as text, like one nested deeper still;
// one level less is kept as raw. Every frame reads back, with or without
// redaction rules.
func TestDeepMessagesReadBack(t *testing.T) {
	nest := func(depth int, open, close string) string {
		return `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat(open, depth-1) + `1` + strings.Repeat(close, depth-1) + `}`
	}
	for _, red := range []*Redactor{nil, mustRedactor(t, RedactOptions{Secrets: true}), mustRedactor(t, RedactOptions{Paths: []string{"$..k"}})} {
		for _, tc := range []struct {
			depth int
			raw   bool
		}{{MaxRawNesting, true}, {maxNesting, false}, {maxNesting + 1, false}} {
			for _, shape := range [][2]string{{"[", "]"}, {`{"k":`, "}"}} {
				line := nest(tc.depth, shape[0], shape[1])
				data := writeLines(t, red, line, `{"jsonrpc":"2.0","id":2,"result":{}}`)
				r := NewReader(strings.NewReader(string(data)), "deep.jsonl")
				var got []Frame
				for {
					f, _, err := r.Next()
					if err != nil {
						if err.Error() != "EOF" {
							t.Fatalf("depth %d %s (rules %v): the log does not read back: %.200v", tc.depth, shape[0], red != nil, err)
						}
						break
					}
					got = append(got, f.Clone())
				}
				if len(got) != 2 || (len(got[0].Raw) > 0) != tc.raw || (len(got[0].Raw) == 0 && got[0].Text == "") {
					t.Errorf("depth %d %s (rules %v): %d frames, first raw %d bytes, text %d bytes", tc.depth, shape[0], red != nil, len(got), len(got[0].Raw), len(got[0].Text))
				}
			}
		}
	}
}
