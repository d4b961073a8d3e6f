// Package checker is mcpsnoop's check engine: it rebuilds sessions, calls,
// MRTR chains and tasks from a stream of frames in one pass, computes the
// signals and assertions, and returns the result as a plain Report. It does
// no I/O beyond the frames it is handed and renders nothing.
package checker

import (
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// Config is what a check is asked to judge.
type Config struct {
	// FailOn is the gate; nil means DefaultFailOn.
	FailOn []Signal
	// MaxDuration is the latency budget for finished tools/call calls; zero
	// or negative disables it.
	MaxDuration time.Duration
	// MaxServerDuration is the budget for the server's share of a finished
	// tools/call (its hops' server time, without the client's turnaround
	// between them); zero or negative disables it.
	MaxServerDuration time.Duration
	// MaxRoundTrips is the most requests one tools/call may take on the
	// wire, MRTR retries included, open chains too; zero disables it.
	MaxRoundTrips int
	// ExpectTools must each have been called in every run: by some
	// session of the run (a session in no run is a run of its own). A
	// name may be SERVER:TOOL, split at the last colon, to count only the
	// sessions of that server label (see ParseToolSpec).
	ExpectTools []string
	// ForbidTools must not have been called in any run; SERVER:TOOL as
	// for ExpectTools.
	ForbidTools []string
	// MaxFindings caps Report.Findings; zero means DefaultMaxFindings.
	MaxFindings int
	// Sessions, when set, limits the check to these session ids; frames of
	// other sessions are read and skipped.
	Sessions map[string]bool
	// OnCall, when set, receives every call as it ends (see CallRecord).
	OnCall func(CallRecord)
	// OnFrame, when set, receives every frame once the rules have judged
	// it (see FrameEvent).
	OnFrame func(*FrameEvent)
	// KeepBodies keeps what exports show and check does not need: each
	// call's params, result and error (in CallRecord) and the session's
	// capabilities and tool costs (in SessionReport).
	KeepBodies bool
	// Baseline keeps the trusted tool definitions drift is judged against;
	// nil leaves drift unjudged.
	Baseline BaselineStore
	// Wire validates every frame against its revision's JSON schema and
	// counts the wire signal without gating on it. Validation also runs
	// when wire is in FailOn; otherwise it is skipped (it is the costly
	// part of a check).
	Wire bool
	// Security runs the security rules (S1...) and counts the security
	// signal without gating on it. They also run when security is in
	// FailOn.
	Security bool
	// RedactText, when set, is applied to the text a finding quotes: a
	// server's error message, and a tool definition's old and new values
	// in a drift (the baseline's were stored as recorded). check passes
	// its --redact-* rules; frames are redacted before Ingest already.
	RedactText func(string) string
	// Known holds the findings accepted as known (check --known); nil
	// when none were given. See known.go.
	Known *KnownFindings
	// Fingerprints fills Report.Fingerprints (check --write-known).
	Fingerprints bool
	// Blame is the parties whose findings can fail the gate (check
	// --blame); nil means every party. The run's own findings (assertions,
	// the gate's inputs) are judged whatever it says.
	Blame []Party
	// WithoutSchemas lets the engine run in a program that does not link
	// the schema validator (package wire/schemacheck): the stdio shim's
	// own binary, whose live span sink needs calls, not verdicts. Wire
	// cannot be asked for; where no validator is linked, a refused
	// request is not judged against its schema (the blame of a finding,
	// which such an engine's user drops). Without it, New panics when the
	// validator is not linked, rather than let a check pass frames it
	// never validated.
	WithoutSchemas bool
}

// DefaultMaxFindings is how many findings a report keeps by default.
const DefaultMaxFindings = 10000

// Position says where a frame was read.
type Position struct {
	Path string // "" for stdin
	Name string // the input's name as shown to users
	Line int
}

// Engine consumes frames one at a time. Its memory grows with what is open
// (in-flight calls, parked MRTR chains, per-tool aggregates, kept findings),
// not with the number of frames.
type Engine struct {
	cfg      Config
	gate     Gate
	blame    blameSet
	sessions map[string]*session
	order    []*session
	last     *session
	findings findingSet
	wire     bool // validate frames against the schema (wire signal)
	pool     *wirePool
	security bool // run the security rules (security signal)

	// The tool assertions, and the tools they name (what sessions watch
	// for).
	expect, forbid []ToolSpec
	watched        map[string]bool

	src sources // the inputs frames came from, for merging copies

	part *partState // set on an engine made by NewPart (parts.go)
}

// New returns an engine for cfg. A program that makes engines links the
// schema validator (import _ "github.com/mcpsnoop/mcpsnoop/checker/wire/schemacheck",
// as mcpsnoop's main and the tests of every package that checks do), or
// sets cfg.WithoutSchemas; otherwise New panics, wire on or not, since a
// refusal's blame needs the schemas too.
func New(cfg Config) *Engine {
	if cfg.FailOn == nil {
		cfg.FailOn = DefaultFailOn
	}
	if cfg.MaxFindings <= 0 {
		cfg.MaxFindings = DefaultMaxFindings
	}
	gate := NewGate(cfg.FailOn)
	wireOn := cfg.Wire || gate[SignalWire]
	switch {
	case cfg.WithoutSchemas && wireOn:
		panic("checker: the wire signal asked for of an engine made WithoutSchemas")
	case !cfg.WithoutSchemas && !wire.Linked():
		panic("checker: " + wire.ErrNoValidator.Error())
	}
	e := &Engine{
		cfg:      cfg,
		gate:     gate,
		blame:    newBlameSet(cfg.Blame),
		sessions: map[string]*session{},
		findings: findingSet{limit: cfg.MaxFindings},
		wire:     wireOn,
		security: cfg.Security || gate[SignalSecurity],
	}
	if e.wire {
		e.pool = newWirePool()
	}
	e.expect, e.forbid = parseToolSpecs(cfg.ExpectTools), parseToolSpecs(cfg.ForbidTools)
	e.watched = map[string]bool{}
	for _, t := range append(append([]ToolSpec(nil), e.expect...), e.forbid...) {
		e.watched[t.Tool] = true
	}
	return e
}

// Ingest judges one frame. It reports false when the frame names no session
// (such envelopes are not part of any session and are skipped). The frame's
// bytes are not retained.
func (e *Engine) Ingest(f *capture.Frame, pos Position) bool {
	if f.SessionID == "" {
		return false
	}
	if e.cfg.Sessions != nil && !e.cfg.Sessions[f.SessionID] {
		return true // an envelope, of a session this check leaves out
	}
	src := e.src.of(pos)
	s := e.sessions[f.SessionID]
	if s == nil {
		s = newSession(e, len(e.order), f, pos)
		s.seqs.src = src
		e.sessions[s.id] = s
		e.order = append(e.order, s)
	}
	e.last = s
	if e.part != nil {
		e.part.saw(s)
	}
	if f.Seq > 0 && s.seqs.seenElsewhere(src, f.Seq) {
		return true // a copy of a frame another input already gave
	}
	s.ingest(f, pos)
	return true
}

// TornTail records that the input's last line was cut mid-write: one lost
// frame of the session read last.
func (e *Engine) TornTail() {
	if e.part != nil {
		e.part.tornTail()
		return
	}
	if e.last != nil {
		e.last.counters.MissingFrames++
	}
}

// Sessions is how many sessions have been seen so far.
func (e *Engine) Sessions() int { return len(e.order) }

// Report closes every session and returns the result. Call it once, after
// the last frame.
func (e *Engine) Report() *Report {
	if e.pool != nil {
		e.pool.flush()
	}
	rep := &Report{FailOn: append([]Signal(nil), e.cfg.FailOn...), Verdict: Passed, Wire: e.wire, Security: e.security, Blame: append([]Party(nil), BlameParties...)}
	if e.cfg.Blame != nil {
		rep.Blame = append([]Party(nil), e.cfg.Blame...)
	}
	created, verified := false, false
	for _, s := range e.order {
		sr := s.close()
		rep.Sessions = append(rep.Sessions, sr)
		b := sr.Baseline
		created = created || b.Created
		verified = verified || (b.Checked && !b.Created && b.Error == "")
	}
	// A run that gates on drift but could only record baselines verified
	// nothing, and must not pass as if it had.
	recordedOnly := e.gate[SignalDrift] && created && !verified
	for i, s := range e.order {
		sr := rep.Sessions[i]
		if sr.Baseline.Created {
			if recordedOnly {
				sr.Baseline.RecordedOnly = true
				sr.Counters.Drift++
			}
			s.recordedFinding(sr)
		}
	}
	rep.Runs, rep.Solo = buildRuns(e.order, rep.Sessions)
	e.toolNameConflicts(rep)
	e.toolAssertions(rep)
	known := e.judgeKnown(rep)
	for i, s := range e.order {
		sr := rep.Sessions[i]
		for _, sig := range e.cfg.FailOn {
			if s.gatedBySignal[sig] > 0 && known.fails(i, sig) {
				sr.FailedSignals = append(sr.FailedSignals, sig)
			}
		}
		sr.Findings = s.findingCounts
		sr.Parties = s.parties.sorted()
		if known.active {
			sr.KnownBySignal = known.acceptedBy[i]
		}
		if sr.Failed() {
			rep.Verdict = Failed
		}
	}
	labels := map[string]string{}
	for _, s := range e.order {
		labels[s.id] = s.label
	}
	rep.Findings, rep.FindingsTotal = e.findings.sorted(labels, known.accepted)
	rep.FindingsTruncated = rep.FindingsTotal - len(rep.Findings)
	if len(rep.Fingerprints) > 0 {
		texts := map[string]string{}
		for _, f := range rep.Findings {
			texts[f.Fingerprint] = f.Text
		}
		for i := range rep.Fingerprints {
			rep.Fingerprints[i].Text = texts[rep.Fingerprints[i].Fingerprint]
		}
	}
	return rep
}

// opposite is the direction a response travels for a request sent in dir.
// Anything that is not c2s answers c2s, so a request with an unknown
// direction can never be answered.
func opposite(dir string) string {
	if dir == capture.ClientToServer {
		return capture.ServerToClient
	}
	return capture.ClientToServer
}

// clone copies s so that a kept string does not pin a frame's buffer.
func clone(s string) string { return strings.Clone(s) }
