package checker

import (
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// W35: under 2026-07-28 a server may cancel only a subscriptions/listen request (check.md 3.3 D).

// serverCancelRules judges a s2c notifications/cancelled that names a c2s
// request the log contains, still open or in the settled window. It runs
// before the cancellation is applied, so an open call is still open here.
func (s *session) serverCancelRules(fc *frameCtx) {
	m := &fc.msg
	if m.method != "notifications/cancelled" || fc.f.Direction != capture.ServerToClient {
		return
	}
	rid := m.paramField("requestId")
	if !rid.Exists() {
		return
	}
	key := callKey{dir: capture.ClientToServer, id: rid.Raw, conn: fc.f.ConnID}
	var method, tool, revision string
	if c := s.calls.open[key]; c != nil {
		method, tool, revision = c.method, c.tool, c.revision
	} else if sc, ok := s.calls.settled[key]; ok {
		method, tool, revision = sc.method, sc.tool, sc.revision
	} else {
		return
	}
	if longLived(method) || !atLeast20260728(revision) {
		return
	}
	fc.method, fc.tool = method, tool
	fc.warn("W35", "server cancelled <method %q>, and 2026-07-28 lets a server cancel only a subscriptions/listen request",
		"server cancelled "+strconv.Quote(method)+", and 2026-07-28 lets a server cancel only a subscriptions/listen request")
}
