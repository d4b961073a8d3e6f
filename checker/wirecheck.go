package checker

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/tidwall/gjson"
)

// The wire signal: each JSON-RPC frame validated against the JSON schema of
// the revision its session speaks (package wire does the validating). The
// revision a frame is judged under:
//
//   - an initialize request: the revision it offers (params.protocolVersion);
//     the initialize result: the one the server chose;
//   - a request that declares 2026-07-28 or later (its _meta
//     protocolVersion, else its MCP-Protocol-Version header): that one;
//   - a server's request or notification that came on the exchange of a
//     client's request (reply_to): that request's;
//   - a response: the revision of the request it answers;
//   - anything else: what the session negotiated with initialize, else
//     what it offered, else the last revision a stateless request declared.
//
// A frame whose revision cannot be told, or has no schema here, is not
// validated; the session says so once.

// revisionState is what a session's frames said about its revision. It is
// kept on every check (it costs a comparison per frame): the warn rules'
// spec links are per revision too.
type revisionState struct {
	offered    string   // params.protocolVersion of the last initialize request
	negotiated string   // result.protocolVersion of the last initialize result
	supported  []string // the versions a server/discover answer listed; nil before one
	stateless  string   // the last revision >= 2026-07-28 a client request declared
}

// current is the session's revision for a frame that declares none.
func (r *revisionState) current() string {
	switch {
	case r.negotiated != "":
		return r.negotiated
	case r.offered != "":
		return r.offered
	}
	return r.stateless
}

// observeRevision learns the session's revision from the frame.
func (s *session) observeRevision(fc *frameCtx) {
	m := &fc.msg
	switch m.kind {
	case kindRequest:
		if m.method == "initialize" && fc.f.Direction == capture.ClientToServer {
			if v := m.paramField("protocolVersion"); v.Type == gjson.String && v.Str != s.rev.offered {
				s.rev.offered = clone(v.Str)
			}
		}
		if c := fc.call; c != nil && atLeast20260728(c.revision) && fc.f.Direction == capture.ClientToServer && !fc.f.Batch {
			s.rev.stateless = c.revision
		}
	case kindResponse:
		if fc.method == "initialize" && fc.f.Direction == capture.ServerToClient && m.hasResult {
			if v := m.resultField("protocolVersion"); v.Type == gjson.String && v.Str != s.rev.negotiated {
				s.rev.negotiated = clone(v.Str)
			}
		}
	}
}

// revision is the protocol revision of the frame (see above), "" when its
// frames cannot tell. It is worked out once, when first asked.
func (fc *frameCtx) revision() string {
	if fc.revKnown {
		return fc.rev
	}
	fc.revKnown = true
	m, s := &fc.msg, fc.s
	switch m.kind {
	case kindRequest, kindNotification:
		if m.kind == kindRequest && m.method == "initialize" {
			if v := m.paramField("protocolVersion"); v.Type == gjson.String {
				fc.rev = v.Str
				return fc.rev
			}
		}
		if d := declaredRevision(m, fc.f); atLeast20260728(d) {
			fc.rev = d
			return fc.rev
		}
		if c := s.arrivedDuring(fc); c != nil && c.rev != "" {
			fc.rev = c.rev
			return fc.rev
		}
	case kindResponse:
		if fc.method == "initialize" && s.rev.negotiated != "" && fc.f.Direction == capture.ServerToClient {
			fc.rev = s.rev.negotiated
			return fc.rev
		}
		if c := fc.call; c != nil && atLeast20260728(c.rev) {
			fc.rev = c.rev
			return fc.rev
		}
	}
	fc.rev = s.rev.current()
	return fc.rev
}

// clientRevision is the revision the client's side of the session set for
// a server's request or a client's answer to one: the revision of the
// client request it came during, else what the session negotiated or its
// client requests declared. A server's own declaration does not count:
// W41 and W42 judge the server against what the client asked for.
func (fc *frameCtx) clientRevision() string {
	switch {
	case fc.f.Direction == capture.ClientToServer && fc.msg.kind == kindResponse:
		if c := fc.call; c != nil {
			return c.clientRev
		}
	case fc.f.Direction == capture.ServerToClient:
		if c := fc.s.arrivedDuring(fc); c != nil {
			return c.rev
		}
	}
	return fc.s.rev.current()
}

// arrivedDuring is the client's call a server's request or notification
// came in the middle of: over HTTP, the exchange it rode names the call
// (reply_to); nil when the frame does not tell.
func (s *session) arrivedDuring(fc *frameCtx) *call {
	f := fc.f
	if f.Direction != capture.ServerToClient || len(f.ReplyTo) == 0 {
		return nil
	}
	return s.calls.open[callKey{dir: capture.ClientToServer, id: string(f.ReplyTo), conn: f.ConnID}]
}

// wireState is a session's schema-validation tally.
type wireState struct {
	validated    int
	notValidated int
	unknownRev   string // the first revision met that has no schema
	revisions    map[string]bool
	groups       map[string]*WireGroup
	order        []string // group keys in first-seen order
	broken       string   // a schema that failed to compile (a defect)
}

// wireRules learns the frame's revision and, when validation is on,
// validates the frame.
func (s *session) wireRules(fc *frameCtx) {
	s.observeRevision(fc)
	if !s.e.wire {
		return
	}
	m := &fc.msg
	msg := wire.Message{Sender: wire.Client, Redacted: fc.f.Redacted, Raw: fc.f.Raw}
	if fc.f.Direction == capture.ServerToClient {
		msg.Sender = wire.Server
	}
	switch m.kind {
	// The method is cloned: the frame is validated later, in a batch,
	// after the reader has refilled the buffer m.method points into.
	case kindRequest:
		msg.Kind, msg.Method = wire.Request, clone(m.method)
		if c := fc.call; c != nil && c.method == m.method && taskAugmentable(m.method) {
			if t := m.paramField("task"); t.Exists() && t.Type != gjson.Null {
				c.wireTask = true
			}
		}
	case kindNotification:
		msg.Kind, msg.Method = wire.Notification, clone(m.method)
	case kindResponse, kindOther:
		msg.Kind, msg.Method = wire.Result, fc.method
		if m.hasError {
			msg.Kind = wire.Error
		}
		if c := fc.call; c != nil {
			msg.TaskAugmented = c.wireTask
		}
	default:
		return
	}
	rev := fc.revision()
	if rev == "" {
		s.wire.notValidated++
		return
	}
	msg.Revision = clone(rev)
	s.e.pool.submit(wireJob{
		s: s, msg: msg, seq: fc.f.Seq, ordinal: fc.ordinal, path: fc.pos.Path, line: fc.pos.Line,
		method: clone(fc.method), tool: clone(fc.tool), w57: fc.initMissing,
	})
}

// applyWire takes in the outcome of validating one frame of the session.
func (s *session) applyWire(j *wireJob) {
	if s.holdWire(j) {
		return // a probe's frame (probe.go)
	}
	rev := j.msg.Revision
	switch {
	case errors.Is(j.err, wire.ErrUnknownRevision):
		s.wire.notValidated++
		if s.wire.unknownRev == "" {
			s.wire.unknownRev = rev
		}
		return
	case j.err != nil:
		s.wire.notValidated++
		if s.wire.broken == "" {
			s.wire.broken = j.err.Error()
		}
		return
	}
	s.wire.validated++
	if j.w57 && j.finding != nil {
		j.finding = withoutW57(j.finding)
	}
	if s.wire.revisions == nil {
		s.wire.revisions = map[string]bool{}
	}
	s.wire.revisions[rev] = true
	f := j.finding
	if f == nil {
		return
	}
	s.counters.WireFindings++
	s.wire.record(f, j)
	refs := []RuleRef{{ID: RuleWire, SpecURL: wire.SpecURL(f.Revision, f.Definition)}}
	// The session's tally links the revision's schema, not one definition.
	s.ruleHits.add([]RuleRef{{ID: RuleWire, SpecURL: strings.TrimSuffix(wire.SpecURL(f.Revision, ""), "#")}})
	s.addFinding(findingInput{
		signal: SignalWire, phase: phaseFrames, ordinal: j.ordinal, rank: rankWire, party: wireSender(j.msg.Sender),
		seq: j.seq, path: j.path, line: j.line,
		method: j.method, tool: j.tool, kind: f.Kind(), text: f.Text(), rules: refs, wire: f,
	})
}

// record tallies a finding by what it broke.
func (w *wireState) record(f *wire.Finding, j *wireJob) {
	key := f.Subject + "\x00" + f.Revision + "\x00" + f.Definition
	g := w.groups[key]
	if g == nil {
		if w.groups == nil {
			w.groups = map[string]*WireGroup{}
		}
		g = &WireGroup{
			Subject: f.Subject, Revision: f.Revision, Definition: f.Definition,
			SpecURL:  wire.SpecURL(f.Revision, f.Definition),
			FirstSeq: j.seq, FirstLine: j.line, Example: f.Text(),
		}
		w.groups[key] = g
		w.order = append(w.order, key)
	}
	g.Frames++
}

// WireSummary is what schema validation said about one session.
type WireSummary struct {
	// Revisions are those frames were validated under, oldest first.
	Revisions []string `json:"revisions"`
	// Validated counts the frames validated; NotValidated those whose
	// revision could not be told or has no schema.
	Validated    int `json:"validated_frames"`
	NotValidated int `json:"unvalidated_frames"`
	// Note says why frames were not validated ("" when all were).
	Note string `json:"note,omitempty"`
	// Groups sum the findings up by what they broke, in first-seen order.
	Groups []WireGroup `json:"groups"`
}

// WireGroup is the wire findings of one kind of message against one
// definition.
type WireGroup struct {
	Subject    string `json:"subject"`
	Revision   string `json:"revision"`
	Definition string `json:"definition"`
	SpecURL    string `json:"spec_url"`
	Frames     int    `json:"frames"`
	// The first frame, and its finding's text.
	FirstSeq  uint64 `json:"first_seq"`
	FirstLine int    `json:"first_line"`
	Example   string `json:"example"`
}

// wireSummary closes the tally; nil when validation was off. A session
// with frames left unvalidated gets one note finding that says why.
func (s *session) wireSummary() *WireSummary {
	if !s.e.wire {
		return nil
	}
	w := &s.wire
	sum := &WireSummary{Validated: w.validated, NotValidated: w.notValidated, Groups: []WireGroup{}, Revisions: []string{}}
	for r := range w.revisions {
		sum.Revisions = append(sum.Revisions, r)
	}
	sort.Strings(sum.Revisions)
	for _, k := range w.order {
		sum.Groups = append(sum.Groups, *w.groups[k])
	}
	if w.notValidated == 0 {
		return sum
	}
	frames := strconv.Itoa(w.notValidated) + " " + plural(w.notValidated, "frame", "frames")
	switch {
	case w.broken != "":
		sum.Note = frames + " not validated: " + w.broken
	case w.unknownRev != "":
		known := strings.Join(wire.Revisions, ", ")
		sum.Note = frames + " not validated: revision " + strconv.Quote(w.unknownRev) + " has no schema here (known: " + known + ")"
	case w.validated == 0:
		sum.Note = "not validated: no frame tells the session's protocol revision (no initialize exchange, no _meta or MCP-Protocol-Version of 2026-07-28 or later)"
	default:
		sum.Note = frames + " not validated: they came before any frame told the session's protocol revision"
	}
	s.addFinding(findingInput{
		signal: SignalWire, level: LevelNote, phase: phaseTools, sessionWide: true, party: PartyRun,
		kind: "wire: <n> frames not validated", text: ": wire: " + sum.Note,
		rules: []RuleRef{{ID: RuleWire, SpecURL: SpecBase + newestRevision + "/schema"}},
	})
	return sum
}

// wireSender is the party that sent a validated message.
func wireSender(s wire.Sender) Party {
	if s == wire.Client {
		return PartyClient
	}
	return PartyServer
}

// taskAugmentable reports a method whose request may ask to run as a task
// (2025-11-25's TaskAugmentedRequestParams), so that its answer is a
// CreateTaskResult. Other requests carrying params.task are not task-
// augmented: the TS SDK (1.32) puts task in its tasks/get and tasks/result
// polls, which answer with the task or its payload.
func taskAugmentable(method string) bool {
	switch method {
	case "tools/call", "sampling/createMessage", "elicitation/create":
		return true
	}
	return false
}
