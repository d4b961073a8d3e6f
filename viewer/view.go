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
	line := keys
	if m.notice != "" {
		return styleNotice.Render(fit(" "+m.notice, m.width))
	}
	return styleFooter.Render(fit(" "+line, m.width))
}

func (m *Model) viewSessions() string {
	var b strings.Builder
	list := m.sessionsInOrder()
	right := fmt.Sprintf("%d sessions", len(list))
	if m.opts.Live {
		right = "live · " + right
	}
	b.WriteString(m.header(right) + "\n")
	cols := []int{30, 38, 6, 8, 7, 8, 7, 9}
	cols[0] = max(m.width-sum(cols[1:])-len(cols), 12)
	b.WriteString(styleColumns.Render(row(cols, "LABEL", "SESSION", "TRANS", "FRAMES", "CALLS", "PENDING", "ERRORS", "WARNINGS")) + "\n")
	h := max(m.height-4, 1)
	for i := m.top; i < len(list) && i < m.top+h; i++ {
		s := list[i]
		line := row(cols, s.Label, s.ID, s.Transport, itoa(s.Frames), itoa(s.Calls), itoa(s.Pending), itoa(s.Errors), itoa(s.Warnings))
		if i == m.sessCursor {
			line = styleSelected.Render(line)
		} else if s.Errors > 0 {
			line = styleError.Render(line)
		}
		b.WriteString(line + "\n")
	}
	if len(list) == 0 {
		b.WriteString("  no sessions yet: run a server through mcpsnoop (mcpsnoop -- <server command>) and they appear here\n")
	}
	for n := strings.Count(b.String(), "\n"); n < m.height-1; n++ {
		b.WriteString("\n")
	}
	b.WriteString(m.footer("enter open · t tools · c capabilities · i interactions · l elicitations · ? keys · q quit"))
	return b.String()
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func itoa(n int) string { return fmt.Sprint(n) }

// row lays cells out in columns of the given widths, one space apart.
func row(widths []int, cells ...string) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fit(c, widths[i])
	}
	return strings.Join(parts, " ")
}

// streamWidths sizes the stream's columns for the terminal's width: the
// method and tool columns grow up to a point, the note takes the rest.
func (m *Model) streamWidths() []int {
	// SEQ TIME DIR KIND METHOD TOOL ID STATUS DURATION NOTE
	w := []int{6, 12, 6, 12, 0, 0, 8, 15, 9, 0}
	rest := max(m.width-sum(w)-len(w)+1, 20)
	w[4] = min(max(rest*35/100, 10), 32)
	w[5] = min(max(rest*25/100, 8), 24)
	w[9] = max(rest-w[4]-w[5]-2, 0)
	return w
}

func (m *Model) viewStream() string {
	var b strings.Builder
	s := m.sess
	right := fmt.Sprintf("%d frames · %d calls · %d pending · %d errors · %d warnings", s.Frames, s.Calls, s.Pending, s.Errors, s.Warnings)
	if m.opts.Live {
		mode := "paused"
		if m.follow {
			mode = "following"
		}
		right = mode + " · " + right
	}
	b.WriteString(m.header(right) + "\n")
	w := m.streamWidths()
	b.WriteString(styleColumns.Render(row(w, append(columns, "NOTE")...)) + "\n")
	h := m.streamHeight()
	for i := m.top; i < len(m.rows) && i < m.top+h; i++ {
		r := m.rows[i]
		line := row(w, append(rowCells(r), rowNote(r))...)
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
	keys := "enter inspect · / filter · t tools · c capabilities · i interactions · l elicitations · esc back · ? keys · q quit"
	if s.Dropped > 0 {
		keys = fmt.Sprintf("%d older frames on disk only · ", s.Dropped) + keys
	}
	b.WriteString(m.footer(keys))
	return b.String()
}

// filterLine is the filter being typed, or the one in force with how many
// frames it selects.
func (m *Model) filterLine() string {
	count := fmt.Sprintf("%d of %d frames", len(m.rows), len(m.sess.Rows))
	if m.editing {
		line := m.input.View()
		if m.filterErr != "" {
			return line + "  " + styleError.Render(m.filterErr)
		}
		return line + "  " + styleFooter.Render(count)
	}
	if m.filter.Empty() {
		return styleFooter.Render(fit(" filter: none (press /) · "+count, m.width))
	}
	return fit(" filter: "+m.filter.String()+" · "+count, m.width)
}

func (m *Model) viewDetail() string {
	var b strings.Builder
	b.WriteString(m.header(m.detailTitle) + "\n")
	b.WriteString(m.vp.View() + "\n")
	for n := strings.Count(b.String(), "\n"); n < m.height-1; n++ {
		b.WriteString("\n")
	}
	keys := "↑/↓ ←/→ scroll · g/G top/bottom · esc back · t tools · c capabilities · i interactions · l elicitations · q quit"
	if isInspector(m.detailTitle) {
		keys = "↑/↓ ←/→ scroll · g/G top/bottom · n/p next/previous frame · esc back · q quit"
	}
	b.WriteString(m.footer(keys))
	return b.String()
}
