package checker

import (
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// W30-W32: notifications on a subscriptions/listen stream (check.md 3.3 D).

// subscriptionIDKey is the _meta key naming the listen stream a notification
// (or its acknowledgment) belongs to.
const subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

// subscriptionState is what these rules remember about a session.
type subscriptionState struct {
	listening bool                    // a c2s subscriptions/listen was seen
	listens   map[string]*listenState // observed listens by the raw JSON text of their id
}

// listenState is one observed c2s subscriptions/listen request.
type listenState struct {
	acked bool       // a notifications/subscriptions/acknowledged named it
	wants notifyMask // the types its params.notifications filter asked for
	// What the Tasks extension rule needs of the request behind the stream.
	revision string
	tasks    extEvidence
}

// notifyMask is a set of subscribable notification types.
type notifyMask uint8

const (
	notifyTools notifyMask = 1 << iota
	notifyPrompts
	notifyResources
	notifyResourceUpdates
)

// subscribable is the type a stream notification method belongs to; 0 for a
// method W30-W32 do not apply to.
func subscribable(method string) notifyMask {
	switch method {
	case "notifications/tools/list_changed":
		return notifyTools
	case "notifications/prompts/list_changed":
		return notifyPrompts
	case "notifications/resources/list_changed":
		return notifyResources
	case "notifications/resources/updated":
		return notifyResourceUpdates
	}
	return 0
}

// listenFilter reads what a listen's params.notifications asks for.
func listenFilter(filter gjson.Result) notifyMask {
	if !filter.IsObject() {
		return 0
	}
	var wants notifyMask
	if filter.Get("toolsListChanged").Type == gjson.True {
		wants |= notifyTools
	}
	if filter.Get("promptsListChanged").Type == gjson.True {
		wants |= notifyPrompts
	}
	if filter.Get("resourcesListChanged").Type == gjson.True {
		wants |= notifyResources
	}
	if subs := filter.Get("resourceSubscriptions"); (subs.IsArray() || subs.IsObject()) && nonEmpty(subs) {
		wants |= notifyResourceUpdates
	}
	return wants
}

// nonEmpty reports whether an array or object has at least one element.
func nonEmpty(v gjson.Result) bool {
	found := false
	v.ForEach(func(_, _ gjson.Result) bool {
		found = true
		return false
	})
	return found
}

// subscriptionRequest records a c2s subscriptions/listen: a (re)used id
// starts a fresh, unacknowledged stream with its own filter.
func (s *session) subscriptionRequest(fc *frameCtx, c *call) {
	if c.method != "subscriptions/listen" || fc.f.Direction != capture.ClientToServer {
		return
	}
	st := &s.subs
	st.listening = true
	if st.listens == nil {
		st.listens = map[string]*listenState{}
	}
	st.listens[c.key.id] = &listenState{
		wants:    listenFilter(fc.msg.paramField("notifications")),
		revision: c.revision,
		tasks:    clientTasksEvidence(c.hasMetaCaps, c.metaCaps),
	}
}

// subscriptionRules records acknowledgments and judges the notifications a
// server sends on a stream, in table order (W30, W31, W32).
func (s *session) subscriptionRules(fc *frameCtx) {
	m := &fc.msg
	if m.method == "notifications/subscriptions/acknowledged" {
		if l := s.subs.listens[m.metaField(subscriptionIDKey).Raw]; l != nil {
			l.acked = true
		}
		return
	}
	kind := subscribable(m.method)
	if kind == 0 || !s.subs.listening || fc.f.Direction != capture.ServerToClient {
		return
	}
	id := m.metaField(subscriptionIDKey)
	if !id.Exists() || id.Type == gjson.Null {
		fc.warn("W30", "notification <m %q> carries no io.modelcontextprotocol/subscriptionId, which 2026-07-28 requires on a subscription stream",
			"notification "+strconv.Quote(m.method)+" carries no io.modelcontextprotocol/subscriptionId, which 2026-07-28 requires on a subscription stream")
		return
	}
	l := s.subs.listens[id.Raw]
	if l == nil {
		return // a stream the capture did not see opened
	}
	if !l.acked {
		fc.warn("W31", "notification <m %q> arrived on subscription <id raw> before its acknowledgment, which 2026-07-28 requires first",
			"notification "+strconv.Quote(m.method)+" arrived on subscription "+id.Raw+" before its acknowledgment, which 2026-07-28 requires first")
	}
	if l.wants&kind == 0 {
		fc.warn("W32", "notification <m %q> was not requested by subscription <id raw>, and 2026-07-28 forbids sending a type the client did not ask for",
			"notification "+strconv.Quote(m.method)+" was not requested by subscription "+id.Raw+", and 2026-07-28 forbids sending a type the client did not ask for")
	}
}
