package checker

import (
	"fmt"
	"strconv"
)

// observeBaseline compares the session's complete tool listing with the
// baseline of its server label, recording it when there is none.
func (s *session) observeBaseline() BaselineResult {
	r := BaselineResult{}
	store := s.e.cfg.Baseline
	if store == nil || !s.inv.complete {
		return r // without a complete listing there is nothing to compare
	}
	r.Checked = true
	r.Dir = store.Location()
	if s.label == "" {
		r.Error = fmt.Sprintf("session %q has no server label; a tool baseline needs a stable label, set one with --label", s.id)
		return r
	}
	defs := s.toolDefs()
	obs, err := store.Observe(s.label, defs)
	switch {
	case err != nil:
		r.Error = err.Error()
	case obs.Created:
		r.Created = true
	default:
		r.Drift, r.Unverified = CompareTools(obs.Tools, defs, obs.Version)
	}
	return r
}

// toolFindings reports the baseline error, the drift entries and the schema
// findings of a closed session, located at its last tools/list answer.
func (s *session) toolFindings(sr *SessionReport) {
	at := findingInput{phase: phaseTools, sessionWide: true, toolsList: true}
	if e := sr.Baseline.Error; e != "" {
		in := at
		in.signal, in.rank, in.kind, in.text = SignalDrift, 0, "tool baseline error", ": tool baseline error: "+e
		s.addFinding(in)
	}
	for _, d := range sr.Baseline.Drift {
		in := at
		in.signal, in.rank, in.tool, in.kind = SignalDrift, 1, d.Tool, "tool <name> "+d.Kind.Label()
		in.text = ": tool " + strconv.Quote(d.Tool) + " " + d.Kind.Label()
		s.addFinding(in)
	}
	for _, f := range sr.SchemaFindings {
		for _, tool := range f.Tools {
			in := at
			in.signal, in.rank, in.tool, in.kind = SignalSchema, 2, tool, "tool <name> schema uses "+f.Kind
			in.text = ": tool " + strconv.Quote(tool) + " schema uses " + f.Kind
			s.addFinding(in)
		}
	}
}

// recordedFinding notes that the session's listing became the first-seen
// baseline; it is an error only when the run gated drift and verified
// nothing.
func (s *session) recordedFinding(sr *SessionReport) {
	in := findingInput{signal: SignalDrift, phase: phaseBaselineNote, sessionWide: true, level: LevelNote,
		kind: "recorded first-seen tool baseline", text: ": recorded first-seen tool baseline (trusted, not verified)"}
	if sr.Baseline.RecordedOnly {
		in.level = LevelError
	}
	s.addFinding(in)
}
