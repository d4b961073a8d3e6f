package viewer

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mcpsnoop/mcpsnoop/internal/progress"
)

// Loading says how far the load the viewer started with has got: bytes
// read of total (0 when not known). A message to the model, sent while
// it loads; a big log takes seconds, and the screen says so rather than
// staying blank.
type Loading struct {
	Read, Total int64
}

// Loaded ends the load the viewer started with: the store read (open),
// nil when the sessions came in batches (the live view's history), or the
// error that stopped it, on which the viewer quits (the caller reports
// it).
type Loaded struct {
	Store *Store
	Err   error
}

// text is what the screen says while loading: no amount under a MB
// (not yet known, or "0 MB of 0 MB").
func (l *Loading) text() string {
	if l.Total < 1_000_000 {
		return "loading…"
	}
	return "loading " + progress.Amount(l.Read, l.Total) + "…"
}

// loadingUpdate handles the two messages of a load.
func (m *Model) loadingUpdate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case Loading:
		if m.loading != nil {
			m.loading = &msg
		}
	case Loaded:
		m.loading = nil
		if msg.Err != nil {
			return tea.Quit
		}
		if msg.Store != nil {
			m.st = msg.Store
			m.sessCursor, m.top = 0, 0
			if !m.opts.Live && len(m.st.Sessions) == 1 && m.screen == screenSessions {
				m.openSession(m.st.Sessions[0])
			}
		}
	}
	return nil
}
