package viewer

import (
	tea "charm.land/bubbletea/v2"
)

// key handles one key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return tea.Quit
	}
	if m.replay.pending != nil {
		return m.replayAnswer(s)
	}
	if m.editing && m.command {
		return m.commandKey(k)
	}
	if m.editing {
		return m.editKey(k)
	}
	m.notice = ""
	switch s {
	case "q":
		return tea.Quit
	case "?":
		m.showPage("keys", helpText(m.opts.Live)+replayHelp)
		return nil
	case ":":
		m.startCommand()
		return nil
	case "e":
		return m.startExport("html", "")
	}
	switch m.screen {
	case screenSessions:
		return m.sessionsKey(s)
	case screenStream:
		return m.streamKey(s)
	case screenDetail:
		return m.detailKey(k)
	}
	return nil
}

// panelKeys name the panels.
var panelKeys = map[string]string{"s": "tools", "t": "tools", "c": "capabilities", "i": "interactions", "l": "elicitations"}

func (m *Model) sessionsKey(s string) tea.Cmd {
	var cmd tea.Cmd
	list := m.sessionsInOrder()
	switch s {
	case "up", "k":
		m.sessCursor = max(m.sessCursor-1, 0)
	case "down", "j":
		m.sessCursor = min(m.sessCursor+1, max(len(list)-1, 0))
	case "home", "g":
		m.sessCursor = 0
	case "end", "G":
		m.sessCursor = max(len(list)-1, 0)
	case "enter", "right":
		if m.sessCursor < len(list) {
			m.openSession(list[m.sessCursor])
		}
	default:
		if p, ok := panelKeys[s]; ok {
			cmd = m.panel(p)
		}
	}
	m.scrollIntoView()
	return cmd
}

func (m *Model) streamKey(s string) tea.Cmd {
	var cmd tea.Cmd
	page := m.streamHeight()
	last := max(len(m.rows)-1, 0)
	move := func(to int) {
		m.cursor = min(max(to, 0), last)
		// Following resumes when the cursor reaches the newest row.
		m.follow = m.opts.Live && m.cursor == last
	}
	switch s {
	case "up", "k":
		move(m.cursor - 1)
	case "down", "j":
		move(m.cursor + 1)
	case "pgup", "ctrl+b":
		move(m.cursor - page)
	case "pgdown", "ctrl+f", "space":
		move(m.cursor + page)
	case "home", "g":
		move(0)
	case "end", "G":
		move(last)
	case "enter", "right":
		if r := m.selected(); r != nil {
			m.showPage(inspectTitle(r), inspect(r, m.st.Limits))
		}
	case "/":
		m.startFilter()
	case "r", "R":
		cmd = m.startReplay(s == "R")
	case "esc", "left":
		if !m.filter.Empty() {
			m.filter = Filter{}
			m.refilter()
			break
		}
		// Back to the list, even of one session (enter comes back).
		m.screen = screenSessions
		m.top = 0
		for i, ss := range m.sessionsInOrder() {
			if ss == m.sess {
				m.sessCursor = i
			}
		}
		m.scrollIntoView()
	case "f":
		if m.opts.Live {
			m.follow = !m.follow
			if m.follow {
				move(last)
				m.follow = true
			}
		}
	default:
		if p, ok := panelKeys[s]; ok {
			cmd = m.panel(p)
		}
	}
	m.scrollIntoView()
	return cmd
}

// horizontalStep is how many columns left and right scroll a page.
const horizontalStep = 8

func (m *Model) detailKey(k tea.KeyPressMsg) tea.Cmd {
	switch s := k.String(); s {
	case "esc", "enter", "backspace":
		m.screen = m.back
		m.panelReq++ // a panel still loading is not wanted any more
		m.scrollIntoView()
		return nil
	case "left":
		m.vp.ScrollLeft(horizontalStep)
		return nil
	case "right":
		m.vp.ScrollRight(horizontalStep)
		return nil
	case "home", "g":
		m.vp.GotoTop()
		return nil
	case "end", "G":
		m.vp.GotoBottom()
		return nil
	case "n", "p":
		// Step through the stream without leaving the inspector.
		if m.back == screenStream && m.detailTitle != "keys" && len(m.rows) > 0 && isInspector(m.detailTitle) {
			if s == "n" {
				m.cursor = min(m.cursor+1, len(m.rows)-1)
			} else {
				m.cursor = max(m.cursor-1, 0)
			}
			r := m.rows[m.cursor]
			m.showPage(inspectTitle(r), inspect(r, m.st.Limits))
			return nil
		}
	case "r", "R":
		if m.back == screenStream && isInspector(m.detailTitle) {
			return m.startReplay(s == "R")
		}
	default:
		if p, ok := panelKeys[s]; ok {
			return m.panel(p)
		}
	}
	var cmd tea.Cmd
	m.vp, cmd = m.vp.Update(k)
	return cmd
}

// editKey handles a key while the filter is being typed: enter keeps it,
// esc restores the one before; the rows follow as you type whenever what
// is typed parses.
func (m *Model) editKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		f, err := ParseFilter(m.input.Value())
		if err != nil {
			m.filterErr = err.Error()
			return nil
		}
		m.filter, m.filterErr, m.editing = f, "", false
		m.input.Blur()
		m.refilter()
		return nil
	case "esc":
		m.editing, m.filterErr = false, ""
		m.input.Blur()
		m.refilter()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	if f, err := ParseFilter(m.input.Value()); err == nil {
		m.filterErr = ""
		m.applyTyped(f)
	} else {
		m.filterErr = err.Error()
	}
	return cmd
}

// applyTyped shows the rows of a filter still being typed, without
// forgetting the filter esc goes back to.
func (m *Model) applyTyped(f Filter) {
	kept := m.filter
	m.filter = f
	m.refilter()
	m.filter = kept
}
