package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/mcpsnoop/mcpsnoop/capture"
)

// envelope is one log line of session "odd".
func envelope(seq int, dir string, body map[string]any) string {
	e := map[string]any{"session_id": "odd-1-aaaaaaaaaaaa", "server_label": "odd", "seq": seq,
		"ts": fmt.Sprintf("2026-07-28T12:00:%02dZ", seq), "direction": dir, "transport": "stdio"}
	for k, v := range body {
		e[k] = v
	}
	b, _ := json.Marshal(e)
	return string(b) + "\n"
}

func loadString(t *testing.T, log string) *Store {
	t.Helper()
	st, err := Load([]capture.Input{{Name: "odd.jsonl", Stdin: true}}, LoadOptions{Stdin: strings.NewReader(log)})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRowsOutliveTheReadBuffer: the method, tool and id of a row stay
// what they were when later, larger lines are read. The engine's strings
// view the reader's buffer; a row that kept them showed `"content":` as
// the method of a request once a 5 MB answer had been read after it.
func TestRowsOutliveTheReadBuffer(t *testing.T) {
	log := envelope(1, "c2s", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": "abc", "method": "tools/call", "params": map[string]any{"name": "big"}}}) +
		envelope(2, "s2c", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": "abc", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("x", 1<<20)}}}}}) +
		envelope(3, "c2s", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": 2, "method": "ping"}})
	st := loadString(t, log)
	r := st.Sessions[0].Rows[0]
	if r.Method != "tools/call" || r.Tool != "big" || r.ID != `"abc"` || r.Kind != "request" {
		t.Errorf("first row: method %q, tool %q, id %q, kind %q", r.Method, r.Tool, r.ID, r.Kind)
	}
}

// TestCleanControlCharacters: what a peer sent cannot drive the terminal
// or break the layout, in the stream, the inspector and the text output
// (the escaping itself is termsafe's test).
func TestCleanControlCharacters(t *testing.T) {
	log := envelope(1, "stderr", map[string]any{"text": "warn \x1b[2J\x1b]0;PWNED\x07 tab\there\rCR"}) +
		envelope(2, "c2s", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "evil\x1b[2J\ttool"}}})
	m := sized(New(loadString(t, log), Options{}))
	var out bytes.Buffer
	WriteText(&out, m.st, Filter{})
	press(t, m, "enter")
	pages := []string{m.View().Content, out.String()}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	press(t, m, "esc", "down")
	pages = append(pages, m.View().Content)
	for i, p := range pages {
		if strings.Contains(p, "\x1b[2J") || strings.Contains(p, "\x1b]") || strings.Contains(p, "\x07") || strings.ContainsAny(p, "\r\t") {
			t.Errorf("page %d lets control characters through:\n%q", i, p)
		}
	}
	if p := xansi.Strip(pages[0]); !strings.Contains(p, `warn \x1b[2J\x1b]0;PWNED\a tab  here\rCR`) {
		t.Errorf("the inspector does not show the stderr line escaped:\n%s", xansi.Strip(pages[0]))
	}
}

// TestInspectorCapsHugeBodies: a 5 MB frame is not put on the page whole,
// a long line is cut, and the page says where the rest is.
func TestInspectorCapsHugeBodies(t *testing.T) {
	items := make([]int, 700_000)
	log := envelope(1, "s2c", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"items": items}}}) +
		envelope(2, "s2c", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": 2, "result": map[string]any{"text": strings.Repeat("é", 3<<20)}}}) +
		envelope(3, "stderr", map[string]any{"text": strings.Repeat("y", 5<<20)})
	st := loadString(t, log)
	for i, r := range st.Sessions[0].Rows {
		page := inspect(r, st.Limits)
		if len(page) > inspectMaxBytes+2*inspectMaxLine {
			t.Errorf("frame %d: the page is %d bytes", i+1, len(page))
		}
		if !strings.Contains(page, "more bytes") {
			t.Errorf("frame %d: the page does not say it was cut", i+1)
		}
		if !strings.Contains(page, "line "+fmt.Sprint(i+1)+" of odd.jsonl") && i == 0 {
			t.Errorf("frame %d: the page does not name the log line", i+1)
		}
	}
	small := inspect(st.Sessions[0].Rows[0], st.Limits)
	if !strings.Contains(small, "{\n  \"id\": 1,\n  \"jsonrpc\": \"2.0\",\n  \"result\": {\n    \"items\": [\n      0,\n") {
		t.Errorf("a big body is still pretty-printed:\n%s", small[:200])
	}
}

// TestFilterUnicodeCase: a case-insensitive match whose lower case is
// longer in bytes than the text it matches.
func TestFilterUnicodeCase(t *testing.T) {
	r := &Row{Tool: "Ⱥpi"} // U+023A lowers to a three-byte U+2C65
	f, err := ParseFilter("ⱥp")
	if err != nil || !f.Match(r) {
		t.Errorf("ⱥp does not match tool Ⱥpi (err %v)", err)
	}
}

// TestFollowedCancelledCall: in the live view a call the client cancelled
// is call_cancelled as soon as the cancellation is read, not pending
// until a session end that a followed log never reaches; a late answer
// then makes it late_result.
func TestFollowedCancelledCall(t *testing.T) {
	lines, err := os.ReadFile(filepath.Join("..", "fixtures", "store-example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var head []string
	for _, l := range strings.SplitAfter(string(lines), "\n") {
		if strings.Contains(l, `"seq":8,`) {
			break
		}
		head = append(head, l)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "s.jsonl")
	os.WriteFile(log, []byte(strings.Join(head, "")), 0o600)
	f := NewFollower([]string{dir}, 0)
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st := NewStore(LiveLimits)
	f.History(func(b Batch) { st.Apply(b.Changes) })
	s := st.Sessions[0]
	if n := countStatus(s, "call_cancelled"); n != 2 || s.Pending != 0 {
		t.Fatalf("after the cancellation: %d call_cancelled rows, %d pending", n, s.Pending)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := make(chan Batch, 16)
	go f.Run(ctx, func(b Batch) { batches <- b })
	fl, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	for _, l := range strings.SplitAfter(string(lines), "\n") {
		if strings.Contains(l, `"seq":8,`) {
			fl.WriteString(l)
		}
	}
	fl.Close()
	collect(t, batches, st, "the late answer", func() bool { return countStatus(s, "late_result") == 3 })
	if n := countStatus(s, "late_result"); n != 3 || s.Pending != 0 {
		t.Errorf("after the late answer: %d late_result rows, %d pending", n, s.Pending)
	}
}

func countStatus(s *Session, status string) int {
	n := 0
	for _, r := range s.Rows {
		if r.Status() == status {
			n++
		}
	}
	return n
}

// TestToolsPanelRowsHoldLineBreaks: a tool name holding a line break (or a
// tab, or an escape) stays on its row of the tools panel, escaped, and
// the inspector's fields stay one line each.
func TestToolsPanelRowsHoldLineBreaks(t *testing.T) {
	call := func(seq, id int, name string) string {
		return envelope(seq, "c2s", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name}}}) +
			envelope(seq+1, "s2c", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"content": []any{}}}})
	}
	log := call(1, 1, "evil\nFORGED\t99\t0\x1b[2J") + call(3, 2, "plain")
	m := sized(New(loadString(t, log), Options{}))
	press(t, m, "t")
	var rows []string
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.Contains(l, "evil") || strings.Contains(l, "FORGED") || strings.Contains(l, "plain") {
			rows = append(rows, strings.TrimSpace(l))
		}
	}
	if len(rows) != 2 || !strings.HasPrefix(rows[0], `evil\nFORGED 99 0\x1b[2J `) || !strings.HasPrefix(rows[1], "plain ") {
		t.Errorf("tools panel rows:\n%s\nwant one row per tool, the odd name escaped:\n%s", strings.Join(rows, "\n"), screen(m))
	}
	press(t, m, "esc", "enter")
	var fields []string
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.HasPrefix(l, "tool ") || strings.HasPrefix(l, "FORGED") {
			fields = append(fields, strings.TrimSpace(l))
		}
	}
	if len(fields) != 1 || !strings.HasPrefix(fields[0], `tool          evil\nFORGED 99 0\x1b[2J`) {
		t.Errorf("the inspector shows the name as %q, want one escaped field line:\n%s", fields, screen(m))
	}
}
