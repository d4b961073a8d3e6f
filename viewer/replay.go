package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// ReplayFunc prepares the replay of one recorded call, for the r and R
// keys. The command that runs the viewer supplies it (Options.Replay): it
// knows where a replay may go (the recorded command, --replay-target) and
// runs it through mcpsnoop's capture. It returns an error, shown in the
// status line, when the call cannot be replayed at all.
type ReplayFunc func(req ReplayRequest) (*ReplayJob, error)

// ReplayRequest names the recorded call to replay.
type ReplayRequest struct {
	SessionID string
	Path      string // the log the request frame was read from
	Seq       uint64 // the request frame
	Line      int
	// Params replace the recorded params (R, after an edit); nil sends
	// them as recorded.
	Params json.RawMessage
}

// ReplayJob is a replay ready to go, once the user has said yes.
type ReplayJob struct {
	Call   string // what is replayed, in words
	Target string // where it goes, in words
	Run    func(ctx context.Context) ReplayResult
}

// ReplayResult is what a replay came to: both answers, as text to show
// side by side, and where each one is logged.
type ReplayResult struct {
	Recorded string // the recorded answer, pretty-printed ("" when none)
	Replayed string // the new answer, pretty-printed ("" when none came)
	// RecordedAt is where the recorded answer is: its log and line (it
	// stays there; nothing is copied).
	RecordedAt string
	// Log is the replay log the replay's own session (handshake, the
	// call, the new answer) was appended to.
	Log   string
	Notes []string
	Err   error
}

// replayState is the r key's state in the model.
type replayState struct {
	confirmed map[string]bool // sessions whose first send the user agreed to
	pending   *ReplayJob      // waiting for y
	session   string          // the pending job's session
	req       int             // numbers replays: only the latest one's result is shown
	prep      int             // numbers preparations: only the latest one goes on
}

// replayMsg is a replay's result, sent from the command that ran it.
type replayMsg struct {
	req int
	job *ReplayJob
	res ReplayResult
}

// preparedMsg is a replay prepared off the UI's goroutine (the command
// reads the recording again to find the call): the job, or why there is
// none.
type preparedMsg struct {
	prep int
	rr   ReplayRequest
	job  *ReplayJob
	err  error
}

// editedMsg is the params the user saved in the editor (R).
type editedMsg struct {
	req  ReplayRequest
	path string
	err  error
}

// replayHelp is the keys page's section on replay.
const replayHelp = `
Replay (stream and inspector)
  r            re-issue the call under the cursor against a live server (asks
               before the first send of a session) and show the new answer
               beside the recorded one
  R            the same, after editing the call's params in $VISUAL or $EDITOR
`

// startReplay handles r (edit false) and R (edit true) on the frame under
// the cursor: the call it belongs to is re-issued.
func (m *Model) startReplay(edit bool) tea.Cmd {
	r := m.selected()
	switch {
	case m.opts.Replay == nil:
		m.notice = "replay: not available here"
		return nil
	case r == nil:
		m.notice = "replay: no frame selected"
		return nil
	}
	req := m.requestRow(r)
	switch {
	case req == nil:
		m.notice = "replay: this frame belongs to no request of the client's; select a request or its answer"
		return nil
	case req.Released():
		// A row keeps its place when its body is released; replaying it
		// would need the body, and reading something else in its stead
		// is how a wrong call gets sent.
		m.notice = fmt.Sprintf("replay: the body of frame #%d was released to keep the viewer within its memory; it is still in %s at line %d (mcpsnoop open that log to replay it)", req.Seq, req.Source(), req.Line)
		return nil
	case req.Source() == "":
		m.notice = "replay: the session was read from standard input, so its log cannot be read again; open the log file to replay"
		return nil
	}
	rr := ReplayRequest{SessionID: req.SessionID(), Path: req.Source(), Seq: req.Seq, Line: int(req.Line)}
	if !edit {
		return m.prepareReplay(rr)
	}
	return m.editParams(rr, req)
}

// requestRow is the client request r belongs to: r itself, or the first
// request of its call.
func (m *Model) requestRow(r *Row) *Row {
	if r.Direction == "c2s" && r.Kind == "request" {
		return r
	}
	if r.CallIndex < 0 || m.sess == nil {
		return nil
	}
	for _, x := range m.sess.Rows {
		if x.CallIndex == r.CallIndex && x.Direction == "c2s" && x.Kind == "request" {
			return x
		}
	}
	return nil
}

// prepareReplay asks the command for the job, by a command of its own:
// the command reads the whole log again, which is not for the UI's
// goroutine. The status line says so meanwhile and keys keep working.
func (m *Model) prepareReplay(rr ReplayRequest) tea.Cmd {
	m.replay.prep++
	prep, replay := m.replay.prep, m.opts.Replay
	m.notice = fmt.Sprintf("replay: loading the call at line %d of %s...", rr.Line, rr.Path)
	return func() tea.Msg {
		job, err := replay(rr)
		return preparedMsg{prep: prep, rr: rr, job: job, err: err}
	}
}

// replayPrepared goes on with a prepared replay, unless another one was
// asked for meanwhile: unless the session's first send was already agreed
// to, it asks the user.
func (m *Model) replayPrepared(msg preparedMsg) tea.Cmd {
	if msg.prep != m.replay.prep || m.replay.pending != nil {
		return nil // stale: r was pressed again, or a question is open
	}
	if msg.err != nil {
		m.notice = "replay: " + msg.err.Error()
		return nil
	}
	if m.replay.confirmed[msg.rr.SessionID] || m.opts.ReplayYes {
		m.notice = ""
		return m.launchReplay(msg.job)
	}
	m.replay.pending, m.replay.session = msg.job, msg.rr.SessionID
	m.notice = fmt.Sprintf("replay %s against %s? y/n", msg.job.Call, msg.job.Target)
	return nil
}

// replayAnswer takes the answer to the question before a session's first
// send: y sends, anything else does not. Either way the question leaves the
// footer: answered, it asks nothing any more.
func (m *Model) replayAnswer(key string) tea.Cmd {
	job := m.replay.pending
	m.replay.pending = nil
	m.notice = ""
	if key != "y" && key != "Y" {
		m.notice = "replay cancelled; nothing was sent"
		return nil
	}
	if m.replay.confirmed == nil {
		m.replay.confirmed = map[string]bool{}
	}
	m.replay.confirmed[m.replay.session] = true
	return m.launchReplay(job)
}

func (m *Model) launchReplay(job *ReplayJob) tea.Cmd {
	m.replay.req++
	req := m.replay.req
	m.showPage(replayTitle(job), fmt.Sprintf("replaying %s against %s...\n", job.Call, job.Target))
	return func() tea.Msg {
		return replayMsg{req: req, job: job, res: job.Run(context.Background())}
	}
}

func replayTitle(job *ReplayJob) string { return "replay · " + job.Call }

// replayDone shows a finished replay, unless another one was started.
func (m *Model) replayDone(msg replayMsg) {
	if msg.req != m.replay.req {
		return
	}
	if msg.res.Err != nil {
		m.notice = "replay failed: " + msg.res.Err.Error()
	}
	m.showPage(replayTitle(msg.job), m.replayPage(msg.job, msg.res))
}

// replayPage lays the recorded and the replayed answer side by side when
// the terminal is wide enough, else one above the other.
func (m *Model) replayPage(job *ReplayJob, res ReplayResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay of %s against %s\n", job.Call, job.Target)
	if res.RecordedAt != "" {
		fmt.Fprintf(&b, "recorded answer: %s\n", res.RecordedAt)
	}
	if res.Log != "" {
		fmt.Fprintf(&b, "replay log: %s\n", res.Log)
	}
	if res.Err != nil {
		fmt.Fprintf(&b, "failed: %v\n", res.Err)
	}
	for _, n := range res.Notes {
		b.WriteString(n + "\n")
	}
	b.WriteString("\n")
	left, right := orNone(res.Recorded), orNone(res.Replayed)
	if m.width < 80 {
		b.WriteString("RECORDED\n" + left + "\n\nREPLAYED\n" + right + "\n")
		return b.String()
	}
	col := (m.width - 3) / 2
	ls := columnLines(left, col)
	rs := columnLines(right, col)
	b.WriteString(pad("RECORDED", col) + " │ REPLAYED\n")
	for i := range max(len(ls), len(rs)) {
		var l, r string
		if i < len(ls) {
			l = ls[i]
		}
		if i < len(rs) {
			r = rs[i]
		}
		b.WriteString(pad(l, col) + " │ " + r + "\n")
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(no answer)"
	}
	return s
}

// columnLines cleans s of control characters and wraps it to width cells.
func columnLines(s string, width int) []string {
	s = clean(strings.TrimRight(s, "\n"), true)
	return strings.Split(ansi.Hardwrap(s, width, true), "\n")
}

func pad(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// editParams writes the request's params to a temporary file and opens
// it in the user's editor; saving sends the edited params (editedMsg).
func (m *Model) editParams(rr ReplayRequest, req *Row) tea.Cmd {
	var msg struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(req.Raw(), &msg)
	var pretty bytes.Buffer
	if len(msg.Params) == 0 || json.Indent(&pretty, msg.Params, "", "  ") != nil {
		pretty.Reset()
		pretty.WriteString("{}")
	}
	f, err := os.CreateTemp("", "mcpsnoop-replay-*.json")
	if err != nil {
		m.notice = "replay: " + err.Error()
		return nil
	}
	_, err = f.Write(append(pretty.Bytes(), '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		m.notice = "replay: " + err.Error()
		return nil
	}
	argv := strings.Fields(editor())
	cmd := exec.Command(argv[0], append(argv[1:], f.Name())...)
	path := f.Name()
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return editedMsg{req: rr, path: path, err: err} })
}

// editor is the user's editor: $VISUAL, else $EDITOR, else vi.
func editor() string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(os.Getenv(v)); e != "" {
			return e
		}
	}
	return "vi"
}

// editDone reads what the editor saved and replays it.
func (m *Model) editDone(msg editedMsg) tea.Cmd {
	defer os.Remove(msg.path)
	if msg.err != nil {
		m.notice = "replay: the editor failed: " + msg.err.Error()
		return nil
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.notice = "replay: " + err.Error()
		return nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' || !json.Valid(data) {
		m.notice = "replay: the edited params are not a JSON object; nothing was sent"
		return nil
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, data)
	msg.req.Params = compact.Bytes()
	return m.prepareReplay(msg.req)
}
