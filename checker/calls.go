package checker

import (
	"encoding/json"
	"strconv"
	"time"
)

// CallRecord is one call as it ended, for the commands that list calls
// (diff, exports). check itself keeps no per-call list: the engine hands
// each record to Config.OnCall and forgets it.
type CallRecord struct {
	SessionID string
	Index     int    // position among the session's calls, in request order
	ID        string // raw JSON id of the first request
	Method    string
	Name      string // tool or operation name
	// Arguments are params.arguments of the first request as logged (nil
	// when absent).
	Arguments json.RawMessage
	// Status: ok, pending, streaming, superseded, late_result,
	// call_cancelled, cancelled (its task was cancelled) or error.
	Status string
	Start  time.Time
	End    time.Time // zero while open
	// Duration is set for calls that are done: not open, not superseded,
	// and not cancelled without a late answer.
	Duration    time.Duration
	HasDuration bool
	RoundTrips  int
	ServerTime  time.Duration
	IsError     bool
	TaskID      string

	// Direction is the request's direction (c2s, or s2c for a request the
	// server sent).
	Direction string
	// State: pending, completed, failed, superseded, cancelled, streaming.
	State      string
	IsTool     bool
	ToolError  bool // a result marked isError was seen
	TaskStatus string
	// CancelledAt is when notifications/cancelled settled it (zero if not).
	CancelledAt  time.Time
	CancelReason string
	LateResult   bool
	// Params, Result and Error are the raw JSON of the first request's
	// params and of the answer that settled the call (for an open MRTR call,
	// its last input_required result); set only under Config.KeepBodies.
	Params, Result, Error json.RawMessage
}

// callStateName names a call state as exports do.
func callStateName(st callState) string {
	switch st {
	case stateCompleted:
		return "completed"
	case stateFailed:
		return "failed"
	case stateSuperseded:
		return "superseded"
	case stateCancelled:
		return "cancelled"
	case stateStreaming:
		return "streaming"
	}
	return "pending"
}

// callStatus is the status string of a call (capture-store-export.md 6.10).
func callStatus(c *call) string {
	switch {
	case c.state == statePending:
		return "pending"
	case c.state == stateStreaming:
		return "streaming"
	case c.state == stateSuperseded:
		return "superseded"
	case c.state == stateCancelled && c.lateResult:
		return "late_result"
	case c.state == stateCancelled:
		return "call_cancelled"
	case c.taskCancelled:
		return "cancelled"
	case c.errored || c.state == stateFailed:
		return "error"
	}
	return "ok"
}

// report hands a call that left play to Config.OnCall. A cancelled call is
// held until its late answer or the end of the session, since a late
// answer changes its status.
func (s *session) report(c *call, final bool) {
	on := s.e.cfg.OnCall
	if on == nil {
		return
	}
	if c.state == stateCancelled && !c.lateResult && !final {
		s.cancelledCalls = append(s.cancelledCalls, c)
		return
	}
	r := CallRecord{
		SessionID: s.id, Index: c.index, ID: c.key.id, Method: c.method, Name: c.tool,
		Arguments: c.args, Status: callStatus(c), Start: c.start, End: c.end,
		RoundTrips: c.roundTrips, ServerTime: c.it.serverTime, IsError: c.errored, TaskID: c.taskID,
		Direction: c.key.dir, State: callStateName(c.state), IsTool: c.isTool, ToolError: c.toolError,
		TaskStatus: c.taskStatus, CancelledAt: c.cancelledAt, CancelReason: c.cancelReason,
		LateResult: c.lateResult, Params: c.params, Result: c.result, Error: c.errRaw,
	}
	done := c.state == stateCompleted || c.state == stateFailed || (c.state == stateCancelled && c.lateResult)
	if done {
		r.Duration, r.HasDuration = duration(c.start, c.end), true
	}
	on(r)
}

// reportRemaining hands over the calls still open or held at the end.
func (s *session) reportRemaining() {
	if s.e.cfg.OnCall == nil {
		return
	}
	for _, c := range s.cancelledCalls {
		if !c.lateResult {
			s.report(c, true)
		}
	}
	s.cancelledCalls = nil
	seen := map[*call]bool{}
	for _, c := range s.calls.open {
		if c.state == stateStreaming && !seen[c] {
			seen[c] = true
			s.report(c, true)
		}
	}
}

// maxOpenCalls bounds the calls a session keeps in flight. A peer that
// sends a million requests nobody answers made check and the hub hold
// them all (1.5 GB, 1.8 GB); past the bound a request is counted
// (Counters.Untracked) and not kept, and the answer it may get is not
// judged.
const maxOpenCalls = 10_000

// untracked handles a request past maxOpenCalls: counted, said once (a
// note finding on the first), and its answer left unjudged (it takes one
// of the credits that keep an unmatched answer from being reported).
func (s *session) untracked(fc *frameCtx) {
	s.counters.Untracked++
	s.truncCredit++
	if s.counters.Untracked > 1 {
		return
	}
	s.addFinding(findingInput{
		signal: SignalPending, level: LevelNote, phase: phaseFrames, ordinal: fc.ordinal, rank: rankPending,
		party: sender(opposite(fc.f.Direction)), seq: fc.f.Seq, path: fc.pos.Path, line: fc.pos.Line,
		kind: "request not tracked: <n> calls already in flight",
		text: "request not tracked: " + strconv.Itoa(maxOpenCalls) + " calls are already in flight; " +
			"this one and later ones past that are counted (untracked_requests), and their answers not judged",
	})
}
