package viewer

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

var (
	styleHeader   = lipgloss.NewStyle().Bold(true).Reverse(true)
	styleColumns  = lipgloss.NewStyle().Bold(true).Underline(true)
	styleSelected = lipgloss.NewStyle().Reverse(true)
	styleFooter   = lipgloss.NewStyle().Faint(true)
	styleError    = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	styleWarn     = lipgloss.NewStyle().Foreground(lipgloss.Color("13"))
	stylePending  = lipgloss.NewStyle().Foreground(lipgloss.Color("11"))
	styleOK       = lipgloss.NewStyle().Foreground(lipgloss.Color("10"))
	styleNotice   = lipgloss.NewStyle().Foreground(lipgloss.Color("11"))
)

// View draws the current screen.
func (m *Model) View() tea.View {
	var body string
	switch m.screen {
	case screenSessions:
		body = m.viewSessions()
	case screenStream:
		body = m.viewStream()
	default:
		body = m.viewDetail()
	}
	v := tea.NewView(body)
	v.AltScreen = true
	v.WindowTitle = m.opts.Title
	return v
}

// fit cuts s to w cells and pads it to exactly w. s is plain text (it is
// cleaned of control characters here, so style it after fitting).
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(clean(s, false), w, "…")
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

func (m *Model) header(right string) string {
	left := " " + m.opts.Title
	if m.sess != nil && m.screen != screenSessions {
		left += " · " + sessionName(m.sess)
	}
	// The counts on the right win over the name on the left.
	if room := m.width - ansi.StringWidth(right) - 2; ansi.StringWidth(left) > room {
		left = ansi.Truncate(left, max(room, 0), "…")
	}
	gap := max(m.width-ansi.StringWidth(left)-ansi.StringWidth(right)-1, 1)
	return styleHeader.Render(fit(left+strings.Repeat(" ", gap)+right+" ", m.width))
}

func sessionName(s *Session) string {
	if s.Label != "" && s.Label != s.ID {
		return s.Label + " (" + s.ID + ")"
	}
	return s.ID
}

func (m *Model) footer(keys string) string {
	if m.editing && m.command {
		return m.input.View()
	}
	if m.notice != "" {
		return styleNotice.Render(fit(" "+m.notice, m.width))
	}
	return styleFooter.Render(fit(" "+keys, m.width))
}

// sessionCols are the sessions list's columns: the counts go before the
// label and the start time when the terminal is narrow.
var sessionCols = []col{
	{"LABEL", 8, 24, 7},
	{"SESSION", 12, 44, 0},
	{"STARTED", 8, 14, 8},
	{"TRANS", 5, 5, 9},
	{"FRAMES", 6, 6, 3},
	{"CALLS", 5, 5, 4},
	{"PENDING", 7, 7, 5},
	{"ERRORS", 6, 6, 1},
	{"WARNINGS", 8, 8, 2},
	{"MISSING", 7, 7, 6},
}

// started is the start-time cell: the time alone when it fits, the date
// too when there is room.
func started(s *Session, w int) string {
	if s.First.IsZero() {
		return "-"
	}
	if w >= 14 {
		return s.First.Format("01-02 15:04:05")
	}
	return s.First.Format("15:04:05")
}

func (m *Model) viewSessions() string {
	var b strings.Builder
	list := m.sessionsInOrder()
	right := plural(len(list), "session")
	if m.opts.Live {
		right = "live · " + right
	}
	if m.loading != nil {
		right = m.loading.text() + " · " + right
	}
	b.WriteString(m.header(right) + "\n")
	cols := layout(m.width, sessionCols)
	b.WriteString(styleColumns.Render(row(cols, titles(sessionCols)...)) + "\n")
	h := max(m.height-4, 1)
	for i := m.top; i < len(list) && i < m.top+h; i++ {
		s := list[i]
		line := row(cols, s.Label, s.ID, started(s, cols[2]), s.Transport, itoa(s.Frames), itoa(s.Calls), itoa(s.Pending),
			itoa(s.Errors), itoa(s.Warnings), itoa(s.MissingFrames()))
		if i == m.sessCursor {
			line = styleSelected.Render(line)
		} else if s.Errors > 0 {
			line = styleError.Render(line)
		}
		b.WriteString(line + "\n")
	}
	if len(list) == 0 && m.loading != nil {
		b.WriteString("  " + m.loading.text() + "\n")
	} else if len(list) == 0 {
		b.WriteString("  no sessions yet: run a server through mcpsnoop (mcpsnoop -- <server command>) and they appear here\n")
	}
	for n := strings.Count(b.String(), "\n"); n < m.height-1; n++ {
		b.WriteString("\n")
	}
	b.WriteString(m.footer("enter open · s tools · c capabilities · i interactions · l elicitations · e export html · : command · ? keys · q quit"))
	return b.String()
}

func itoa(n int) string { return fmt.Sprint(n) }

// row lays cells out in columns of the given widths, one space apart; a
// column of width 0 is left out.
func row(widths []int, cells ...string) string {
	parts := make([]string, 0, len(cells))
	for i, c := range cells {
		if widths[i] > 0 {
			parts = append(parts, fit(c, widths[i]))
		}
	}
	return strings.Join(parts, " ")
}

// streamCols are the stream's columns (columns, then NOTE). The method,
// tool and id are capped so the status, the duration and the note keep
// their room; the time goes first when the terminal is narrow. A column
// is no wider than its widest cell among the rows shown (or its title), so
// that NOTE, which takes the rest, gets the room the others do not use.
func (m *Model) streamCols() []col {
	seq := 4
	if n := len(m.sess.Rows); n > 0 && m.sess.Rows[n-1] != nil {
		seq = max(seq, len(itoa(int(m.sess.Rows[n-1].Seq)))+1)
	}
	cols := []col{
		{"SEQ", seq, seq, 0},
		{"TIME", 12, 12, 9},
		{"DIR", 6, 6, 1},
		{"KIND", 7, 12, 6},
		{"METHOD", 12, 28, 2},
		{"TOOL", 8, 20, 5},
		{"ID", 4, 8, 7},
		{"STATUS", 8, 15, 3},
		{"DURATION", 8, 9, 4},
		{"NOTE", 14, 0, 8},
	}
	for i := range cols {
		if i < len(m.cellWidth) && sizedByContent[i] {
			c := &cols[i]
			c.pref = min(c.pref, max(len(c.title), m.cellWidth[i]))
			c.min = min(c.min, c.pref)
		}
	}
	return cols
}

// sizedByContent are the stream's columns whose width follows their cells:
// KIND, METHOD, TOOL, ID, STATUS and DURATION.
var sizedByContent = []bool{3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: false}

// measureCells is the widest cell of rows in each of the stream's columns
// but NOTE (as rowCells gives them).
func measureCells(rows []*Row) []int {
	w := make([]int, 9)
	for _, r := range rows {
		dur := ""
		if d, ok := r.Duration(); ok {
			dur = FormatDuration(d)
		}
		for i, c := range [...]string{3: r.Kind, 4: r.Method, 5: r.Tool, 6: r.ID, 7: statusCell(r), 8: dur} {
			if c != "" {
				w[i] = max(w[i], cellWidth(c))
			}
		}
	}
	return w
}

// cellWidth is the width s takes in a cell, as fit shows it.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return ansi.StringWidth(clean(s, false))
		}
	}
	return len(s)
}

// shortKinds name the kinds in a narrow KIND column.
var shortKinds = map[string]string{
	"request": "req", "response": "resp", "notification": "notify", "stderr": "stderr",
	"invalid": "invalid", "transport": "transp", "other": "other", "meta": "meta",
}

// streamWidths sizes the stream's columns for the terminal's width.
func (m *Model) streamWidths() []int { return layout(m.width, m.streamCols()) }

// counts is the header's summary of a session.
func counts(s *Session) string {
	out := plural(s.Frames, "frame") + " · " + plural(s.Calls, "call") + " · " + itoa(s.Pending) + " pending · " +
		plural(s.Errors, "error") + " · " + plural(s.Warnings, "warning")
	if n := s.MissingFrames(); n > 0 {
		out += " · " + itoa(n) + " missing"
	}
	return out
}

func (m *Model) viewStream() string {
	var b strings.Builder
	s := m.sess
	right := counts(s)
	if m.opts.Live {
		mode := "paused"
		if m.follow {
			mode = "following"
		}
		right = mode + " · " + right
	}
	b.WriteString(m.header(right) + "\n")
	w := m.streamWidths()
	b.WriteString(styleColumns.Render(row(w, titles(m.streamCols())...)) + "\n")
	h := m.streamHeight()
	for i := m.top; i < len(m.rows) && i < m.top+h; i++ {
		r := m.rows[i]
		cells := append(rowCells(r), noteOf(r, max(w[9], textNoteRunes)))
		if w[3] < len(cells[3]) {
			cells[3] = shortKinds[cells[3]]
		}
		line := row(w, cells...)
		switch {
		case i == m.cursor:
			line = styleSelected.Render(line)
		case r.Status() == "error" || len(r.Errors()) > 0 || r.Kind == "invalid":
			line = styleError.Render(line)
		case r.Warning() != "" || r.Mismatch():
			line = styleWarn.Render(line)
		case r.Status() == "pending":
			line = stylePending.Render(line)
		}
		b.WriteString(line + "\n")
	}
	if len(m.rows) == 0 {
		if m.filter.Empty() && !m.editing {
			b.WriteString("  no frames yet\n")
		} else {
			b.WriteString("  no frame matches the filter\n")
		}
	}
	for n := strings.Count(b.String(), "\n"); n < m.height-2; n++ {
		b.WriteString("\n")
	}
	b.WriteString(m.filterLine() + "\n")
	keys := "enter inspect · / filter · r replay · s tools · c capabilities · i interactions · l elicitations · e export html · : command · esc back · ? keys · q quit"
	if s.Dropped > 0 {
		keys = plural(s.Dropped, "older frame") + " on disk only · " + keys
	}
	if m.editing && !m.command {
		// The line under the prompt: why the filter does not parse, or
		// what it selects.
		if m.filterErr != "" {
			b.WriteString(styleError.Render(fit(" "+m.filterErr, m.width)))
		} else {
			b.WriteString(styleFooter.Render(fit(" "+m.count()+" · enter keep · esc restore", m.width)))
		}
		return b.String()
	}
	b.WriteString(m.footer(keys))
	return b.String()
}

// count is how many frames the filter selects.
func (m *Model) count() string {
	return fmt.Sprintf("%d of %s", len(m.rows), plural(len(m.sess.Rows), "frame"))
}

// filterLine is the filter being typed (what it selects, or why it does
// not parse, is on the line under it), or the one in force with how many
// frames it selects.
func (m *Model) filterLine() string {
	if m.editing && !m.command {
		return m.input.View()
	}
	if m.filter.Empty() {
		return styleFooter.Render(fit(" filter: none (press /) · "+m.count(), m.width))
	}
	return fit(" filter: "+m.filter.String()+" · "+m.count(), m.width)
}

func (m *Model) viewDetail() string {
	var b strings.Builder
	b.WriteString(m.header(m.detailTitle) + "\n")
	b.WriteString(m.vp.View() + "\n")
	for n := strings.Count(b.String(), "\n"); n < m.height-1; n++ {
		b.WriteString("\n")
	}
	keys := "↑/↓ ←/→ scroll · g/G top/bottom · esc back · s tools · c capabilities · i interactions · l elicitations · e export html · q quit"
	if isInspector(m.detailTitle) {
		keys = "↑/↓ ←/→ scroll · g/G top/bottom · n/p next/previous frame · r replay · esc back · q quit"
	}
	b.WriteString(m.footer(keys))
	return b.String()
}
