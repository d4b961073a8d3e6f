package checker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// --expect-tool and --forbid-tool are judged per run: a tool counts as
// called in a run when any session of the run called it. A session in no
// run (no trace id, no client process) is a run of its own, so a single
// log is judged as it always was. SERVER:TOOL narrows an assertion to the
// sessions of one server label.

// ToolSpec is one --expect-tool or --forbid-tool value.
type ToolSpec struct {
	Spec   string // as given
	Server string // the server label it is narrowed to; "" for any
	Tool   string
}

// ParseToolSpec reads SERVER:TOOL, split at the last colon (tool names
// have none; labels such as 127.0.0.1:38081 may), or a bare TOOL. An empty
// tool, or an empty server before the colon, is an error.
func ParseToolSpec(spec string) (ToolSpec, error) {
	t := ToolSpec{Spec: spec, Tool: spec}
	if i := strings.LastIndexByte(spec, ':'); i >= 0 {
		t.Server, t.Tool = spec[:i], spec[i+1:]
		if t.Server == "" {
			return t, fmt.Errorf("%q names no server before its colon (SERVER:TOOL)", spec)
		}
	}
	if t.Tool == "" {
		return t, errors.New(strconv.Quote(spec) + " names no tool")
	}
	return t, nil
}

// parseToolSpecs parses what Config names, skipping what does not parse
// (the command line refuses it before the engine runs).
func parseToolSpecs(specs []string) []ToolSpec {
	out := make([]ToolSpec, 0, len(specs))
	for _, s := range specs {
		if t, err := ParseToolSpec(s); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// RunOfSession is the run id of a session that belongs to no run: the
// session is a run of its own.
func RunOfSession(sessionID string) string { return "s-" + sessionID }

// RunKeySession is the key kind of such a run.
const RunKeySession = "session"

// assertGroup is one run as the tool assertions see it: its sessions, by
// index in report order.
type assertGroup struct {
	id       string
	sessions []int
}

// toolAssertions judges the tool assertions of every run and hands each
// result to the run's last session (and, for a server no session of this
// check was labelled with, to the last session of all), with a finding
// for each failure.
func (e *Engine) toolAssertions(rep *Report) {
	if len(e.expect) == 0 && len(e.forbid) == 0 {
		return
	}
	groups := map[int][]assertGroup{} // by last session
	for _, r := range rep.Runs {
		g := assertGroup{id: r.ID}
		for i, sr := range rep.Sessions {
			for _, id := range sr.RunIDs {
				if id == r.ID {
					g.sessions = append(g.sessions, i)
					break
				}
			}
		}
		if len(g.sessions) > 0 {
			last := g.sessions[len(g.sessions)-1]
			groups[last] = append(groups[last], g)
		}
	}
	labels := map[string]bool{}
	for i, sr := range rep.Sessions {
		labels[sr.Label] = true
		if len(sr.RunIDs) == 0 {
			groups[i] = append(groups[i], assertGroup{id: RunOfSession(sr.ID), sessions: []int{i}})
		}
	}
	for i := range rep.Sessions {
		for _, g := range groups[i] {
			for _, t := range e.expect {
				if r, ok := e.judgeTool(rep, g, t, true); ok {
					e.order[i].addAssertion(rep.Sessions[i], r, len(g.sessions) > 1)
				}
			}
			for _, t := range e.forbid {
				if r, ok := e.judgeTool(rep, g, t, false); ok {
					e.order[i].addAssertion(rep.Sessions[i], r, len(g.sessions) > 1)
				}
			}
		}
	}
	// An expected tool of a server that no session was labelled with
	// cannot have been called: one failure, with the last session.
	if n := len(rep.Sessions); n > 0 {
		for _, t := range e.expect {
			if t.Server != "" && !labels[t.Server] {
				r := AssertionResult{Name: AssertionExpectTool, Server: t.Server,
					Message: "expected tool " + strconv.Quote(t.Tool) + " was never called: no session of server " + strconv.Quote(t.Server) + " was checked"}
				e.order[n-1].addAssertion(rep.Sessions[n-1], r, false)
			}
		}
	}
}

// judgeTool judges one tool assertion over run g. ok is false when the
// assertion does not apply: it names a server none of the run's sessions
// has.
func (e *Engine) judgeTool(rep *Report, g assertGroup, t ToolSpec, expect bool) (AssertionResult, bool) {
	applies, by := false, -1
	for _, i := range g.sessions {
		sr := rep.Sessions[i]
		if t.Server != "" && sr.Label != t.Server {
			continue
		}
		applies = true
		if e.order[i].asserts.calledTools[t.Tool] {
			by = i
			break
		}
	}
	if !applies {
		return AssertionResult{}, false
	}
	r := AssertionResult{Name: AssertionForbidTool, Run: g.id, Server: t.Server, Passed: by < 0}
	if expect {
		r.Name, r.Passed = AssertionExpectTool, by >= 0
	}
	prefix := ""
	if len(g.sessions) > 1 {
		prefix = "run " + g.id + ": "
	}
	where := ""
	if t.Server != "" {
		where = " on server " + strconv.Quote(t.Server)
	} else if by >= 0 && len(g.sessions) > 1 {
		where = " on server " + strconv.Quote(rep.Sessions[by].Label)
	}
	tool := strconv.Quote(t.Tool)
	switch {
	case expect && r.Passed:
		r.Message = prefix + "expected tool " + tool + " was called" + where
	case expect:
		r.Message = prefix + "expected tool " + tool + " was never called" + where
	case r.Passed:
		r.Message = prefix + "forbidden tool " + tool + " was not called" + where
	default:
		r.Message = prefix + "forbidden tool " + tool + " was called" + where
	}
	return r, true
}

// addAssertion adds an assertion judged after the session closed, with a
// finding when it failed. A run's message names the run itself, so its
// finding is not prefixed with the session.
func (s *session) addAssertion(sr *SessionReport, r AssertionResult, ownWords bool) {
	sr.Assertions = append(sr.Assertions, r)
	if r.Passed {
		return
	}
	in := findingInput{
		rule: RuleAssertion, level: LevelError, phase: phaseAssertions, sessionWide: true, party: PartyRun,
		kind: r.Name, text: ": " + r.Message,
	}
	if ownWords {
		in.ownWords, in.text = true, r.Message
	}
	s.addFinding(in)
}
