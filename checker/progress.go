package checker

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// W33-W34: progress notifications (check.md 3.3 D).

// progressState is what these rules remember about a session.
type progressState struct {
	tokens map[string]*progressEntry // by the raw JSON text of the token
	// Tokens no request holds open (closed, or only ever seen on a
	// notification), oldest first. Past progressWindow of them the oldest are
	// forgotten, so memory stays flat however many tokens a log uses.
	idle []idleToken
	next int // the oldest slot once idle is full
	gen  uint64
}

// progressWindow bounds how many idle tokens a session remembers.
const progressWindow = settledWindow

type progressEntry struct {
	owner     *call  // the request holding the token open; nil when none
	completed bool   // its request completed (W33 applies)
	last      string // the last progress value, raw JSON ("" before the first)
	lastVal   float64
	gen       uint64 // which idle slot speaks for the entry
}

type idleToken struct {
	token string
	gen   uint64
}

// progressRequest (re)opens the token a new request carries.
func (s *session) progressRequest(fc *frameCtx, c *call) {
	if c.progressToken == "" {
		return
	}
	e := s.prog.entry(c.progressToken)
	e.owner, e.completed, e.last = c, false, ""
}

// progressDone closes the token of a call that completed, unless a later
// request has reopened it since.
func (s *session) progressDone(c *call) {
	if c.progressToken == "" {
		return
	}
	if e := s.prog.tokens[c.progressToken]; e != nil && e.owner == c {
		e.owner, e.completed = nil, true
		s.prog.idled(c.progressToken, e)
	}
}

// progressRules judges a notifications/progress in either direction, in
// table order (W33, W34).
func (s *session) progressRules(fc *frameCtx) {
	m := &fc.msg
	if m.method != "notifications/progress" {
		return
	}
	tok := m.paramField("progressToken")
	if !tok.Exists() {
		return
	}
	e := s.prog.tokens[tok.Raw]
	if e == nil {
		e = s.prog.entry(tok.Raw)
	}
	// The kinds keep the 2026-07-28 they were first written with: they go
	// into fingerprints. The text names the revision the frame is under.
	if e.completed {
		fc.warn("W33", "progress notification for token <token raw JSON> arrived after its request completed, and 2026-07-28 requires them to stop",
			"progress notification for token "+tok.Raw+" arrived after its request completed, and "+fc.revisionName()+" requires them to stop")
	}
	p := m.paramField("progress")
	if p.Type != gjson.Number {
		return
	}
	if e.last != "" && p.Num <= e.lastVal {
		fc.warn("W34", "progress for token <token raw JSON> went from <prev> to <cur>, and 2026-07-28 requires it to increase with each notification",
			"progress for token "+tok.Raw+" went from "+e.last+" to "+shortNumber(p.Num)+", and "+fc.revisionName()+" requires it to increase with each notification")
	}
	e.last, e.lastVal = shortNumber(p.Num), p.Num
}

// shortNumber renders a progress value in its shortest form: 2, 0.5.
func shortNumber(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// entry returns the token's entry, creating an idle one when it is new.
func (p *progressState) entry(token string) *progressEntry {
	if e := p.tokens[token]; e != nil {
		return e
	}
	if p.tokens == nil {
		p.tokens = map[string]*progressEntry{}
	}
	token = clone(token)
	e := &progressEntry{}
	p.tokens[token] = e
	p.idled(token, e)
	return e
}

// idled notes that no request holds the token, forgetting the oldest idle
// token when the window is full.
func (p *progressState) idled(token string, e *progressEntry) {
	p.gen++
	e.gen = p.gen
	slot := idleToken{token: token, gen: p.gen}
	if len(p.idle) < progressWindow {
		p.idle = append(p.idle, slot)
		return
	}
	old := p.idle[p.next]
	if oe := p.tokens[old.token]; oe != nil && oe.gen == old.gen && oe.owner == nil {
		delete(p.tokens, old.token)
	}
	p.idle[p.next] = slot
	p.next = (p.next + 1) % progressWindow
}
