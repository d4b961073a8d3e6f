package checker

// The Events extension (SEP-3415, io.modelcontextprotocol/events): a
// client lists a server's event types (events/list), polls them
// (events/poll), holds a stream of them open (events/stream, delivered as
// notifications/events/*), or registers a webhook (events/subscribe,
// events/unsubscribe). Its requests pair and time like any other;
// events/stream is long-lived, like subscriptions/listen, so an open one is
// never pending. Their shapes are validated with the wire signal
// (checker/wire's events schema); W61 warns when a client uses the
// extension a server's capabilities showed it does not offer.

import (
	"github.com/mcpsnoop/mcpsnoop/capture"
)

const (
	eventsExtension    = "io.modelcontextprotocol/events"
	methodEventsStream = "events/stream"
)

// eventsMethod reports a request of the Events extension.
func eventsMethod(method string) bool {
	switch method {
	case "events/list", "events/poll", methodEventsStream, "events/subscribe", "events/unsubscribe":
		return true
	}
	return false
}

// eventsRequestRule applies W61: a client's events/* request when the
// server's capabilities, as the session saw them, leave the extension out.
func (s *session) eventsRequestRule(fc *frameCtx) {
	if fc.f.Direction != capture.ClientToServer || s.ext.serverEvents || !s.ext.serverSeen || s.ext.serverUnreadable {
		return
	}
	fc.warn("W61", "<method> uses the io.modelcontextprotocol/events extension, which the server never advertised",
		fc.msg.method+" uses the io.modelcontextprotocol/events extension, which the server never advertised")
}
