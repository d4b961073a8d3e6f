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
	over        int
	worst       time.Duration
	worstTool   string
	worstAt     int // request position of the worst call; ties keep the earliest
}

func newAssertionState(cfg Config) assertionState {
	a := assertionState{watched: map[string]bool{}, calledTools: map[string]bool{}, budget: cfg.MaxDuration}
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
	if a.budget <= 0 || d <= a.budget {
		return
	}
	a.over++
	if a.over == 1 || d > a.worst || (d == a.worst && c.ordinal < a.worstAt) {
		a.worst, a.worstTool, a.worstAt = d, c.tool, c.ordinal
	}
}

// evaluate returns the session's assertions in order: max-duration, each
// expected tool, each forbidden tool.
func (a *assertionState) evaluate(cfg Config) []AssertionResult {
	var out []AssertionResult
	if cfg.MaxDuration > 0 {
		r := AssertionResult{Name: AssertionMaxDuration, Passed: a.over == 0}
		if r.Passed {
			r.Message = "every tool call finished within the " + cfg.MaxDuration.String() + " budget"
		} else {
			r.Message = strconv.Itoa(a.over) + " " + plural(a.over, "tool call", "tool calls") +
				" exceeded the " + cfg.MaxDuration.String() + " budget (worst: tool " +
				strconv.Quote(a.worstTool) + " took " + a.worst.Round(time.Millisecond).String() + ")"
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
