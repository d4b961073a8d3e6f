package viewer

import (
	"fmt"

	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Screens of the UI.
const (
	screenSessions = iota // the list of sessions
	screenStream          // one session's frames
	screenDetail          // a scrollable page: inspector, a panel, the keys
)

// Options configure a Model.
type Options struct {
	// Live: the store is being fed by a follower, so sessions list newest
	// first, the stream follows new frames, and panels are rebuilt from the
	// log each time they open.
	Live bool
	// Title is shown at the left of the header ("mcpsnoop", "mcpsnoop demo").
	Title string
	// Filter is applied from the start.
	Filter Filter
	// Export writes a session to a file (e and :export); nil leaves
	// exporting to the export command.
	Export ExportFunc
	// ExportDir is where an export goes when no path is given; "" is
	// <state>/exports.
	ExportDir string
	// Replay prepares the r and R keys' replays; nil leaves them off.
	// ReplayYes skips the question before a session's first send.
	Replay    ReplayFunc
	ReplayYes bool
	// Loading: the store is still being read; the screen says how far
	// that has got (Loading messages) until a Loaded message ends it.
	Loading bool
}

// Model is the bubbletea model of the viewer.
type Model struct {
	st   *Store
	opts Options

	width, height int
	screen        int
	back          int // the screen esc returns to from the detail page

	sessCursor int
	sess       *Session
	rows       []*Row // the session's rows the filter selects
	cellWidth  []int  // the widest cell of rows, per stream column (measureCells)
	cursor     int    // index into rows
	top        int    // first row shown
	follow     bool   // keep the cursor on the newest row (live)

	filter    Filter
	editing   bool
	command   bool // the line being typed is a command (":"), not a filter
	input     textinput.Model
	filterErr string

	detailTitle string
	vp          viewport.Model

	notice string

	// report builds the panels' summary of a session (tests replace it).
	// It runs as a command, off the UI's goroutine, when the session has
	// no Report of its own (the live view re-reads the log).
	report func(s *Session, which string) (*checker.SessionReport, error)
	// panelReq numbers the panel requests: a result that is not the
	// latest one's is ignored.
	panelReq int

	replay replayState // the r and R keys (replay.go)

	loading *Loading // how far the first load has got; nil once done
}

// panelMsg is a panel's content, built off the UI's goroutine.
type panelMsg struct {
	req   int
	which string
	sess  *Session
	rep   *checker.SessionReport
	err   error
}

const filterPlaceholder = "tool:NAME status:error dir:s2c kind:req id:7 text"

// New returns a viewer over st.
func New(st *Store, o Options) *Model {
	if o.Title == "" {
		o.Title = "mcpsnoop"
	}
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = filterPlaceholder
	m := &Model{st: st, opts: o, filter: o.Filter, input: in, follow: o.Live, width: 100, height: 30}
	m.vp = viewport.New()
	m.report = defaultReport
	m.screen = screenSessions
	if o.Loading {
		m.loading = &Loading{}
	}
	if !o.Live && len(st.Sessions) == 1 {
		m.openSession(st.Sessions[0])
	}
	return m
}

func defaultReport(s *Session, which string) (*checker.SessionReport, error) {
	if s.Report != nil {
		return s.Report, nil
	}
	// Only the tools and capabilities panels show what the engine keeps
	// of bodies (tool costs, capabilities).
	return SessionReport(s.Path, s.ID, which == "tools" || which == "capabilities")
}

// Init starts nothing: the follower sends batches from outside.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles a key, a resize or a batch from the follower.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.vp.SetWidth(m.width)
		m.vp.SetHeight(m.pageHeight())
		m.scrollIntoView()
	case Batch:
		m.applyBatch(msg)
	case Loading, Loaded:
		return m, m.loadingUpdate(msg)
	case panelMsg:
		m.panelDone(msg)
	case exportMsg:
		m.exportDone(msg)
	case replayMsg:
		m.replayDone(msg)
	case preparedMsg:
		return m, m.replayPrepared(msg)
	case editedMsg:
		return m, m.editDone(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// sessionsInOrder lists sessions as the list shows them: newest first in
// the live view, in the order they were read otherwise.
func (m *Model) sessionsInOrder() []*Session {
	if !m.opts.Live {
		return m.st.Sessions
	}
	out := make([]*Session, len(m.st.Sessions))
	for i, s := range m.st.Sessions {
		out[len(out)-1-i] = s
	}
	return out
}

func (m *Model) applyBatch(b Batch) {
	var selected *Session
	if list := m.sessionsInOrder(); m.sessCursor < len(list) {
		selected = list[m.sessCursor]
	}
	m.st.Apply(b.Changes)
	if len(b.Notices) > 0 {
		m.notice = b.Notices[len(b.Notices)-1]
	}
	// Keep the same session under the list cursor as sessions arrive.
	for i, s := range m.sessionsInOrder() {
		if s == selected {
			m.sessCursor = i
		}
	}
	if m.sess != nil {
		m.refilter()
	}
}

// openSession shows s's stream.
func (m *Model) openSession(s *Session) {
	m.sess = s
	m.screen = screenStream
	m.cursor, m.top = 0, 0
	m.refilter()
	if m.follow {
		m.cursor = max(len(m.rows)-1, 0)
	}
	m.scrollIntoView()
}

// refilter recomputes the rows the filter selects, keeping the cursor on
// the same frame when it is still selected.
func (m *Model) refilter() {
	var cur *Row
	if m.cursor < len(m.rows) {
		cur = m.rows[m.cursor]
	}
	atEnd := len(m.rows) == 0 || m.cursor >= len(m.rows)-1
	m.rows = m.rows[:0]
	for _, r := range m.sess.Rows {
		if m.filter.Match(r) {
			m.rows = append(m.rows, r)
		}
	}
	m.cellWidth = measureCells(m.rows)
	switch {
	case m.follow && atEnd:
		m.cursor = max(len(m.rows)-1, 0)
	case cur != nil:
		m.cursor = 0
		for i, r := range m.rows {
			if r == cur {
				m.cursor = i
				break
			}
			if r.Seq <= cur.Seq {
				m.cursor = i
			}
		}
	}
	m.cursor = min(m.cursor, max(len(m.rows)-1, 0))
	m.scrollIntoView()
}

// streamHeight is how many rows the stream shows.
func (m *Model) streamHeight() int { return max(m.height-4, 1) }

// pageHeight is the height of the detail page's scrolling area.
func (m *Model) pageHeight() int { return max(m.height-3, 1) }

func (m *Model) scrollIntoView() {
	h := m.streamHeight()
	if m.screen == screenSessions {
		h = max(m.height-4, 1)
	}
	cur := m.cursor
	if m.screen == screenSessions {
		cur = m.sessCursor
	}
	if cur < m.top {
		m.top = cur
	}
	if cur >= m.top+h {
		m.top = cur - h + 1
	}
	m.top = max(m.top, 0)
}

// showPage opens the detail page with a title and content.
func (m *Model) showPage(title, content string) {
	if m.screen != screenDetail {
		m.back = m.screen
	}
	m.screen = screenDetail
	m.detailTitle = title
	m.vp.SetWidth(m.width)
	m.vp.SetHeight(m.pageHeight())
	m.vp.SetContent(clean(content, true))
	m.vp.GotoTop()
}

// selected is the row under the cursor, nil when there is none.
func (m *Model) selected() *Row {
	if m.sess == nil || m.cursor >= len(m.rows) {
		return nil
	}
	return m.rows[m.cursor]
}

// panel opens one of the session panels. A session read whole has its
// report at hand; otherwise the log is read again by a command, the page
// says "loading..." meanwhile and keys keep working.
func (m *Model) panel(which string) tea.Cmd {
	s := m.currentSession()
	if s == nil {
		return nil
	}
	m.panelReq++
	req, report := m.panelReq, m.report
	if s.Report != nil {
		m.panelDone(panelMsg{req: req, which: which, sess: s, rep: s.Report})
		return nil
	}
	m.showPage(which+" · "+s.ID, "loading...\n")
	return func() tea.Msg {
		rep, err := report(s, which)
		return panelMsg{req: req, which: which, sess: s, rep: rep, err: err}
	}
}

// panelDone shows a panel that was built, unless another page was asked
// for meanwhile.
func (m *Model) panelDone(msg panelMsg) {
	if msg.req != m.panelReq {
		return // stale: the user moved on
	}
	if msg.sess.Report == nil && (m.screen != screenDetail || m.detailTitle != msg.which+" · "+msg.sess.ID) {
		return // the loading page was left
	}
	if msg.err != nil {
		if m.screen == screenDetail {
			m.screen = m.back
		}
		m.notice = fmt.Sprintf("cannot build the %s panel: %v", msg.which, msg.err)
		return
	}
	title, body := panelContent(msg.which, msg.sess, msg.rep)
	m.showPage(title, body)
}

// currentSession is the open session, or the one under the list cursor.
func (m *Model) currentSession() *Session {
	fromList := m.screen == screenSessions || (m.screen == screenDetail && m.back == screenSessions)
	if fromList || m.sess == nil {
		list := m.sessionsInOrder()
		if m.sessCursor < len(list) {
			return list[m.sessCursor]
		}
		return nil
	}
	return m.sess
}
