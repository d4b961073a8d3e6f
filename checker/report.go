package checker

import (
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// Verdict is the outcome of a check.
type Verdict string

const (
	// Passed: no gated signal fired and no assertion failed.
	Passed Verdict = "passed"
	// Failed: a gated signal fired or an assertion failed ("findings").
	Failed Verdict = "findings"
	// Errored: nothing could be checked. The engine never returns it; the
	// command line uses it for inputs it could not read.
	Errored Verdict = "error"
)

// Level is how a finding is reported: an error when its signal is gated (or
// it is an assertion), a note otherwise.
type Level string

const (
	LevelError Level = "error"
	LevelNote  Level = "note"
)

// Report is everything a renderer needs about one check run, as plain data.
// Sessions appear in first-seen order; Findings in report order (session by
// session, frame by frame). Nothing in it needs recomputing.
type Report struct {
	Verdict Verdict
	FailOn  []Signal
	// Blame is the parties whose findings could fail the gate, in
	// BlameParties order (every party unless --blame narrowed it).
	Blame    []Party
	Sessions []*SessionReport
	// Runs group the sessions of one agent run, newest first.
	Runs []Run
	// Solo are the sessions in no run, each as a run of its own (id
	// s-<session id>), newest first; see AllRuns.
	Solo []Run
	// Findings holds at most MaxFindings entries. When more were found the
	// ones kept are the most severe (errors before notes), earliest first.
	Findings []Finding
	// FindingsTotal counts every finding, kept or not.
	FindingsTotal int
	// FindingsTruncated is FindingsTotal - len(Findings).
	FindingsTruncated int
	// Wire is true when frames were validated against their revision's
	// schema (wire gated, or Config.Wire): only then do reports show the
	// wire signal.
	Wire bool
	// Known says how the accepted findings of Config.Known fared; nil
	// when none were given.
	Known *KnownSummary
	// Fingerprints lists every finding's fingerprint (assertions aside),
	// session by session, when Config.Fingerprints asked for them.
	Fingerprints []FingerprintEntry
}

// Source is where a session's first frame was read.
type Source struct {
	Path      string // "" for stdin
	Name      string // the path as given, or "stdin"
	FirstLine int
}

// SessionReport is one session's summary.
type SessionReport struct {
	ID        string
	Label     string
	Transport string
	Source    Source
	RunIDs    []string
	Counters  Counters
	// FailedSignals are the gated signals with a non-zero count, in
	// AllSignals order.
	FailedSignals []Signal
	// KnownBySignal counts, per signal, the findings Config.Known accepted;
	// nil when no known findings were given.
	KnownBySignal map[Signal]int
	Tools         []ToolStats
	// Assertions holds every assertion evaluated for this session, passed
	// or not, in evaluation order. The assertions judged per run
	// (--expect-tool, --forbid-tool) are held by the run's last session,
	// and each stale accepted finding (Config.Known) by the last session
	// of its server label.
	Assertions []AssertionResult
	// Findings counts the session's findings by how they are reported,
	// assertions aside: Gated fail the gate, Notes do not (signals not
	// gated, and Known ones), Known were accepted by Config.Known.
	Findings FindingCounts
	// Parties counts the session's findings (assertions included) by
	// party, in BlameParties order then run; a party without findings is
	// left out.
	Parties []PartyCount
	// Interactions are the multi-round-trip operations (MRTR chains of two
	// or more requests), in the order they began; at most 1,000, the rest
	// counted in InteractionsTruncated.
	Interactions          []Interaction
	InteractionsTruncated int
	// Elicitations is the ledger of questions put to the user, in the order
	// they were asked; at most 1,000, the rest counted.
	Elicitations          []Elicitation
	ElicitationsTruncated int
	// Listing is the session's tool listing as it stood at the end.
	Listing ToolListing
	// Baseline is what the tool-definition baseline said about the session.
	Baseline BaselineResult
	// SchemaFindings lists, per kind in report order, the advertised tools
	// whose schemas use it.
	SchemaFindings []SchemaFinding

	// First and Last are the timestamps of the first frame and of the frame
	// read last.
	First, Last time.Time
	Traffic     Traffic
	// Calls is how many calls the session opened (MRTR retries are part of
	// their first request's call).
	Calls int
	// Capabilities and Definitions are filled under Config.KeepBodies.
	Capabilities Capabilities
	Definitions  []ToolCost
	// RuleHits counts, per catalogue rule (warn, mismatch, wire), the
	// frames it fired on, in catalogue order.
	RuleHits []RuleHit
	// Wire is what schema validation said about the session; nil when
	// validation did not run.
	Wire *WireSummary
}

// Traffic counts a session's frames by kind.
type Traffic struct {
	Frames        int // every frame but the meta frame
	Requests      int // MRTR retries included
	Responses     int // duplicates and unmatched ones included
	Notifications int
}

// ToolListing is the tool set a session advertised last.
type ToolListing struct {
	Listed   bool // a tools/list answer was seen
	Complete bool // its last page had no nextCursor
	Tools    []tooldef.Tool
}

// BaselineResult is the drift verdict of one session.
type BaselineResult struct {
	// Checked is true when the session had a complete tool listing, the
	// only kind a baseline is recorded from or compared with.
	Checked bool `json:"checked"`
	// Created: the listing became the label's first-seen baseline; nothing
	// was verified.
	Created bool `json:"created"`
	// RecordedOnly: drift was gated, yet the run could only record
	// baselines and verified nothing, which fails it.
	RecordedOnly bool `json:"recorded_only"`
	// Dir is where baselines are kept.
	Dir string `json:"dir,omitempty"`
	// Unverified names the kinds an old (version 1) baseline cannot answer
	// for.
	Unverified []tooldef.DriftKind `json:"unverified,omitempty"`
	// Error is why the baseline could not be used ("" when it could).
	Error string `json:"error,omitempty"`
	// Drift lists the differences, kinds in report order, tools sorted.
	Drift []tooldef.DriftEntry `json:"drift"`
}

// SchemaFinding is one schema kind and the tools using it, in advertised
// order.
type SchemaFinding struct {
	Kind  string   `json:"kind"`
	Tools []string `json:"tools"`
}

// Failed reports whether the session fails the gate or an assertion.
func (s *SessionReport) Failed() bool {
	if len(s.FailedSignals) > 0 {
		return true
	}
	for _, a := range s.Assertions {
		if !a.Passed {
			return true
		}
	}
	return false
}

// FailedAssertions returns the session's failed assertions in order.
func (s *SessionReport) FailedAssertions() []AssertionResult {
	var out []AssertionResult
	for _, a := range s.Assertions {
		if !a.Passed {
			out = append(out, a)
		}
	}
	return out
}

// PartyCount is how many of a session's findings blame one party, and how
// many of those are reported at level error (Config.Known moves accepted
// ones to notes).
type PartyCount struct {
	Party Party `json:"party"`
	Total int   `json:"total"`
	Gated int   `json:"gated"`
}

// FindingCounts counts a session's findings (assertions aside) by level.
type FindingCounts struct {
	Gated int // reported at level error
	Notes int // reported at level note, the known ones included
	Known int // accepted by Config.Known
}

// Counters are a session's signal counts. Every signal is counted whether
// or not it is gated.
type Counters struct {
	Errors         int `json:"errors"`
	Invalid        int `json:"invalid"`
	Warnings       int `json:"warnings"`
	Mismatches     int `json:"mismatches"`
	Pending        int `json:"pending"`
	LateResults    int `json:"late_results"`
	Deprecated     int `json:"deprecated"`
	MissingFrames  int `json:"missing_frames"`
	SchemaFindings int `json:"schema_findings"`
	Drift          int `json:"drift"`
	// Untracked counts requests not kept because the session already had
	// 10,000 calls in flight (their answers are not judged).
	Untracked int `json:"untracked_requests,omitempty"`
	// WireFindings counts frames that break their revision's schema. It is
	// counted only when validation ran (SessionReport.Wire is set), and the
	// JSON report shows it only then.
	WireFindings int `json:"-"`
}

// Count returns the counter behind a signal.
func (c Counters) Count(s Signal) int {
	switch s {
	case SignalError:
		return c.Errors
	case SignalInvalid:
		return c.Invalid
	case SignalWarn:
		return c.Warnings
	case SignalMismatch:
		return c.Mismatches
	case SignalPending:
		return c.Pending
	case SignalLateResult:
		return c.LateResults
	case SignalDrift:
		return c.Drift
	case SignalDeprecated:
		return c.Deprecated
	case SignalIncomplete:
		return c.MissingFrames
	case SignalSchema:
		return c.SchemaFindings
	case SignalWire:
		return c.WireFindings
	}
	return 0
}

// ToolStats aggregates a session's tools/call calls of one tool (MRTR
// retries are part of their root call, not calls of their own).
type ToolStats struct {
	Name    string `json:"name"`
	Calls   int    `json:"calls"`
	Errors  int    `json:"errors"`
	Pending int    `json:"pending"`
	// Latency percentiles (nearest rank) over calls that finished, in ms.
	P50Ms float64 `json:"p50_ms"`
	P95Ms float64 `json:"p95_ms"`
	P99Ms float64 `json:"p99_ms"`
	// RoundTrips counts the requests the tool's calls put on the wire (a
	// call answered at once is one; each MRTR retry adds one).
	RoundTrips     int `json:"round_trips"`
	ResultBytes    int `json:"result_bytes"`
	MaxResultBytes int `json:"max_result_bytes"`
}

// Finding is one reportable observation: a frame that fired a signal, a
// session-wide signal (incomplete), or a failed assertion.
type Finding struct {
	Signal Signal // "" for assertions
	RuleID string // mcpsnoop/<signal>, or mcpsnoop/assertion
	Level  Level
	// Party is who is at fault: server, client, transport, or run (the
	// assertions and the gate's own inputs). A finding of a party --blame
	// leaves out is reported at level note.
	Party Party
	// SessionID and the frame's Seq (0 when the finding is session-wide).
	SessionID string
	Seq       uint64
	// Path of the log holding the frame ("" for stdin) and its 1-based
	// line there (0 when session-wide).
	Path string
	Line int
	// Method and Tool (or operation name) of the call the frame belongs to.
	Method string
	Tool   string
	// Kind is the message's fixed template, before ids and numbers are
	// filled in; with Method and Tool it identifies the finding across
	// captures.
	Kind string
	// Message is the full text, prefixed with the session and the log line
	// ("session s1 line 27: ...").
	Message string
	// Text is Message without that prefix: what the finding says, for a
	// report that already names the session and the line.
	Text string
	// Known is set when Config.Known accepted the finding: it is then
	// reported at level note and fails nothing.
	Known bool
	// Fingerprint is stable across re-captures of the same scenario: see
	// the package's fingerprint.go.
	Fingerprint string
	// Rules are the catalogue rules a warn, mismatch or wire finding
	// reports, each with the spec section it enforces for the frame's
	// revision; nil for other findings.
	Rules []RuleRef
	// Wire is the schema problem of a wire finding.
	Wire *wire.Finding
}

// Rule is the rule a finding is reported under: RuleID, or its signal's
// rule when RuleID is unset.
func (f *Finding) Rule() string {
	if f.RuleID == "" && f.Signal != "" {
		return f.Signal.RuleID()
	}
	return f.RuleID
}

// AssertionResult is one evaluated assertion.
type AssertionResult struct {
	Name    string `json:"name"` // max-duration, expect-tool, forbid-tool, known, ...
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
	// Run is the run an --expect-tool or --forbid-tool was judged over (a
	// session in no run is a run of its own, "s-<session id>"); "" for
	// the assertions judged per session.
	Run string `json:"run,omitempty"`
	// Server is the server label an assertion was narrowed to
	// (SERVER:TOOL), or the label of a stale known finding.
	Server string `json:"server,omitempty"`
}

// AssertionMaxDuration and friends name the assertions.
const (
	AssertionMaxDuration       = "max-duration"
	AssertionMaxServerDuration = "max-server-duration"
	AssertionMaxRoundTrips     = "max-round-trips"
	AssertionExpectTool        = "expect-tool"
	AssertionForbidTool        = "forbid-tool"
	// AssertionKnown fails for an accepted finding (Config.Known) of a
	// server checked in this run that no longer occurs.
	AssertionKnown = "known"
)
