package checker

import (
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// onResponse matches a response to its call and settles, parks or flags it.
func (s *session) onResponse(fc *frameCtx) {
	m := &fc.msg
	f := fc.f
	id := m.idText()
	if (id == "" || id == "null") && len(f.ReplyTo) > 0 && f.Status >= 400 {
		// A refusal written before the server read the request's id: the
		// HTTP exchange it came back on names the request (reply_to).
		id = string(f.ReplyTo)
	}
	key := callKey{dir: opposite(f.Direction), id: id, conn: f.ConnID}
	c := s.calls.open[key]
	if c == nil {
		if sc, ok := s.calls.settled[key]; ok {
			if sc.cancelled != nil && !sc.cancelled.answered {
				fc.belongsTo(sc.cancelled)
				s.lateAnswer(fc, sc.cancelled)
				s.calls.answeredLate(key)
				return
			}
			fc.method, fc.tool, fc.callIndex = sc.method, sc.tool, sc.index
			fc.warn("W25", "duplicate response for the same id", "duplicate response for the same id")
			return
		}
	}
	if c == nil {
		if s.truncCredit > 0 {
			// A truncated request we could not read is the likely question.
			s.truncCredit--
			return
		}
		fc.warn("W24", "response id has no matching request", "response id has no matching request")
		if m.hasError {
			fc.unmatchedError()
		}
		return
	}
	fc.belongsTo(c)
	switch {
	case c.open() && !c.answered:
		s.firstAnswer(fc, c)
	default:
		fc.warn("W25", "duplicate response for the same id", "duplicate response for the same id")
	}
}

// firstAnswer handles the first answer a call gets: an input_required or
// task-handle result keeps it pending; anything else settles it.
func (s *session) firstAnswer(fc *frameCtx, c *call) {
	fc.answeredBeforeAsked(c)
	m := &fc.msg
	if !fc.withheld {
		s.responseRules(fc, c)
	}
	s.keepAnswer(fc, c)
	if !m.hasError {
		switch m.resultType() {
		case "input_required":
			c.it.answerHop(fc.f.TS, askedMethods(m))
			s.elicitRows(c, m, fc.f.TS, fc.f.Redacted)
			s.park(c, m)
			return
		case "task":
			if t := m.resultField("taskId"); c.isTool && t.Type == gjson.String && t.Str != "" {
				c.it.answerHop(fc.f.TS, nil)
				c.answered = true
				c.taskID = clone(t.Str)
				if st := m.resultField("status"); st.Type == gjson.String {
					c.taskStatus = clone(st.Str)
				}
				s.tasks[c.taskID] = c
				return
			}
		}
	}
	errored, detail := s.answerError(m)
	c.it.answerHop(fc.f.TS, nil)
	s.elicitAnswer(c, m, fc.f.TS)
	s.settle(fc, c, errored, detail, resultSize(m))
	s.answerSideEffects(fc, c)
}

// answeredBeforeAsked flags an answer timestamped before its call's
// request: a duration below zero would pass any --max-duration, so the
// log's times are reported as invalid instead (once per frame).
func (fc *frameCtx) answeredBeforeAsked(c *call) {
	if c.start.IsZero() || fc.f.TS.IsZero() || !fc.f.TS.Before(c.start) || fc.timeTravel != "" {
		return
	}
	if !fc.isInvalid {
		fc.s.counters.Invalid++
	}
	early := c.start.Sub(fc.f.TS).Round(time.Millisecond)
	fc.timeTravel = c.subject() + " was answered " + early.String() + " before it was asked: the log's timestamps are out of order"
}

// lateAnswer handles the first answer to a call that was cancelled.
func (s *session) lateAnswer(fc *frameCtx, c *call) {
	c.answered = true
	if longLived(c.method) {
		// The graceful close of a cancelled stream: not a late result, but
		// what it answered is kept for exports.
		s.keepAnswer(fc, c)
		return
	}
	fc.answeredBeforeAsked(c)
	m := &fc.msg
	if !fc.withheld {
		s.responseRules(fc, c)
	}
	s.keepAnswer(fc, c)
	c.lateResult = true
	c.end = fc.f.TS
	c.it.answerHop(fc.f.TS, nil)
	s.counters.LateResults++
	errored, detail := s.answerError(m)
	if errored {
		c.errored = true
		fc.callError(c, detail)
	}
	delay := duration(c.cancelledAt, c.end).Round(time.Millisecond)
	fc.observation = lateObservation(delay)
	fc.lateResult = c.subject() + " was answered after it was cancelled: " + fc.observation
	s.finished(c, resultSize(m))
	s.answerSideEffects(fc, c)
	if s.e.cfg.OnCall != nil {
		s.report(c, false)
	}
}

// settle ends a call with its final answer, counting its error on fc.
func (s *session) settle(fc *frameCtx, c *call, errored bool, detail string, size int) {
	if errored {
		fc.callError(c, detail)
		if pastAuthorization(fc.f.Status) {
			// The request got through the authorization a held 401 was
			// the first half of; its error is judged on its own.
			s.succeeded(c)
		}
	}
	s.conclude(c, fc.f.TS, errored, size)
}

// conclude ends a call answered at ts: its state, its place in the call
// table, its statistics. Counting an error is the caller's.
func (s *session) conclude(c *call, ts time.Time, errored bool, size int) {
	c.answered = true
	c.end = ts
	c.errored = errored
	if errored {
		c.state = stateFailed
	} else {
		c.state = stateCompleted
		s.succeeded(c)
	}
	s.unpark(c)
	s.calls.retire(c)
	s.progressDone(c)
	s.finished(c, size)
	s.ended(c)
}

// answerSideEffects applies what an answer means beyond its call: a tasks/*
// result reports on the task it names; a tools/list result is where
// tool-wide findings point.
func (s *session) answerSideEffects(fc *frameCtx, c *call) {
	m := &fc.msg
	switch c.method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		if !m.hasResult || !m.result.IsObject() {
			return
		}
		id := c.taskID
		if t := m.resultField("taskId"); t.Type == gjson.String {
			id = t.Str
		}
		s.taskStatus(fc, id, m.resultField("status"), m.resultField("result"), m.resultField("error"))
	}
}

// responseRules applies the rules about an answer to a known call (check.md
// 3.3 B), in table order. A tools/list answer also updates the advertised
// tools here, since W16 sits between W15 and the cache rules.
func (s *session) responseRules(fc *frameCtx, c *call) {
	s.originRule(fc, c)
	s.mustRefuseRules(fc, c)
	s.onResourceLists(fc, c)
	s.emptyReadRule(fc, c)
	s.inputRequiredRules(fc, c)
	s.resultTypeRules(fc, c)
	if c.method == "tools/list" {
		s.lastToolsListLine, s.lastToolsListPath = fc.pos.Line, fc.pos.Path
		s.xMcpHeaderRules(fc, c)
		s.onToolsList(fc, c)
	}
	s.cacheRules(fc, c)
}

// onNotification handles cancellation and task status reports.
func (s *session) onNotification(fc *frameCtx) {
	m := &fc.msg
	s.subscriptionRules(fc)
	s.progressRules(fc)
	s.serverCancelRules(fc)
	switch m.method {
	case "notifications/cancelled":
		s.cancel(fc, m.paramField("requestId"))
	case "notifications/tasks":
		id := m.paramField("taskId")
		if id.Type == gjson.String {
			s.taskStatus(fc, id.Str, m.paramField("status"), m.paramField("result"), m.paramField("error"))
		}
	}
}

// cancel settles the call a notifications/cancelled names: a stream in
// either direction, else a pending call sent in the notification's own
// direction that is not backed by a task.
func (s *session) cancel(fc *frameCtx, requestID gjson.Result) {
	if !requestID.Exists() {
		return
	}
	f := fc.f
	id := requestID.Raw
	for _, dir := range []string{capture.ClientToServer, capture.ServerToClient} {
		if c := s.calls.open[callKey{dir: dir, id: id, conn: f.ConnID}]; c != nil && c.state == stateStreaming {
			s.markCancelled(fc, c)
			return
		}
	}
	c := s.calls.open[callKey{dir: f.Direction, id: id, conn: f.ConnID}]
	if c == nil || c.state != statePending || (c.isTool && c.taskID != "") {
		return
	}
	s.markCancelled(fc, c)
}

func (s *session) markCancelled(fc *frameCtx, c *call) {
	fc.belongsTo(c)
	c.state = stateCancelled
	c.cancelledAt = fc.f.TS
	if r := fc.msg.paramField("reason"); r.Type == gjson.String {
		c.cancelReason = clone(r.Str)
	}
	c.end = fc.f.TS
	s.unpark(c)
	s.calls.retire(c)
	s.ended(c)
}

// taskStatus applies a task's reported status to the tools/call holding it.
// Terminal statuses settle the call; failed, and completed with an isError
// result, count an error on this frame; cancelled does not.
func (s *session) taskStatus(fc *frameCtx, id string, status, result, errVal gjson.Result) {
	c := s.tasks[id]
	if c == nil || !c.open() || status.Type != gjson.String {
		return
	}
	errored, detail := false, ""
	c.taskStatus = clone(status.Str)
	switch status.Str {
	case "completed":
		if result.IsObject() && result.Get("isError").Type == gjson.True {
			errored, detail = true, s.toolErrorDetail(result)
		}
		c.state = stateCompleted
	case "failed":
		errored, detail = true, "the call failed"
		if errVal.IsObject() {
			detail = s.errorDetail(errVal)
		}
		c.state = stateFailed
	case "cancelled":
		c.state = stateFailed
		c.taskCancelled = true
	default:
		return // still working
	}
	delete(s.tasks, id)
	s.keepTaskOutcome(c, result, errVal)
	s.progressDone(c)
	c.end = fc.f.TS
	c.it.extend(fc.f.TS)
	c.errored = errored
	if errored {
		c.state = stateFailed
		fc.taskError(c, id, detail)
	}
	s.calls.retire(c)
	size := 0
	if result.Exists() {
		size = len(result.Raw)
	}
	s.finished(c, size)
	s.ended(c)
}

// answerError says whether an answer is a failure and how to describe it,
// in the server's own words.
func (s *session) answerError(m *message) (bool, string) {
	switch {
	case m.hasError:
		return true, s.errorDetail(m.errorVal)
	case m.isErrorResult():
		return true, s.toolErrorDetail(m.result)
	}
	return false, ""
}

// resultSize is the stored size of a result; JSON-RPC errors have none.
func resultSize(m *message) int {
	if m.hasError || !m.hasResult {
		return 0
	}
	return len(m.result.Raw)
}
