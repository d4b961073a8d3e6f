package checker

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// frameCtx collects what the rules say about one frame. Findings are emitted
// once every rule has run, because an error's message may quote the frame's
// full warning string.
type frameCtx struct {
	s       *session
	f       *capture.Frame
	pos     Position
	ordinal int
	msg     message

	warnings []string // warning texts in rule-table order
	kinds    []string // their fixed templates
	rules    []string // their catalogue ids (W1...)
	// The call the frame belongs to, for fingerprints.
	method, tool string

	errs      []frameError
	isInvalid bool
	// timeTravel: the frame answers a call asked after it was answered
	// (a log whose clock cannot be trusted; a negative duration).
	timeTravel string
	deprecated string // deprecation note, when the frame carries one
	// mismatch: a routing header disagrees with the body (W36-W40, W45),
	// or the server answered -32020 itself.
	mismatch   bool
	lateResult string // late-result message, when this frame is one

	// The call the frame belongs to (nil for a duplicate answer and for
	// frames of no call), and the frame's protocol revision once asked.
	call     *call
	rev      string
	revKnown bool

	// What Config.OnFrame is told beyond the findings.
	callIndex   int // the call the frame belongs to, -1 for none
	observation string
	hasCacheTTL bool
	staleFetch  bool
	cacheTTL    int64
	cacheScope  string

	withheld bool // the body was withheld (redaction_skipped): no rule judges it
	dupKeys  bool // an object of the message repeats a member name (W59)
	// initMissing: W57 reported missing initialize fields; the schema
	// finding leaves them out.
	initMissing bool
	getJudged   bool // W58 looked at the frame
}

type frameError struct {
	kind, text   string
	quoteWarning bool // append ": <frame warning>" when the frame has one
	method, tool string
	party        Party // "" until finish decides (a transport error's)
}

// warn records a warning of a catalogue rule: its fixed template and its
// filled-in text.
func (fc *frameCtx) warn(rule, kind, text string) {
	fc.rules = append(fc.rules, rule)
	fc.kinds = append(fc.kinds, kind)
	fc.warnings = append(fc.warnings, text)
}

func (fc *frameCtx) transportError() {
	fc.s.counters.Errors++
	fc.errs = append(fc.errs, frameError{
		kind: "the transport failed with HTTP <status>",
		text: "the transport failed with HTTP " + strconv.Itoa(fc.f.Status),
	})
}

func (fc *frameCtx) invalid() {
	fc.s.counters.Invalid++
	fc.isInvalid = true
}

// callError counts an error on this frame for call c: the fault of the
// side that answered, unless it refused a request that broke the rules.
func (fc *frameCtx) callError(c *call, detail string) {
	fc.s.counters.Errors++
	fc.errs = append(fc.errs, frameError{
		kind:   "<subject> ended in an error: <detail>",
		text:   c.subject() + " ended in an error: " + detail,
		method: c.method, tool: c.tool,
		party: fc.s.answerParty(fc, c),
	})
}

// taskError counts the failure of task taskID, held by call c: the side
// that ran the task.
func (fc *frameCtx) taskError(c *call, taskID, detail string) {
	fc.s.counters.Errors++
	fc.errs = append(fc.errs, frameError{
		kind:   "<subject> failed as task <taskId>: <detail>",
		text:   c.subject() + " failed as task " + taskID + ": " + detail,
		method: c.method, tool: c.tool,
		party: c.callee(),
	})
}

// unmatchedError counts an error response that answers no call: the
// sender's fault, unless it is the id-less answer JSON-RPC prescribes for a
// request that could not be read (and a request was sent: not a GET's).
func (fc *frameCtx) unmatchedError() {
	fc.s.counters.Errors++
	party := sender(fc.f.Direction)
	// A GET or a DELETE carries no JSON-RPC request, so an id-less error
	// answering one blames no request of the client's.
	bodiless := fc.f.HTTPMethod == http.MethodGet || fc.f.HTTPMethod == http.MethodDelete
	if idless := fc.msg.idText() == "" || fc.msg.idText() == "null"; idless && !bodiless && unreadableRequestError(fc.msg.errorVal) {
		party = sender(opposite(fc.f.Direction))
	}
	fc.errs = append(fc.errs, frameError{
		kind:         "error response could not be matched to a call",
		text:         "error response could not be matched to a call",
		quoteWarning: true,
		party:        party,
	})
}

// finish emits the frame's findings in report order: errors, invalid, warn,
// mismatch, deprecated, late-result.
func (fc *frameCtx) finish() {
	s := fc.s
	warning := strings.Join(fc.warnings, ", ")
	if len(fc.warnings) > 0 {
		s.counters.Warnings++
	}
	for _, e := range fc.errs {
		text := e.text
		if e.quoteWarning && warning != "" {
			text += ": " + warning
		}
		method, tool := e.method, e.tool
		if method == "" && tool == "" {
			method, tool = fc.method, fc.tool
		}
		party := e.party
		if party == "" {
			party = fc.statusParty()
		}
		fc.emit(SignalError, rankError, party, method, tool, e.kind, text)
	}
	from := sender(fc.f.Direction)
	if fc.isInvalid {
		fc.emit(SignalInvalid, rankInvalid, from, "", "",
			"frame on the protocol channel is not valid JSON-RPC",
			"frame on the protocol channel is not valid JSON-RPC")
	}
	if fc.timeTravel != "" {
		// The log's own times are wrong, not either peer.
		fc.emit(SignalInvalid, rankInvalid, PartyTransport, fc.method, fc.tool,
			"<subject> was answered <d> before it was asked: the log's timestamps are out of order", fc.timeTravel)
	}
	if warning != "" {
		fc.emitRules(SignalWarn, rankWarn, from, strings.Join(fc.kinds, ", "), warning, ruleRefs(fc.rules, fc.revision(), nil))
		fc.markFaultyRequest()
	}
	if fc.mismatch {
		fc.emitMismatch(warning)
	}
	if fc.deprecated != "" {
		fc.emit(SignalDeprecated, rankDeprecated, from, fc.method, fc.tool, fc.deprecated, fc.deprecated)
	}
	if fc.lateResult != "" {
		fc.emit(SignalLateResult, rankLateResult, from, fc.method, fc.tool,
			"<subject> was answered after it was cancelled: result arrived <delay> after cancellation", fc.lateResult)
	}
	if on := s.e.cfg.OnFrame; on != nil {
		on(fc.event(warning))
	}
}

// emitRules emits a finding of catalogue rules and counts the rules'
// frames.
func (fc *frameCtx) emitRules(sig Signal, rank int, party Party, kind, text string, refs []RuleRef) {
	fc.s.addFinding(findingInput{
		signal: sig, phase: phaseFrames, ordinal: fc.ordinal, rank: rank, party: party,
		seq: fc.f.Seq, path: fc.pos.Path, line: fc.pos.Line,
		method: fc.method, tool: fc.tool, kind: kind, text: text, rules: refs, hits: true,
	})
}

func (fc *frameCtx) emit(sig Signal, rank int, party Party, method, tool, kind, text string) {
	fc.s.addFinding(findingInput{
		signal: sig, phase: phaseFrames, ordinal: fc.ordinal, rank: rank, party: party,
		seq: fc.f.Seq, path: fc.pos.Path, line: fc.pos.Line,
		method: method, tool: tool, kind: kind, text: text,
	})
}

// belongsTo names the call the frame is about, for fingerprints.
func (fc *frameCtx) belongsTo(c *call) {
	if c != nil {
		fc.method, fc.tool = c.method, c.tool
		fc.callIndex = c.index
		fc.call = c
	}
}
