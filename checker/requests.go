package checker

import (
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// onRequest opens a call, or continues one when the request is a linked
// MRTR retry.
func (s *session) onRequest(fc *frameCtx) {
	m := &fc.msg
	f := fc.f
	key := callKey{dir: f.Direction, id: m.idText(), conn: f.ConnID}
	if m.id.Type == gjson.Null {
		key.nullSeq = f.Seq
		if key.nullSeq == 0 {
			key.nullSeq = uint64(fc.ordinal) + 1<<62 // still unique, still unanswerable
		}
	}
	if root := s.linkRetry(fc); root != nil {
		fc.belongsTo(root)
		root.roundTrips++
		root.it.startHop(clone(m.idText()), f.TS, false)
		s.answerElicitations(root, m, f.TS)
		if root.isTool {
			s.tool(root.tool).roundTrips++
		}
		if key.nullSeq == 0 {
			// The retry's id now answers for the root call. Should another
			// call be in flight under that id, it stays pending (in
			// calls.pending) though no answer can reach it any more.
			root.aliases = append(root.aliases, clone2(key))
			s.calls.open[root.aliases[len(root.aliases)-1]] = root
		}
		return
	}

	if prev, ok := s.calls.open[key]; ok && prev.open() {
		// The id is reused while its call is in flight: the earlier call can
		// never be answered now.
		fc.warn("W29", "request reuses an id already in flight", "request reuses an id already in flight")
		prev.state = stateSuperseded
		prev.end = f.TS
		s.unpark(prev)
		s.calls.retire(prev)
		s.ended(prev)
		delete(s.calls.open, key)
	}

	if len(s.calls.open) >= maxOpenCalls {
		s.untracked(fc)
		return
	}
	name := m.opName()
	c := &call{
		key:        clone2(key),
		method:     clone(m.method),
		tool:       clone(name),
		isTool:     m.method == "tools/call",
		start:      f.TS,
		seq:        f.Seq,
		ordinal:    fc.ordinal,
		path:       fc.pos.Path,
		line:       fc.pos.Line,
		roundTrips: 1,
	}
	if longLived(m.method) {
		c.state = stateStreaming
	} else {
		c.state = statePending
		s.calls.pending[c] = struct{}{}
	}
	if m.method == "tools/list" {
		cur := m.paramField("cursor")
		c.cursored = cur.Exists() && cur.Type != gjson.Null
	}
	s.describeRequest(fc, c)
	if m.method == "tasks/get" || m.method == "tasks/update" || m.method == "tasks/cancel" {
		if t := m.paramField("taskId"); t.Type == gjson.String {
			c.taskID = clone(t.Str)
		}
	}
	c.index = s.callCount
	s.callCount++
	if s.e.cfg.OnCall != nil {
		if a := m.paramField("arguments"); a.Exists() {
			c.args = []byte(a.Raw)
		}
	}
	s.keepRequest(fc, c)
	s.keepRequestForBlame(fc, c)
	s.startProbe(fc, c)
	s.noteForeignOrigin(fc, c)
	if cacheableMethod(c.method) && s.cache.fresh != nil {
		fc.staleFetch = s.cache.refetch(c, f.TS)
	}
	c.it.startHop(c.key.id, f.TS, true)
	s.calls.open[c.key] = c
	fc.belongsTo(c)
	s.elicitRequest(fc, c)
	s.subscriptionRequest(fc, c)
	s.progressRequest(fc, c)
	if c.isTool {
		t := s.tool(c.tool)
		t.calls++
		t.roundTrips++
		s.asserts.called(c.tool)
	}
}

// describeRequest keeps what rules about the answer need of the request.
func (s *session) describeRequest(fc *frameCtx, c *call) {
	m := &fc.msg
	c.revision = clone(declaredRevision(m, fc.f))
	if fc.f.Direction == capture.ClientToServer && c.method != "initialize" {
		s.versionRefusal(fc, c)
	}
	c.rev = clone(fc.revision())
	if fc.f.Direction == capture.ServerToClient {
		c.clientRev = clone(fc.clientRevision())
	}
	if caps := m.metaField("io.modelcontextprotocol/clientCapabilities"); caps.Exists() {
		c.hasMetaCaps, c.metaCaps = true, clone(caps.Raw)
	}
	ir, rs := m.paramField("inputResponses"), m.paramField("requestState")
	c.retryRequest = (ir.Exists() && ir.Type != gjson.Null) || (rs.Exists() && rs.Type != gjson.Null)
	if cur := m.paramField("cursor"); cur.Type == gjson.String {
		c.cursor = clone(cur.Str)
	}
	if tok := m.metaField("progressToken"); tok.Exists() {
		c.progressToken = clone(tok.Raw)
	}
}

// clone2 copies a key's strings out of the frame buffer.
func clone2(k callKey) callKey {
	return callKey{dir: internDir(k.dir), id: clone(k.id), conn: clone(k.conn), nullSeq: k.nullSeq}
}

// longLived reports a request that holds a stream open until the client
// cancels it, so that it is never pending: subscriptions/listen, and the
// Events extension's events/stream.
func longLived(method string) bool {
	return method == "subscriptions/listen" || method == methodEventsStream
}
