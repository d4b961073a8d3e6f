package checker

// A client that speaks 2026-07-28 first probes: it sends server/discover
// (or any request declaring 2026-07-28), and an older server refuses it;
// the client then falls back to initialize, as the spec's backward
// compatibility section prescribes (the Go SDK v1.8.0 client does). Such a
// probe and its refusal are no finding, and the session speaks what
// initialize negotiated.
//
// Whether a refusal was a probe is only known at the next client request,
// so from the session's first request until then the findings are held:
// dropped for the probe's two frames once initialize follows, kept (in
// their place in the report) otherwise.

import (
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// maxProbeHeld bounds the findings held while a probe is undecided; past
// it, the probe is taken for none.
const maxProbeHeld = 256

// probeState is a probe being watched.
type probeState struct {
	call            *call
	frames          map[int]bool // ordinals of the probe's request and its refusal
	refused         bool         // its answer was a refusal a probe may get
	held            []findingInput
	wire            []*wireJob // validation outcomes of held frames
	delta           Counters   // what the probe's frames added to the counters
	statelessBefore string     // the session's stateless revision before the probe
}

// startProbe watches a session's first client request when it may be a
// probe: server/discover, or a request declaring 2026-07-28 or later.
func (s *session) startProbe(fc *frameCtx, c *call) {
	if s.probeSeen || fc.f.Direction != capture.ClientToServer {
		return
	}
	s.probeSeen = true
	if c.method != "server/discover" && !atLeast20260728(c.revision) {
		return
	}
	s.probe = &probeState{call: c, frames: map[int]bool{fc.ordinal: true}, statelessBefore: s.rev.stateless}
}

// probeAnswer looks at a frame that answers the watched call: a refusal a
// probe may get keeps the watch; anything else ends it.
func (s *session) probeAnswer(fc *frameCtx) {
	p := s.probe
	if p == nil || fc.call != p.call || p.refused || p.frames[fc.ordinal] {
		return
	}
	if probeRefusal(fc) {
		p.refused = true
		p.frames[fc.ordinal] = true
		return
	}
	s.endProbe(false)
}

// probeRefusal reports an answer that tells a client to fall back: on
// stdio, Method not found; over HTTP, any failure but the 400 of a modern
// error (-32020, -32021, -32022), which a 2026-07-28 server answers with.
func probeRefusal(fc *frameCtx) bool {
	m, f := &fc.msg, fc.f
	code := gjson.Result{}
	if m.hasError && m.errorVal.IsObject() {
		code = m.errorVal.Get("code")
	}
	if f.Transport != capture.TransportHTTP {
		return code.Type == gjson.Number && code.Num == -32601
	}
	if f.Status == 400 && code.Type == gjson.Number && code.Num <= -32020 && code.Num >= -32022 {
		return false
	}
	return m.hasError || f.Status >= 400
}

// probeNext decides a refused probe at the next client request: initialize
// confirms it.
func (s *session) probeNext(fc *frameCtx) {
	p := s.probe
	if p == nil || fc.f.Direction != capture.ClientToServer || p.frames[fc.ordinal] {
		return
	}
	if !p.refused {
		return // still waiting for its answer
	}
	s.endProbe(fc.msg.method == "initialize")
}

// endProbe ends the watch: a confirmed probe's findings, counts and
// revision are dropped; everything else held is reported as it would have
// been.
func (s *session) endProbe(confirmed bool) {
	p := s.probe
	s.probe = nil
	if confirmed {
		s.counters.sub(p.delta)
		s.rev.stateless = p.statelessBefore
		s.probeFrames = p.frames
	}
	for _, in := range p.held {
		if confirmed && p.frames[in.ordinal] && !in.sessionWide {
			continue
		}
		s.addFinding(in)
	}
	for _, j := range p.wire {
		if !(confirmed && p.frames[j.ordinal]) {
			s.applyWire(j)
		}
	}
}

// holdFinding keeps a finding while a probe is undecided; false when it
// is to be reported now.
func (s *session) holdFinding(in findingInput) bool {
	p := s.probe
	if p == nil || in.phase != phaseFrames {
		return false
	}
	if len(p.held) >= maxProbeHeld {
		s.endProbe(false)
		return false
	}
	p.held = append(p.held, in)
	return true
}

// holdWire keeps a validation outcome of a probe frame until the probe is
// decided, and drops that of a confirmed probe's frame.
func (s *session) holdWire(j *wireJob) bool {
	if p := s.probe; p != nil && p.frames[j.ordinal] {
		held := *j // the pool reuses its jobs once applied
		held.msg.Raw = nil
		p.wire = append(p.wire, &held)
		return true
	}
	return s.probeFrames[j.ordinal]
}

// afterProbeFrame runs once a frame seen while a probe is watched has
// been judged: it may be the probe's answer, and what a probe frame added
// to the counters is the probe's to take back.
func (s *session) afterProbeFrame(fc *frameCtx, before Counters) {
	s.probeAnswer(fc)
	if p := s.probe; p != nil && p.frames[fc.ordinal] {
		p.delta.add(s.counters, before)
	}
}

// add adds the difference after - before to c.
func (c *Counters) add(after, before Counters) {
	c.Errors += after.Errors - before.Errors
	c.Invalid += after.Invalid - before.Invalid
	c.Warnings += after.Warnings - before.Warnings
	c.Mismatches += after.Mismatches - before.Mismatches
	c.Pending += after.Pending - before.Pending
	c.LateResults += after.LateResults - before.LateResults
	c.Deprecated += after.Deprecated - before.Deprecated
	c.MissingFrames += after.MissingFrames - before.MissingFrames
	c.WireFindings += after.WireFindings - before.WireFindings
}

// sub takes d off c.
func (c *Counters) sub(d Counters) {
	c.Errors -= d.Errors
	c.Invalid -= d.Invalid
	c.Warnings -= d.Warnings
	c.Mismatches -= d.Mismatches
	c.Pending -= d.Pending
	c.LateResults -= d.LateResults
	c.Deprecated -= d.Deprecated
	c.MissingFrames -= d.MissingFrames
	c.WireFindings -= d.WireFindings
}
