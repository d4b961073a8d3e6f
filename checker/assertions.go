package checker

import (
	"strconv"
	"strings"
	"time"
)

// assertionState tracks, per session, what the opt-in assertions need: which
// of the named tools were called, and the calls over the latency budget.
type assertionState struct {
	watched     map[string]bool // tools named by --expect-tool or --forbid-tool
	calledTools map[string]bool
	budget      time.Duration
	duration    worstCall // --max-duration

	server   worstCall // --max-server-duration
	rounds   worstCall // --max-round-trips
	maxRound int
	maxSrv   time.Duration

	// Finished calls that cannot be timed (a frame without ts): they fail
	// the budget they cannot be held to rather than pass unseen.
	untimedDuration, untimedServer untimedCalls
}

// untimedCalls counts the finished calls a budget could not time and keeps
// the first of them (in request order) with what was missing.
type untimedCalls struct {
	n    int
	tool string
	line int
	why  string
	at   int
}

func (u *untimedCalls) note(c *call, why string) {
	u.n++
	if u.n == 1 || c.ordinal < u.at {
		u.tool, u.line, u.why, u.at = c.tool, c.line, why, c.ordinal
	}
}

// message is the part of an assertion's message about the untimed calls.
func (u *untimedCalls) message(budget string) string {
	where := ""
	if u.line > 0 {
		where = " at line " + strconv.Itoa(u.line)
	}
	return strconv.Itoa(u.n) + " " + plural(u.n, "tool call", "tool calls") + " could not be timed against the " + budget +
		" budget (first: tool " + strconv.Quote(u.tool) + where + ": " + u.why + ")"
}

// untimedWall says why a finished call's wall clock is unknown: its first
// request or the frame that settled it had no ts. "" when it is known.
func untimedWall(c *call) string {
	switch {
	case c.start.IsZero():
		return "its request has no ts"
	case c.end.IsZero():
		return "the frame that ended it has no ts"
	}
	return ""
}

// worstCall counts the calls over a budget and keeps the worst of them;
// among equals, the one requested first.
type worstCall struct {
	over  int
	worst int64 // duration or round trips
	tool  string
	at    int
}

func (w *worstCall) note(value int64, tool string, at int) {
	w.over++
	if w.over == 1 || value > w.worst || (value == w.worst && at < w.at) {
		w.worst, w.tool, w.at = value, tool, at
	}
}

func newAssertionState(e *Engine) assertionState {
	return assertionState{watched: e.watched, calledTools: map[string]bool{}, budget: e.cfg.MaxDuration,
		maxSrv: e.cfg.MaxServerDuration, maxRound: e.cfg.MaxRoundTrips}
}

// called notes a tools/call request for tool (linked retries excluded).
func (a *assertionState) called(tool string) {
	if a.watched[tool] && !a.calledTools[tool] {
		a.calledTools[clone(tool)] = true
	}
}

// finished notes a tools/call that is done; its duration runs from the first
// request to the frame that settled it.
// A call without the timestamps to measure it is untimed, and fails the
// budget: the server time is judged against --max-server-duration, the
// wall clock against --max-duration, each strictly (equal is within).
func (a *assertionState) finished(c *call, d time.Duration) {
	if a.maxSrv > 0 {
		switch {
		case c.it.untimed != "":
			a.untimedServer.note(c, c.it.untimed)
		case c.it.serverTime > a.maxSrv:
			a.server.note(int64(c.it.serverTime), c.tool, c.ordinal)
		}
	}
	if a.budget > 0 {
		switch why := untimedWall(c); {
		case why != "":
			a.untimedDuration.note(c, why)
		case d > a.budget:
			a.duration.note(int64(d), c.tool, c.ordinal)
		}
	}
}

// roundTrips judges a tools/call as it leaves play, open chains included:
// every request already made counts.
func (a *assertionState) roundTrips(c *call) {
	if a.maxRound > 0 && c.roundTrips > a.maxRound {
		a.rounds.note(int64(c.roundTrips), c.tool, c.ordinal)
	}
}

// evaluate returns the assertions judged per session, in order:
// max-duration, max-server-duration, max-round-trips. The tool assertions
// are judged per run (toolassert.go).
func (a *assertionState) evaluate(cfg Config) []AssertionResult {
	var out []AssertionResult
	if cfg.MaxDuration > 0 {
		r := AssertionResult{Name: AssertionMaxDuration, Passed: a.duration.over == 0 && a.untimedDuration.n == 0}
		var parts []string
		if a.duration.over > 0 {
			parts = append(parts, strconv.Itoa(a.duration.over)+" "+plural(a.duration.over, "tool call", "tool calls")+
				" exceeded the "+cfg.MaxDuration.String()+" budget (worst: tool "+
				strconv.Quote(a.duration.tool)+" took "+time.Duration(a.duration.worst).Round(time.Millisecond).String()+")")
		}
		if a.untimedDuration.n > 0 {
			parts = append(parts, a.untimedDuration.message(cfg.MaxDuration.String()))
		}
		r.Message = strings.Join(parts, "; ")
		if r.Passed {
			r.Message = "every tool call finished within the " + cfg.MaxDuration.String() + " budget"
		}
		out = append(out, r)
	}
	if cfg.MaxServerDuration > 0 {
		r := AssertionResult{Name: AssertionMaxServerDuration, Passed: a.server.over == 0 && a.untimedServer.n == 0}
		budget := cfg.MaxServerDuration.String()
		var parts []string
		if a.server.over > 0 {
			parts = append(parts, strconv.Itoa(a.server.over)+" "+plural(a.server.over, "tool call", "tool calls")+
				" exceeded the "+budget+" server-time budget (worst: tool "+strconv.Quote(a.server.tool)+
				" spent "+time.Duration(a.server.worst).Round(time.Millisecond).String()+" in the server)")
		}
		if a.untimedServer.n > 0 {
			parts = append(parts, a.untimedServer.message(budget+" server-time"))
		}
		r.Message = strings.Join(parts, "; ")
		if r.Passed {
			r.Message = "every tool call's server time stayed within the " + budget + " budget"
		}
		out = append(out, r)
	}
	if cfg.MaxRoundTrips > 0 {
		r := AssertionResult{Name: AssertionMaxRoundTrips, Passed: a.rounds.over == 0}
		limit := strconv.Itoa(cfg.MaxRoundTrips)
		if r.Passed {
			r.Message = "every tool call took at most " + limit + " " + plural(cfg.MaxRoundTrips, "round trip", "round trips")
		} else {
			r.Message = strconv.Itoa(a.rounds.over) + " " + plural(a.rounds.over, "tool call", "tool calls") +
				" took more than " + limit + " " + plural(cfg.MaxRoundTrips, "round trip", "round trips") +
				" (worst: tool " + strconv.Quote(a.rounds.tool) + " took " + strconv.FormatInt(a.rounds.worst, 10) + ")"
		}
		out = append(out, r)
	}
	return out
}
