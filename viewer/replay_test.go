package viewer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// replayer stands in for the command's ReplayFunc: it records what the
// viewer asked for and what it ran. (The real one, through the shim, is
// driven under tmux in cmd/mcpsnoop.)
type replayer struct {
	asked []ReplayRequest
	runs  int
}

func (r *replayer) fn(req ReplayRequest) (*ReplayJob, error) {
	r.asked = append(r.asked, req)
	return &ReplayJob{Call: "tools/call fail (line 20)", Target: "python3 server.py", Run: func(context.Context) ReplayResult {
		r.runs++
		return ReplayResult{Recorded: `{"error": "recorded"}`, Replayed: `{"result": "replayed"}`, RecordedAt: "/logs/s.jsonl, line 21", Log: "/state/replays/x.jsonl", Notes: []string{"differs"}}
	}}, nil
}

// settle runs cmd and every command its message leads to, as the
// program would.
func settle(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command to run")
	}
	for cmd != nil {
		_, cmd = m.Update(cmd())
	}
}

// cursorOn puts the stream's cursor on the frame with seq.
func cursorOn(t *testing.T, m *Model, seq uint64) *Row {
	t.Helper()
	for i, r := range m.rows {
		if r.Seq == seq {
			m.cursor = i
			return r
		}
	}
	t.Fatalf("no frame #%d", seq)
	return nil
}

// r asks before the session's first send and sends nothing on anything
// but y; after a yes the session's later replays go at once; the page
// shows both answers side by side. On an answer, r replays its request.
func TestReplayKeyAsksThenShows(t *testing.T) {
	rp := &replayer{}
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{Replay: rp.fn}))
	cursorOn(t, m, 21) // the answer to frame #20
	if settle(t, m, press(t, m, "r")); rp.runs != 0 {
		t.Fatal("r sent before asking")
	}
	if len(rp.asked) != 1 || rp.asked[0].Seq != 20 || rp.asked[0].Line != 20 || !strings.HasSuffix(rp.asked[0].Path, "store-example.jsonl") {
		t.Fatalf("asked %+v", rp.asked)
	}
	if s := screen(m); !strings.Contains(s, "replay tools/call fail (line 20) against python3 server.py? y/n") {
		t.Fatalf("no question:\n%s", s)
	}
	press(t, m, "n")
	if rp.runs != 0 || !strings.Contains(screen(m), "replay cancelled; nothing was sent") {
		t.Fatalf("n: runs %d\n%s", rp.runs, screen(m))
	}
	settle(t, m, press(t, m, "r"))
	run(t, m, press(t, m, "y"))
	s := screen(m)
	if rp.runs != 1 || !strings.Contains(s, "replay · tools/call fail (line 20)") {
		t.Fatalf("after y: runs %d\n%s", rp.runs, s)
	}
	if strings.Contains(s, "y/n") { // answered: the question leaves the footer
		t.Errorf("the question stayed after y:\n%s", s)
	}
	for _, want := range []string{"RECORDED", "│ REPLAYED", `{"error": "recorded"}`, `│ {"result": "replayed"}`, "recorded answer: /logs/s.jsonl, line 21", "replay log: /state/replays/x.jsonl", "differs"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q:\n%s", want, s)
		}
	}
	press(t, m, "esc")
	settle(t, m, press(t, m, "r")) // agreed to for this session: no question
	if rp.runs != 2 {
		t.Errorf("runs %d", rp.runs)
	}
}

// r refuses a frame whose body the viewer released, and a session read
// from standard input, without asking the command for anything.
func TestReplayKeyRefuses(t *testing.T) {
	rp := &replayer{}
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{Replay: rp.fn}))
	cursorOn(t, m, 20).release()
	press(t, m, "r")
	if s := screen(m); !strings.Contains(s, "replay: the body of frame #20 was released") || !strings.Contains(s, "at line 20") {
		t.Errorf("released frame:\n%s", s)
	}
	cursorOn(t, m, 2).src = &rowSource{session: "s", path: ""}
	press(t, m, "r")
	if !strings.Contains(m.notice, "standard input") {
		t.Errorf("stdin session: %q", m.notice)
	}
	if len(rp.asked) != 0 {
		t.Errorf("asked the command for %+v", rp.asked)
	}
	m = sized(New(loadFixture(t, "store-example.jsonl"), Options{}))
	press(t, m, "r")
	if m.notice != "replay: not available here" {
		t.Errorf("without a ReplayFunc: %q", m.notice)
	}
}

// r reads the recording again through the command's ReplayFunc, which
// reads the whole log: that runs in a command, off the UI's goroutine.
// The status line says it is loading, keys keep working, the question
// comes once the job is ready, and a preparation r superseded is dropped.
func TestReplayKeyPreparesOffTheUIGoroutine(t *testing.T) {
	release := make(chan struct{})
	var asked []ReplayRequest
	slow := func(req ReplayRequest) (*ReplayJob, error) {
		<-release
		asked = append(asked, req)
		if req.Line == 2 {
			return nil, errors.New("line 2 is not a request the replay can send")
		}
		return &ReplayJob{Call: "tools/call fail (line 20)", Target: "python3 server.py", Run: func(context.Context) ReplayResult { return ReplayResult{} }}, nil
	}
	m := sized(New(loadFixture(t, "store-example.jsonl"), Options{Replay: slow}))
	cursorOn(t, m, 21)
	pressed := make(chan tea.Cmd, 1)
	go func() { pressed <- press(t, m, "r") }()
	var cmd tea.Cmd
	select {
	case cmd = <-pressed:
	case <-time.After(10 * time.Second):
		close(release) // let the blocked key return before failing
		t.Fatal("r blocked the UI's goroutine while the recording was read")
	}
	if cmd == nil || !strings.Contains(screen(m), "replay: loading the call at line 20 of ") {
		t.Fatalf("r starts a command and says it is loading:\n%s", screen(m))
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	press(t, m, "down") // the UI still takes keys
	close(release)
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the preparation did not finish")
	}
	m.Update(msg)
	if s := screen(m); !strings.Contains(s, "replay tools/call fail (line 20) against python3 server.py? y/n") || len(asked) != 1 {
		t.Fatalf("once prepared:\n%s", s)
	}
	press(t, m, "n")

	// Superseded: the first preparation's answer comes after the second r.
	cursorOn(t, m, 21)
	first := press(t, m, "r")
	cursorOn(t, m, 2)
	second := press(t, m, "r")
	m.Update(first())
	if m.replay.pending != nil {
		t.Error("a superseded preparation asked")
	}
	m.Update(second())
	if s := screen(m); !strings.Contains(s, "replay: line 2 is not a request the replay can send") {
		t.Errorf("a failed preparation:\n%s", s)
	}
}
