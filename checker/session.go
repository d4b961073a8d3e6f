package checker

import (
	"sort"

	"github.com/tidwall/gjson"
	"time"

	"net/http"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/jsondup"
)

// session is the running state of one session_id.
type session struct {
	e         *Engine
	index     int
	input     int // the input of its first frame, in a part (parts.go)
	seenIn    int // in a part, the last input it was seen in, counted from 1
	id        string
	label     string
	transport string
	source    Source
	counters  Counters

	lastSeq     uint64
	seqs        seqRecord // the seqs each input gave, for merging copies (merge.go)
	dropped     uint64    // frames the log's closing frame says the capture lost
	ends        logEnds   // what the log says of its completeness (logends.go)
	frames      int       // frames ingested, the position of the next one
	calls       callTable
	parked      []*call          // calls waiting on an input_required answer, oldest first
	tasks       map[string]*call // task id -> tools/call holding the handle
	truncCredit int              // truncated c2s frames that may each absorb one unmatched response
	tools       map[string]*toolAgg
	asserts     assertionState
	occurrences map[fingerprintTuple]*tally
	// findingCounts counts the findings by level as they are made; known
	// ones are moved to Notes when the report is closed.
	findingCounts FindingCounts
	// gatedBySignal counts the findings reported at level error, by
	// signal: what fails the gate before known findings are left out.
	gatedBySignal map[Signal]int
	parties       partyCounts
	blameBytes    int // held by open calls' request copies (blame.go)

	lastToolsListLine int
	lastToolsListPath string
	inv               inventory

	interactions          []keptInteraction
	interactionsTruncated int

	runs runKeys

	callCount      int
	cancelledCalls []*call // held for Config.OnCall until a late answer or the end

	elicitations          []*Elicitation
	elicitationsTruncated int
	elicitSerial          int

	traffic     Traffic
	first, last time.Time
	caps        Capabilities  // kept under Config.KeepBodies
	bl          baselineState // what the tool baseline is keyed by (baselinecheck.go)

	// Rule families' own state.
	cache  cacheState
	subs   subscriptionState
	prog   progressState
	params paramHeaderState
	ext    extensionState
	http   httpState
	res    resourceState

	// A 2026-07-28 probe refused by an older server (probe.go).
	probe       *probeState
	probeSeen   bool         // the session's first client request was looked at
	probeFrames map[int]bool // the frames of a confirmed probe

	rev      revisionState
	wire     wireState
	sec      securityState
	ruleHits ruleHits
}

func newSession(e *Engine, index int, f *capture.Frame, pos Position) *session {
	input := 0
	if e.part != nil {
		input = e.part.input
	}
	return &session{
		e:             e,
		index:         index,
		input:         input,
		id:            clone(f.SessionID),
		source:        Source{Path: pos.Path, Name: pos.Name, FirstLine: pos.Line},
		calls:         newCallTable(),
		tasks:         map[string]*call{},
		tools:         map[string]*toolAgg{},
		asserts:       newAssertionState(e),
		occurrences:   map[fingerprintTuple]*tally{},
		gatedBySignal: map[Signal]int{},
		parties:       partyCounts{},
	}
}

// ingest judges one frame of this session.
func (s *session) ingest(f *capture.Frame, pos Position) {
	if f.ServerLabel != "" && f.ServerLabel != s.label {
		s.label = clone(f.ServerLabel)
	}
	if s.transport == "" && f.Transport != "" {
		s.transport = clone(f.Transport)
	}
	// Seq gaps are lost frames (logends.go).
	s.seq(f)
	s.logFrame(f)
	ordinal := s.frames
	s.frames++
	if s.first.IsZero() {
		s.first = f.TS
	}
	s.last = f.TS
	if f.Direction != capture.Meta {
		s.traffic.Frames++
	}
	if f.TS.After(s.runs.newest) {
		s.runs.newest = f.TS
	}

	switch {
	case f.Direction == capture.Meta:
		// A closing frame counts what the capture lost; its own seq already
		// makes a gap of the losses no later frame shows.
		s.dropped = max(s.dropped, f.Dropped)
		s.onMeta(f)
		s.bl.onMetaCommand(f)
		s.onTarget(f)
		s.emitEvent(f, pos, ordinal, EventMeta)
		return // a control frame is never judged
	case f.Direction == capture.Stderr:
		s.emitEvent(f, pos, ordinal, EventStderr)
		return
	case f.Truncated:
		if f.Direction == capture.ClientToServer {
			s.truncCredit++
		}
		s.emitEvent(f, pos, ordinal, EventOther)
		return
	case s.offEndpoint(f):
		// An OAuth exchange on another path of the origin (endpoint.go).
		s.emitEvent(f, pos, ordinal, EventOther)
		return
	}
	fc := &frameCtx{s: s, f: f, pos: pos, ordinal: ordinal, callIndex: -1}
	if s.probe != nil {
		before := s.counters
		defer s.afterProbeFrame(fc, before) // after finish: its findings are made
	}
	defer fc.finish()

	if f.ByProxy && f.Direction == capture.ServerToClient {
		s.refusedByProxy(fc)
		return // the server never saw the request: nothing of its to judge
	}
	if f.ByProxy && f.Direction == capture.ClientToServer && f.HasBody() && s.answeredByProxy(fc) {
		return // the client never saw the server's request: nothing of its to judge
	}
	s.http.noteAnswered(f)
	if !f.HasBody() {
		switch {
		case f.StreamEmpty:
			s.emptyStream(fc)
		case f.Status >= 400:
			s.httpFailure(fc)
		case f.Status > 0 && f.Direction == capture.ServerToClient:
			s.succeeded(nil) // an exchange of no call got through
			s.http.noteDelete(f)
			if f.HTTPMethod == http.MethodGet {
				s.getAnswer(fc)
			}
		}
		return // a bare status: a silent transport frame
	}
	fc.msg = parseMessage(f.Raw)
	if s.readsWhole(fc) && jsondup.Has(f.Raw) {
		// Read as the servers' decoders read it: the last occurrence of a
		// repeated name (W59 says so for a request).
		fc.dupKeys = true
		fc.msg = parseMessage(jsondup.LastWins(f.Raw))
	}
	if f.RedactionSkipped {
		s.withheld(fc)
		return
	}
	if fc.msg.kind == kindNotRPC || oauthErrorBody(&fc.msg, f.Status) {
		switch {
		case f.Status >= 400:
			s.httpFailure(fc)
		case legacyEndpoint(f):
			s.counters.Deprecated++
			fc.deprecated = noteHTTPSSE
		default:
			fc.invalid()
		}
		return
	}
	s.http.notePosted(f, fc.msg.kind)
	checkJSONRPCShape(fc)
	switch fc.msg.kind {
	case kindRequest:
		s.probeNext(fc)
		s.traffic.Requests++
		s.onTraceparent(fc)
		s.onRequest(fc)
	case kindResponse:
		s.traffic.Responses++
		s.onResponse(fc)
	case kindNotification:
		s.traffic.Notifications++
		s.onNotification(fc)
	}
	s.frameRules(fc)
	s.deprecation(fc)
	s.wireRules(fc)
	s.securityRules(fc)
}

// withheld handles a message whose body redaction gave up on
// (redaction_skipped): the capture kept only its kind and id, so it opens
// or settles its call like any other, and no rule judges what is left.
func (s *session) withheld(fc *frameCtx) {
	fc.withheld = true
	switch fc.msg.kind {
	case kindRequest:
		s.traffic.Requests++
		s.onRequest(fc)
	case kindResponse:
		s.traffic.Responses++
		s.onResponse(fc)
	case kindNotification:
		s.traffic.Notifications++
	}
}

// frameRules applies the rules that look at any JSON-RPC frame (check.md
// 3.3 E), in table order, then ours about transport headers and extensions.
func (s *session) frameRules(fc *frameCtx) {
	s.headerRules(fc)
	s.paramHeaderRules(fc)
	s.transportRules(fc)
	s.extensionRules(fc)
	s.initializeRules(fc)
	duplicateKeyRule(fc)
}

// deprecation marks a frame that uses a feature 2026-07-28 deprecated.
func (s *session) deprecation(fc *frameCtx) {
	m := &fc.msg
	var errVal gjson.Result
	if m.hasError {
		errVal = m.errorVal
	}
	inputRequired := m.kind == kindResponse && m.resultType() == "input_required"
	var inputRequests gjson.Result
	if inputRequired {
		inputRequests = m.resultField("inputRequests")
	}
	method := ""
	var params gjson.Result
	if m.kind == kindRequest || m.kind == kindNotification {
		method, params = m.method, m.params
	}
	if note := deprecationNote(method, params, inputRequired, inputRequests, errVal); note != "" {
		s.counters.Deprecated++
		fc.deprecated = note
	}
}

// close ends the session: pending calls become findings, assertions are
// evaluated, and the summary is built.
func (s *session) close() *SessionReport {
	if s.probe != nil {
		s.endProbe(false) // never followed by initialize: no probe
	}
	// Calls still pending at the end, in request order.
	pending := make([]*call, 0, len(s.calls.pending))
	for c := range s.calls.pending {
		pending = append(pending, c)
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].ordinal < pending[j].ordinal })
	for _, c := range pending {
		s.ended(c)
		s.addFinding(findingInput{
			signal: SignalPending, phase: phaseFrames, ordinal: c.ordinal, rank: rankPending, party: c.callee(),
			seq: c.seq, path: c.path, line: c.line, method: c.method, tool: c.tool,
			kind: "<subject> never got a response", text: c.subject() + " never got a response",
		})
		if c.isTool {
			s.tool(c.tool).pending++
		}
	}
	s.counters.Pending = len(pending)
	s.reportRemaining()
	s.unsettled401s()

	s.incomplete()

	sr := &SessionReport{
		ID:        s.id,
		Label:     s.label,
		Transport: s.transport,
		Source:    s.source,
		Counters:  s.counters,
		Tools:     s.toolStats(),
		First:     s.first,
		Last:      s.last,
		Traffic:   s.traffic,
		Calls:     s.callCount,
	}
	if s.e.cfg.KeepBodies {
		sr.Capabilities = s.caps
		if s.inv.listed {
			sr.Definitions = s.toolCosts()
		}
	}
	sr.Elicitations = s.sortedElicitations()
	sr.ElicitationsTruncated = s.elicitationsTruncated
	sr.Interactions = s.sortedInteractions()
	sr.InteractionsTruncated = s.interactionsTruncated
	sr.Listing = ToolListing{Listed: s.inv.listed, Complete: s.inv.complete, Tools: s.toolDefs()}
	sr.SchemaFindings = s.schemaFindings()
	for _, f := range sr.SchemaFindings {
		sr.Counters.SchemaFindings += len(f.Tools)
	}
	sr.Baseline = s.observeBaseline(sr.Listing.Tools)
	sr.Counters.Drift = len(sr.Baseline.Drift)
	if sr.Baseline.Error != "" {
		sr.Counters.Drift++
	}
	s.toolFindings(sr)
	sr.Wire = s.wireSummary()
	sr.Security = s.securitySummary()
	sr.RuleHits = s.ruleHits.sorted()
	sr.Assertions = s.asserts.evaluate(s.e.cfg)
	for _, a := range sr.Assertions {
		if !a.Passed {
			s.addFinding(findingInput{
				rule: RuleAssertion, level: LevelError, phase: phaseAssertions, sessionWide: true, party: PartyRun,
				kind: a.Name, text: ": " + a.Message,
			})
		}
	}
	return sr
}

// duration between two frame times; zero when either is unknown.
func duration(start, end time.Time) time.Duration {
	if start.IsZero() || end.IsZero() {
		return 0
	}
	return end.Sub(start)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
