package checker

import (
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// The Tasks extension used on 2026-07-28 without the other side advertising it (seed README, "Catch a feature neither side negotiated").
//
// On 2026-07-28 Tasks is an extension (SEP-2133, SEP-2663): a tasks/*
// request, a notifications/tasks, or a tools/call answered with a task handle
// means something only when the other side advertised
// io.modelcontextprotocol/tasks in the extensions map of its capabilities.
// The client advertises in each request's _meta clientCapabilities; the
// server in its server/discover (or initialize) result. The rule warns on the
// frame that reached for the extension and names the side that never
// advertised it. It stays quiet when the capture cannot show what was
// negotiated: the request carried no clientCapabilities, no server/discover or
// initialize result was seen, or the capabilities are not readable (which is
// what a redacted "[REDACTED]" leaves); and on revisions before 2026-07-28,
// where tasks are core protocol.

// tasksExtension is the extension id of Tasks.
const tasksExtension = "io.modelcontextprotocol/tasks"

// extEvidence is what a capture shows of one side advertising Tasks.
type extEvidence uint8

const (
	evUnknown    extEvidence = iota // the capture cannot show the negotiation
	evAbsent                        // capabilities were declared without the extension
	evAdvertised                    // the extension is in the extensions map
)

// extensionState is what these rules remember about a session.
type extensionState struct {
	// The server's side, from server/discover and initialize results.
	serverSeen       bool // a readable result declared capabilities
	serverUnreadable bool // a result's capabilities could not be read
	serverAdvertised bool // some result advertised Tasks
	serverEvents     bool // some result advertised Events (events.go)
	// Tasks handed out by a tools/call, by id: what the client had declared
	// on that call, for the notifications/tasks that report on the task.
	tasks map[string]taskRef
}

type taskRef struct {
	revision string
	client   extEvidence
}

// tasksEvidence reads a capabilities object for the extension. Only an
// object, or null, declares anything; any other value (a redacted
// "[REDACTED]" among them) shows nothing.
func tasksEvidence(caps gjson.Result) extEvidence { return extensionEvidence(caps, tasksExtension) }

// extensionEvidence reads a capabilities object for extension id.
func extensionEvidence(caps gjson.Result, id string) extEvidence {
	switch {
	case caps.Type == gjson.Null:
		return evAbsent
	case !caps.IsObject():
		return evUnknown
	}
	ext := caps.Get("extensions")
	switch {
	case !ext.Exists(), ext.Type == gjson.Null:
		return evAbsent
	case !ext.IsObject():
		return evUnknown
	}
	if v := ext.Get(escapeKey(id)); v.Exists() && v.Type != gjson.Null && v.Type != gjson.False {
		return evAdvertised
	}
	return evAbsent
}

// clientTasksEvidence reads a request's _meta clientCapabilities (raw JSON,
// hasCaps false when the request carried none).
func clientTasksEvidence(hasCaps bool, capsRaw string) extEvidence {
	if !hasCaps {
		return evUnknown
	}
	return tasksEvidence(gjson.Parse(capsRaw))
}

// server is what the capture shows of the server advertising Tasks.
func (x *extensionState) server() extEvidence {
	switch {
	case x.serverAdvertised:
		return evAdvertised
	case !x.serverSeen || x.serverUnreadable:
		return evUnknown
	}
	return evAbsent
}

func (s *session) extensionRules(fc *frameCtx) {
	m := &fc.msg
	switch m.kind {
	case kindRequest:
		if strings.HasPrefix(m.method, "tasks/") {
			s.tasksRequestRule(fc)
		}
		if eventsMethod(m.method) {
			s.eventsRequestRule(fc)
		}
	case kindNotification:
		if m.method == "notifications/tasks" {
			s.tasksNotificationRule(fc)
		}
	case kindResponse:
		if m.hasResult && !m.hasError && m.result.IsObject() {
			s.tasksResponseRules(fc)
		}
	}
}

// tasksRequestRule: a tasks/* request needs the receiving side to have
// advertised Tasks. A server's request carries no client capabilities, so
// only a client's request can be judged.
func (s *session) tasksRequestRule(fc *frameCtx) {
	if fc.f.Direction != capture.ClientToServer || !atLeast20260728(declaredRevision(&fc.msg, fc.f)) {
		return
	}
	if s.ext.server() == evAbsent {
		warnTasks(fc, fc.msg.method, "server")
	}
}

// tasksNotificationRule: a notifications/tasks needs the receiving side to
// have advertised Tasks. For a client that is what it declared on the
// tools/call holding the task, else on the listen stream the notification
// names.
func (s *session) tasksNotificationRule(fc *frameCtx) {
	m := &fc.msg
	f := fc.f
	taskID := m.paramField("taskId")
	ref, known := taskRef{}, false
	if taskID.Type == gjson.String {
		ref, known = s.ext.tasks[taskID.Str]
		if known && terminalTaskStatus(m.paramField("status")) {
			delete(s.ext.tasks, taskID.Str)
		}
	}
	if !known {
		if l := s.subs.listens[m.metaField(subscriptionIDKey).Raw]; l != nil {
			ref, known = taskRef{revision: l.revision, client: l.tasks}, true
		}
	}
	revision := declaredRevision(m, f)
	if revision == "" {
		revision = ref.revision
	}
	if !atLeast20260728(revision) {
		return
	}
	switch f.Direction {
	case capture.ServerToClient:
		if known && ref.client == evAbsent {
			warnTasks(fc, m.method, "client")
		}
	case capture.ClientToServer:
		if s.ext.server() == evAbsent {
			warnTasks(fc, m.method, "server")
		}
	}
}

// tasksResponseRules learns the server's capabilities from server/discover
// and initialize results, judges a task handle, and forgets tasks a tasks/*
// result reports finished.
func (s *session) tasksResponseRules(fc *frameCtx) {
	m := &fc.msg
	f := fc.f
	key := callKey{dir: opposite(f.Direction), id: m.idText(), conn: f.ConnID}
	c := s.calls.open[key]
	method := ""
	if c != nil {
		method = c.method
	} else if sc, ok := s.calls.settled[key]; ok {
		method = sc.method
	}
	switch method {
	case "server/discover", "initialize":
		if f.Direction == capture.ServerToClient && m.resultType() != "input_required" {
			if extensionEvidence(m.resultField("capabilities"), eventsExtension) == evAdvertised {
				s.ext.serverEvents = true
			}
			switch tasksEvidence(m.resultField("capabilities")) {
			case evAdvertised:
				s.ext.serverAdvertised = true
			case evAbsent:
				s.ext.serverSeen = true
			case evUnknown:
				s.ext.serverUnreadable = true
			}
		}
	case "tools/call":
		if c != nil && m.resultType() == "task" {
			s.taskHandleRule(fc, c)
		}
	case "tasks/get", "tasks/update", "tasks/cancel":
		if len(s.ext.tasks) > 0 && terminalTaskStatus(m.resultField("status")) {
			if id := m.resultField("taskId"); id.Type == gjson.String {
				delete(s.ext.tasks, id.Str)
			}
		}
	}
}

// taskHandleRule: a tools/call answered with a task handle needs the caller
// to have advertised Tasks on that very request.
func (s *session) taskHandleRule(fc *frameCtx, c *call) {
	m := &fc.msg
	// Only the answer that handed out the task; a repeat of it is a
	// duplicate response, judged by W25.
	if c.taskID == "" || m.resultField("taskId").Str != c.taskID || hasWarning(fc, "duplicate response for the same id") {
		return
	}
	var other extEvidence
	side := "client"
	if c.key.dir == capture.ClientToServer {
		other = clientTasksEvidence(c.hasMetaCaps, c.metaCaps)
	} else {
		side, other = "server", s.ext.server()
	}
	if s.ext.tasks == nil {
		s.ext.tasks = map[string]taskRef{}
	}
	s.ext.tasks[c.taskID] = taskRef{revision: c.revision, client: other}
	if !atLeast20260728(c.revision) || other != evAbsent {
		return
	}
	if c.tool == "" {
		fc.warn("W49", "tools/call answered with a task handle uses the io.modelcontextprotocol/tasks extension, which the <side> never advertised",
			"tools/call answered with a task handle uses the io.modelcontextprotocol/tasks extension, which the "+side+" never advertised")
		return
	}
	fc.warn("W49", "tool <name %q> answered with a task handle uses the io.modelcontextprotocol/tasks extension, which the <side> never advertised",
		"tool "+strconv.Quote(c.tool)+" answered with a task handle uses the io.modelcontextprotocol/tasks extension, which the "+side+" never advertised")
}

// warnTasks reports a frame of the given method that reached for Tasks.
func warnTasks(fc *frameCtx, method, side string) {
	fc.warn("W48", "<method> uses the io.modelcontextprotocol/tasks extension, which the <side> never advertised",
		method+" uses the io.modelcontextprotocol/tasks extension, which the "+side+" never advertised")
}

// terminalTaskStatus reports a status after which a task changes no more.
func terminalTaskStatus(status gjson.Result) bool {
	switch status.Str {
	case "completed", "failed", "cancelled":
		return status.Type == gjson.String
	}
	return false
}

// hasWarning reports whether the frame already carries a warning of kind.
func hasWarning(fc *frameCtx, kind string) bool {
	for _, k := range fc.kinds {
		if k == kind {
			return true
		}
	}
	return false
}
