package checker

import (
	"container/heap"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// Where a finding sits within its session, in report order.
const (
	phaseBaselineNote = iota
	phaseFrames
	phaseTools // baseline error, drift, schema
	phaseIncomplete
	phaseAssertions
)

// Order of findings on one frame.
const (
	rankError = iota
	rankInvalid
	rankWarn
	rankMismatch
	rankDeprecated
	rankLateResult
	rankPending
	rankWire
)

// findingInput is what a rule hands addFinding.
type findingInput struct {
	signal      Signal
	rule        string // defaults to the signal's rule id
	level       Level  // defaults to the gate's level for the signal and party
	party       Party  // who is at fault (party.go)
	phase       int
	ordinal     int // frame position within the session
	rank        int
	sessionWide bool
	toolsList   bool // located at the session's last tools/list answer
	ownWords    bool // text is the whole message: no "session <sid>" before it
	seq         uint64
	path        string
	line        int
	method      string
	tool        string
	kind        string
	text        string
	rules       []RuleRef
	hits        bool // count rules among the session's rule hits once reported
	wire        *wire.Finding
}

// keptFinding is a finding plus what orders it.
type keptFinding struct {
	Finding
	input, session, phase, ordinal, rank int // input: see parts.go
	tuple                                fingerprintTuple
	occurrence                           int
	serial                               int // creation order, the last tie-break
}

// before orders findings in report order.
func (a *keptFinding) before(b *keptFinding) bool {
	if a.input != b.input {
		return a.input < b.input
	}
	if a.session != b.session {
		return a.session < b.session
	}
	if a.phase != b.phase {
		return a.phase < b.phase
	}
	if a.ordinal != b.ordinal {
		return a.ordinal < b.ordinal
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.serial < b.serial
}

// keptBefore orders findings by how much they deserve a place when the
// report is full: errors before notes, then report order.
func (a *keptFinding) keptBefore(b *keptFinding) bool {
	if a.Level != b.Level {
		return a.Level == LevelError
	}
	return a.before(b)
}

// findingSet keeps the limit most deserving findings in a max-heap (the
// least deserving on top, ready to be evicted) and counts all of them.
type findingSet struct {
	limit int
	total int
	items []*keptFinding
}

func (h *findingSet) Len() int           { return len(h.items) }
func (h *findingSet) Less(i, j int) bool { return h.items[j].keptBefore(h.items[i]) }
func (h *findingSet) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *findingSet) Push(x any)         { h.items = append(h.items, x.(*keptFinding)) }
func (h *findingSet) Pop() any {
	last := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return last
}

func (h *findingSet) add(k *keptFinding) {
	k.serial = h.total
	h.total++
	h.keep(k)
}

// keep puts k in the set if it deserves a place, evicting the least
// deserving when the set is full. The kept findings do not depend on the
// order they come in: keptBefore is a total order (serial tells apart two
// findings of one session that agree on all else).
func (h *findingSet) keep(k *keptFinding) {
	if len(h.items) < h.limit {
		heap.Push(h, k)
		return
	}
	if k.keptBefore(h.items[0]) {
		h.items[0] = k
		heap.Fix(h, 0)
	}
}

// sorted returns the kept findings in report order with their fingerprints
// filled in from the sessions' final labels, and the total found. A
// finding whose fingerprint is in accepted is marked known, at level note.
func (h *findingSet) sorted(labels map[string]string, accepted map[string]bool) ([]Finding, int) {
	items := append([]*keptFinding(nil), h.items...)
	sort.Slice(items, func(i, j int) bool { return items[i].before(items[j]) })
	out := make([]Finding, len(items))
	for i, k := range items {
		k.Fingerprint = fingerprint(labels[k.SessionID], k.tuple, k.occurrence)
		if k.RuleID != RuleAssertion && accepted[k.Fingerprint] {
			k.Known, k.Level = true, LevelNote
		}
		out[i] = k.Finding
	}
	return out, h.total
}

// addFinding records a finding of this session.
func (s *session) addFinding(in findingInput) {
	if s.holdFinding(in) {
		return // the frame may be a probe's (probe.go)
	}
	if in.hits {
		s.ruleHits.add(in.rules)
	}
	rule := in.rule
	if rule == "" {
		rule = in.signal.RuleID()
	}
	level := in.level
	if level == "" {
		level = s.e.gate.Level(in.signal)
		if level == LevelError && !s.e.blame.blamed(in.party) {
			level = LevelNote // another party's finding, reported and not gated
		}
	}
	var msg, text string
	switch {
	case in.ownWords:
		msg, text = in.text, in.text
	case in.sessionWide:
		msg = "session " + s.id + in.text
		if t, ok := strings.CutPrefix(in.text, ": "); ok {
			text = t
		} else {
			text = msg
		}
	default:
		// The log line, as LOG:LINE says it: one number per finding. A
		// frame with no line (a hand-fed engine) is named by its seq.
		at := " line " + strconv.Itoa(in.line)
		if in.line <= 0 {
			at = " frame " + strconv.FormatUint(in.seq, 10)
		}
		msg = "session " + s.id + at + ": " + in.text
		text = in.text
	}
	gated := level == LevelError
	if rule != RuleAssertion {
		if gated {
			s.findingCounts.Gated++
			s.gatedBySignal[in.signal]++
		} else {
			s.findingCounts.Notes++
		}
	}
	method, tool := clone(in.method), clone(in.tool)
	tuple := fingerprintTuple{rule: rule, method: method, tool: tool, kind: in.kind}
	t := s.occurrences[tuple]
	if t == nil {
		t = &tally{}
		s.occurrences[tuple] = t
	}
	occ := t.n
	t.add(in.party, gated)
	s.parties.add(in.party, gated)
	k := &keptFinding{
		Finding: Finding{
			Signal: in.signal, RuleID: rule, Level: level, Party: in.party, SessionID: s.id,
			Method: method, Tool: tool, Kind: in.kind, Message: msg, Text: text,
			Rules: in.rules, Wire: in.wire,
		},
		input: s.input, session: s.index, phase: in.phase, ordinal: in.ordinal, rank: in.rank,
		tuple: tuple, occurrence: occ,
	}
	if in.sessionWide {
		k.Path = s.source.Path
		if in.toolsList && s.lastToolsListLine > 0 {
			k.Path, k.Line = s.lastToolsListPath, s.lastToolsListLine
		}
	} else {
		k.Seq, k.Path, k.Line = in.seq, in.path, in.line
	}
	s.e.findings.add(k)
}

// tally counts the findings of one fingerprint tuple in a session and
// remembers, as runs, whom each blamed and whether it was gated: known
// findings are judged per occurrence, after the report is closed.
type tally struct {
	n    int
	runs []tallyRun
}

type tallyRun struct {
	party Party
	gated bool
	n     int
}

func (t *tally) add(party Party, gated bool) {
	t.n++
	if l := len(t.runs); l > 0 && t.runs[l-1].party == party && t.runs[l-1].gated == gated {
		t.runs[l-1].n++
		return
	}
	t.runs = append(t.runs, tallyRun{party: party, gated: gated, n: 1})
}

// each calls fn for every occurrence in order.
func (t *tally) each(fn func(occ int, party Party, gated bool)) {
	occ := 0
	for _, r := range t.runs {
		for range r.n {
			fn(occ, r.party, r.gated)
			occ++
		}
	}
}

// partyCounts counts a session's findings by party.
type partyCounts map[Party]*PartyCount

func (pc partyCounts) add(p Party, gated bool) {
	c := pc[p]
	if c == nil {
		c = &PartyCount{Party: p}
		pc[p] = c
	}
	c.Total++
	if gated {
		c.Gated++
	}
}

// sorted lists the counts in BlameParties order, then the run's.
func (pc partyCounts) sorted() []PartyCount {
	var out []PartyCount
	for _, p := range append(append([]Party(nil), BlameParties...), PartyRun) {
		if c := pc[p]; c != nil {
			out = append(out, *c)
		}
	}
	return out
}
