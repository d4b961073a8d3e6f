package viewer

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// press sends keys to m: a single character or a named key per entry, or
// text to type when it starts with "type:".
func press(t *testing.T, m *Model, keys ...string) tea.Cmd {
	t.Helper()
	var cmd tea.Cmd
	for _, k := range keys {
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				_, cmd = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		default:
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
		}
		_, cmd = m.Update(msg)
	}
	return cmd
}

func screen(m *Model) string { return ansi.Strip(m.View().Content) }

func sized(m *Model) *Model {
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	return m
}

// TestModelFilterInspectPanelsQuit walks the viewer the way a user would:
// filter, inspect, the panels, the keys page, quit.
func TestModelFilterInspectPanelsQuit(t *testing.T) {
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{}))
	if m.screen != screenStream {
		t.Fatalf("one session opens on its stream, screen = %d", m.screen)
	}
	if s := screen(m); !strings.Contains(s, "24 frames · 9 calls · 1 pending") || !strings.Contains(s, "notifications/cancelled") {
		t.Fatalf("stream screen:\n%s", s)
	}
	press(t, m, "/", "type:status:error", "enter")
	if len(m.rows) != 2 || m.filter.String() != "status:error" {
		t.Fatalf("filter status:error selects %d rows (filter %q)", len(m.rows), m.filter.String())
	}
	s := screen(m)
	if !strings.Contains(s, "filter: status:error · 2 of 24 frames") || strings.Contains(s, "echo") {
		t.Fatalf("filtered stream:\n%s", s)
	}
	press(t, m, "down", "enter")
	s = screen(m)
	for _, want := range []string{"frame #21", "call          #7 error, 10.0ms", `"message": "Invalid params"`, "errors        tools/call fail (id 7) ended in an error"} {
		if !strings.Contains(s, want) {
			t.Errorf("inspector lacks %q:\n%s", want, s)
		}
	}
	press(t, m, "p")
	if s = screen(m); !strings.Contains(s, "frame #20") || !strings.Contains(s, `"name": "fail"`) {
		t.Errorf("p did not step back to frame #20:\n%s", s)
	}
	press(t, m, "esc", "t")
	s = screen(m)
	if !strings.Contains(s, "tools · store-example") || !strings.Contains(s, "echo    5      0       1") {
		t.Errorf("tools panel:\n%s", s)
	}
	for key, want := range map[string]string{"c": "Nothing seen yet", "i": "No multi-round-trip", "l": "No elicitations", "?": "Filter tokens"} {
		press(t, m, key)
		if s := screen(m); !strings.Contains(s, want) {
			t.Errorf("key %s: page lacks %q:\n%s", key, want, s)
		}
	}
	press(t, m, "esc")
	if m.screen != screenStream {
		t.Errorf("esc from a page goes back to the stream, screen = %d", m.screen)
	}
	press(t, m, "esc")
	if !m.filter.Empty() || len(m.rows) != 24 {
		t.Errorf("esc clears the filter: %q, %d rows", m.filter.String(), len(m.rows))
	}
	if cmd := press(t, m, "q"); cmd == nil || cmd() != tea.Quit() {
		t.Error("q does not quit")
	}
}

// TestModelBadFilterKeepsRows: a filter that does not parse says why and
// changes nothing; esc restores the filter in force.
func TestModelBadFilterKeepsRows(t *testing.T) {
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{}))
	press(t, m, "/", "type:status:bogus", "enter")
	if !m.editing || !strings.Contains(screen(m), "status is pending") {
		t.Fatalf("a bad filter must keep the input open with the reason:\n%s", screen(m))
	}
	press(t, m, "esc")
	if m.editing || len(m.rows) != 24 {
		t.Errorf("esc: editing=%v rows=%d", m.editing, len(m.rows))
	}
}

// TestModelPanelsFromReport checks the interactions and elicitations
// panels against the bundled MRTR captures.
func TestModelPanelsFromReport(t *testing.T) {
	m := sized(New(loadFixture(t, "mrtr.jsonl"), Options{}))
	press(t, m, "i")
	s := screen(m)
	for _, want := range []string{"tools/call book_flight (id 1): 3 round trips, 38.2s wall clock = 1.2s server + 37s client, completed", "hop 2 (id 2): client 12s, server 300ms, asked elicitation/create"} {
		if !strings.Contains(s, want) {
			t.Errorf("interactions panel lacks %q:\n%s", want, s)
		}
	}
	m = sized(New(loadFixture(t, "elicit.jsonl"), Options{}))
	press(t, m, "l")
	if s := screen(m); !strings.Contains(s, "tools/call login_legacy [form]") || !strings.Contains(s, "decline after") {
		t.Errorf("elicitations panel:\n%s", s)
	}
}

// frameLine is one envelope of a made-up log.
func frameLine(sid string, seq int, dir, raw string) string {
	ts := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(seq) * 10 * time.Millisecond)
	return `{"session_id":"` + sid + `","server_label":"live","seq":` + itoa(seq) + `,"ts":"` + ts.Format(time.RFC3339Nano) +
		`","direction":"` + dir + `","transport":"stdio","raw":` + raw + "}\n"
}

// TestModelLiveBatches feeds a live model the way the follower does: the
// list shows sessions newest first, a call turns from pending to ok, and
// the stream follows new frames.
func TestModelLiveBatches(t *testing.T) {
	m := sized(New(NewStore(LiveLimits), Options{Live: true}))
	if !strings.Contains(screen(m), "no sessions yet") {
		t.Fatalf("empty live view:\n%s", screen(m))
	}
	col := &Collector{Path: "a.jsonl"}
	eng := checker.New(col.Config(checker.Config{}))
	feed := func(lines ...string) {
		for _, l := range lines {
			rd := capture.NewReader(strings.NewReader(l), "a.jsonl")
			f, _, err := rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			eng.Ingest(&f, checker.Position{Name: "a.jsonl"})
		}
		m.Update(Batch{Changes: col.Take()})
	}
	feed(frameLine("s-1", 1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
	press(t, m, "enter")
	if r := m.selected(); r == nil || r.Status() != "pending" {
		t.Fatalf("the open call is pending: %+v", r)
	}
	feed(frameLine("s-1", 2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
	if len(m.rows) != 2 || m.cursor != 1 || m.rows[0].Status() != "ok" {
		t.Fatalf("after the answer: %d rows, cursor %d, status %q", len(m.rows), m.cursor, m.rows[0].Status())
	}
	if s := screen(m); !strings.Contains(s, "following") || !strings.Contains(s, "10.0ms") {
		t.Errorf("live stream:\n%s", s)
	}
	press(t, m, "esc")
	feed(frameLine("s-2", 1, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if list := m.sessionsInOrder(); list[0].ID != "s-2" || list[m.sessCursor].ID != "s-1" {
		t.Errorf("sessions list: newest first, cursor kept on s-1; got %s first, cursor on %s", list[0].ID, list[m.sessCursor].ID)
	}
}
