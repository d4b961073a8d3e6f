package viewer

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

func key(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code} }

// TestInspectorKeys: left and right scroll the inspector sideways instead
// of leaving it, g/G (and home/end) go to the top and bottom of the
// inspector and of a panel, esc and backspace go back.
func TestInspectorKeys(t *testing.T) {
	wide := strings.Repeat("w", 400)
	var lines []string
	for range 80 {
		lines = append(lines, wide)
	}
	log := envelope(1, "c2s", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"data": lines}}})
	m := sized(New(loadString(t, log), Options{}))
	press(t, m, "enter")
	if m.screen != screenDetail {
		t.Fatal("enter opens the inspector")
	}
	m.Update(key(tea.KeyRight))
	if m.screen != screenDetail || m.vp.XOffset() == 0 {
		t.Errorf("right scrolls sideways: screen %d, x offset %d", m.screen, m.vp.XOffset())
	}
	m.Update(key(tea.KeyLeft))
	if m.screen != screenDetail || m.vp.XOffset() != 0 {
		t.Errorf("left scrolls back, staying in the inspector: screen %d, x offset %d", m.screen, m.vp.XOffset())
	}
	press(t, m, "G")
	if !m.vp.AtBottom() || m.vp.YOffset() == 0 {
		t.Errorf("G goes to the bottom (y offset %d)", m.vp.YOffset())
	}
	press(t, m, "g")
	if !m.vp.AtTop() {
		t.Error("g goes to the top")
	}
	m.Update(key(tea.KeyEnd))
	if !m.vp.AtBottom() {
		t.Error("end goes to the bottom")
	}
	m.Update(key(tea.KeyBackspace))
	if m.screen != screenStream {
		t.Errorf("backspace goes back: screen %d", m.screen)
	}
	// A panel: the keys page is long enough to scroll in a short window.
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 10})
	press(t, m, "?", "G")
	if !m.vp.AtBottom() || m.vp.YOffset() == 0 {
		t.Error("G goes to the bottom of the keys page")
	}
	press(t, m, "g")
	if !m.vp.AtTop() {
		t.Error("g goes to the top of the keys page")
	}
	if s := helpText(false); !strings.Contains(s, "←/→") || !strings.Contains(s, "g/G home/end") {
		t.Errorf("the keys page tells of the new keys:\n%s", s)
	}
	press(t, m, "esc")
	if m.screen != screenStream {
		t.Errorf("esc goes back: screen %d", m.screen)
	}
}

// TestLivePanelAsync: in the live view a panel is built by a command, off
// the UI's goroutine: the page says loading meanwhile, the keys work, and
// a result that comes after the user moved on is ignored.
func TestLivePanelAsync(t *testing.T) {
	st := loadString(t, envelope(1, "c2s", map[string]any{"raw": map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "x"}}}))
	rep := st.Sessions[0].Report
	st.Sessions[0].Report = nil // as in the live view
	m := sized(New(st, Options{Live: true}))
	release := make(chan struct{})
	var asked []string
	m.report = func(s *Session, which string) (*checker.SessionReport, error) {
		asked = append(asked, which)
		<-release
		if which == "capabilities" {
			return nil, errors.New("boom")
		}
		return rep, nil
	}
	cmd := press(t, m, "t")
	if cmd == nil || !strings.Contains(screen(m), "loading...") {
		t.Fatalf("t starts a command and shows loading:\n%s", screen(m))
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	press(t, m, "down") // the UI still takes keys
	close(release)
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the panel command did not finish")
	}
	m.Update(msg)
	if s := screen(m); !strings.Contains(s, "TOOL") || strings.Contains(s, "loading...") {
		t.Errorf("the tools panel once built:\n%s", s)
	}
	// Stale: asked for, then left before it came.
	press(t, m, "esc", "i")
	press(t, m, "esc")
	m.Update(panelMsg{req: m.panelReq - 1, which: "interactions", sess: m.currentSession(), rep: rep})
	if m.screen == screenDetail {
		t.Errorf("a panel that came after esc is ignored:\n%s", screen(m))
	}
	// An error goes to the status line.
	cmd = press(t, m, "c")
	m.Update(cmd())
	if s := screen(m); m.screen == screenDetail || !strings.Contains(s, "cannot build the capabilities panel: boom") {
		t.Errorf("a failed panel:\n%s", s)
	}
	if strings.Join(asked, ",") != "tools,capabilities" {
		t.Errorf("asked %v", asked)
	}
}
