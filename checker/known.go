package checker

import (
	"slices"
	"strconv"
	"strings"
)

// Known findings (check --known FILE): findings a team accepted, named by
// their SARIF fingerprint (fingerprint.go). A finding in the set is
// reported at level note, marked known, and fails nothing; the counters
// stay exact. An accepted finding of a server label checked in this run
// that no longer occurs is stale: it fails the check (as a failed "known"
// assertion), so the file shrinks as things get fixed. Assertions are
// never accepted this way: they are what the user asked for, and neither
// is the note that a first-seen tool baseline was recorded: it says what
// one run did, and would be stale on the next.
//
// The label is part of every fingerprint, and default labels changed once
// (capture.DeriveLabelIn): an entry made under a session's old label
// (BaselineKey.OldLabel) still accepts the finding it named, so the first
// check after the upgrade passes, and --write-known rewrites the file
// under the new labels.

// KnownFinding is one entry of a known-findings file.
type KnownFinding struct {
	Fingerprint string `json:"fingerprint"`
	// Label is the server label the finding was made for; "" when the
	// entry did not say, and such an entry is never stale.
	Label string `json:"label"`
	// Note is the entry's comment.
	Note string `json:"note,omitempty"`
	// Line is where the entry sits in its file.
	Line int `json:"line,omitempty"`
}

// KnownFindings is the set check was given.
type KnownFindings struct {
	Entries []KnownFinding
}

// KnownSummary says how a check's known findings fared.
type KnownSummary struct {
	Entries int `json:"entries"`
	// Matched is how many entries matched a finding of this check.
	Matched int `json:"matched"`
	// Accepted is how many findings an entry matched.
	Accepted int `json:"accepted"`
	// Stale lists the entries of checked server labels that matched no
	// finding; each fails the check.
	Stale []KnownFinding `json:"stale"`
	// OldLabels are the labels the checked servers had under the old
	// labelling rule (and no session of this check has): their entries
	// are never stale, and a rewrite drops those that matched nothing.
	OldLabels []string `json:"-"`
}

// FingerprintEntry is one finding's fingerprint with what identifies it,
// for a known-findings file (Report.Fingerprints).
type FingerprintEntry struct {
	Fingerprint string
	Label       string
	SessionID   string
	Rule        string
	Method      string
	Tool        string
	Kind        string
	// Text is the finding's message when the report kept it, else "".
	Text  string
	Known bool // it matched an entry of Config.Known
	// Replaces is the fingerprint, under the session's old label, of the
	// entry that accepted this finding, when that is how it matched; a
	// rewritten file holds this entry instead.
	Replaces string
}

// RecordsBaseline reports whether the entry is the note that a first-seen
// tool baseline was recorded for its label, which known files written by
// earlier versions hold: it is never stale, and a rewrite drops it.
func (en KnownFinding) RecordsBaseline() bool {
	return en.Label != "" && strings.EqualFold(en.Fingerprint, fingerprint(en.Label, recordedNoteTuple, 0))
}

// recordedNoteTuple identifies the first-seen baseline note.
var recordedNoteTuple = fingerprintTuple{rule: SignalDrift.RuleID(), kind: recordedBaselineKind}

// knownVerdict is what the known findings change in the gate.
type knownVerdict struct {
	active bool
	// per session: the gated findings of each signal, how many of them
	// were accepted, and how many findings of each signal were accepted
	total, known, acceptedBy []map[Signal]int
	accepted                 map[string]bool // fingerprints that matched an entry
}

// fails reports whether gated signal sig of session i, which has gated
// findings, still fails once the accepted findings are left out.
func (k *knownVerdict) fails(i int, sig Signal) bool {
	return !k.active || k.known[i][sig] < k.total[i][sig]
}

// judgeKnown computes every finding's fingerprint when known findings were
// given or fingerprints asked for: the accepted ones per signal, the stale
// entries (each a failed assertion of the last session of its label), and
// Report.Fingerprints. It costs a hash per finding, so only then.
func (e *Engine) judgeKnown(rep *Report) *knownVerdict {
	k := &knownVerdict{}
	if e.cfg.Known == nil && !e.cfg.Fingerprints {
		return k
	}
	entries := map[string]bool{}
	if e.cfg.Known != nil {
		k.active = true
		for _, en := range e.cfg.Known.Entries {
			entries[en.Fingerprint] = true
		}
	}
	k.accepted = map[string]bool{}
	k.total = make([]map[Signal]int, len(e.order))
	k.known = make([]map[Signal]int, len(e.order))
	k.acceptedBy = make([]map[Signal]int, len(e.order))
	summary := &KnownSummary{Stale: []KnownFinding{}}
	current := map[string]bool{}
	for _, s := range e.order {
		current[s.label] = true
	}
	oldLabels := map[string]bool{}
	lastOfLabel := map[string]int{}
	for i, s := range e.order {
		lastOfLabel[s.label] = i
		old := s.bl.oldLabel
		if old == s.label || current[old] {
			old = "" // another server's label now: its entries are its own
		}
		if old != "" {
			oldLabels[old] = true
		}
		k.total[i], k.known[i], k.acceptedBy[i] = map[Signal]int{}, map[Signal]int{}, map[Signal]int{}
		tuples := make([]fingerprintTuple, 0, len(s.occurrences))
		for t := range s.occurrences {
			if t.rule != RuleAssertion {
				tuples = append(tuples, t)
			}
		}
		sortTuples(tuples)
		for _, t := range tuples {
			sig := Signal(strings.TrimPrefix(t.rule, "mcpsnoop/"))
			note := t == recordedNoteTuple
			s.occurrences[t].each(func(occ int, party Party, gated bool) {
				if gated {
					k.total[i][sig]++
				}
				if note {
					return // never accepted, never written to a known file
				}
				fp := fingerprint(s.label, t, occ)
				known, alias := entries[fp], ""
				if !known && old != "" && len(entries) > 0 {
					if a := fingerprint(old, t, occ); entries[a] {
						known, alias = true, a
						k.accepted[a] = true
					}
				}
				if known {
					k.accepted[fp] = true
					k.acceptedBy[i][sig]++
					summary.Accepted++
					s.findingCounts.Known++
					if gated {
						k.known[i][sig]++
						s.findingCounts.Gated--
						s.findingCounts.Notes++
						s.parties[party].Gated--
					}
				}
				if e.cfg.Fingerprints {
					rep.Fingerprints = append(rep.Fingerprints, FingerprintEntry{
						Fingerprint: fp, Label: s.label, SessionID: s.id, Rule: t.rule,
						Method: t.method, Tool: t.tool, Kind: t.kind, Known: known, Replaces: alias,
					})
				}
			})
		}
	}
	if !k.active {
		return k
	}
	rep.Known = summary
	summary.Entries = len(e.cfg.Known.Entries)
	for l := range oldLabels {
		summary.OldLabels = append(summary.OldLabels, l)
	}
	slices.Sort(summary.OldLabels)
	seen := map[string]bool{}
	for _, en := range e.cfg.Known.Entries {
		if seen[en.Fingerprint] {
			continue // a repeated line is one entry
		}
		seen[en.Fingerprint] = true
		if k.accepted[en.Fingerprint] {
			summary.Matched++
			continue
		}
		last, checked := lastOfLabel[en.Label]
		if en.Label == "" || !checked || en.RecordsBaseline() {
			continue // a server this check did not see, or a note of a past run: nothing to say
		}
		summary.Stale = append(summary.Stale, en)
		msg := "known finding " + en.Fingerprint + " of server " + strconv.Quote(en.Label) + " no longer occurs"
		if en.Note != "" {
			msg += " (" + en.Note + ")"
		}
		msg += "; drop it from the file, or rewrite the file with --write-known"
		e.order[last].addAssertion(rep.Sessions[last], AssertionResult{Name: AssertionKnown, Server: en.Label, Message: msg}, false)
	}
	return k
}

// sortTuples orders a session's finding tuples, so that fingerprints are
// listed the same way on every run.
func sortTuples(ts []fingerprintTuple) {
	slices.SortFunc(ts, func(a, b fingerprintTuple) int {
		return strings.Compare(a.rule+"\x00"+a.method+"\x00"+a.tool+"\x00"+a.kind,
			b.rule+"\x00"+b.method+"\x00"+b.tool+"\x00"+b.kind)
	})
}
