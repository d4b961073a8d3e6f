package checker

import (
	"strconv"
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

func newAssertionState(cfg Config) assertionState {
	a := assertionState{watched: map[string]bool{}, calledTools: map[string]bool{}, budget: cfg.MaxDuration,
		maxSrv: cfg.MaxServerDuration, maxRound: cfg.MaxRoundTrips}
	for _, n := range cfg.ExpectTools {
		a.watched[n] = true
	}
	for _, n := range cfg.ForbidTools {
		a.watched[n] = true
	}
	return a
}

// called notes a tools/call request for tool (linked retries excluded).
func (a *assertionState) called(tool string) {
	if a.watched[tool] && !a.calledTools[tool] {
		a.calledTools[clone(tool)] = true
	}
}

// finished notes a tools/call that is done; its duration runs from the first
// request to the frame that settled it.
func (a *assertionState) finished(c *call, d time.Duration) {
	if a.maxSrv > 0 && c.it.serverTime > a.maxSrv {
		a.server.note(int64(c.it.serverTime), c.tool, c.ordinal)
	}
	if a.budget > 0 && d > a.budget {
		a.duration.note(int64(d), c.tool, c.ordinal)
	}
}

// roundTrips judges a tools/call as it leaves play, open chains included:
// every request already made counts.
func (a *assertionState) roundTrips(c *call) {
	if a.maxRound > 0 && c.roundTrips > a.maxRound {
		a.rounds.note(int64(c.roundTrips), c.tool, c.ordinal)
	}
}

// evaluate returns the session's assertions in order: max-duration, each
// expected tool, each forbidden tool.
func (a *assertionState) evaluate(cfg Config) []AssertionResult {
	var out []AssertionResult
	if cfg.MaxDuration > 0 {
		r := AssertionResult{Name: AssertionMaxDuration, Passed: a.duration.over == 0}
		if r.Passed {
			r.Message = "every tool call finished within the " + cfg.MaxDuration.String() + " budget"
		} else {
			r.Message = strconv.Itoa(a.duration.over) + " " + plural(a.duration.over, "tool call", "tool calls") +
				" exceeded the " + cfg.MaxDuration.String() + " budget (worst: tool " +
				strconv.Quote(a.duration.tool) + " took " + time.Duration(a.duration.worst).Round(time.Millisecond).String() + ")"
		}
		out = append(out, r)
	}
	if cfg.MaxServerDuration > 0 {
		r := AssertionResult{Name: AssertionMaxServerDuration, Passed: a.server.over == 0}
		budget := cfg.MaxServerDuration.String()
		if r.Passed {
			r.Message = "every tool call's server time stayed within the " + budget + " budget"
		} else {
			r.Message = strconv.Itoa(a.server.over) + " " + plural(a.server.over, "tool call", "tool calls") +
				" exceeded the " + budget + " server-time budget (worst: tool " + strconv.Quote(a.server.tool) +
				" spent " + time.Duration(a.server.worst).Round(time.Millisecond).String() + " in the server)"
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
	for _, n := range cfg.ExpectTools {
		r := AssertionResult{Name: AssertionExpectTool, Passed: a.calledTools[n]}
		if r.Passed {
			r.Message = "expected tool " + strconv.Quote(n) + " was called"
		} else {
			r.Message = "expected tool " + strconv.Quote(n) + " was never called"
		}
		out = append(out, r)
	}
	for _, n := range cfg.ForbidTools {
		r := AssertionResult{Name: AssertionForbidTool, Passed: !a.calledTools[n]}
		if r.Passed {
			r.Message = "forbidden tool " + strconv.Quote(n) + " was not called"
		} else {
			r.Message = "forbidden tool " + strconv.Quote(n) + " was called"
		}
		out = append(out, r)
	}
	return out
}
