package checker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/checker/toolschema"
	"github.com/tidwall/gjson"
)

// BaselineStore keeps the trusted tool definitions per server label. The
// engine hands it each session's complete tool listing, in session order;
// implementations do the I/O (see package baseline), the engine stays pure.
type BaselineStore interface {
	// Observe returns the label's baseline, first recording defs as the
	// baseline when there is none yet (trust on first use). An error (an
	// unreadable or corrupt baseline, a write failure) is reported as the
	// session's baseline error.
	Observe(label string, defs []tooldef.Tool) (BaselineObservation, error)
	// Location is where baselines are kept, for messages that tell users
	// what to persist between CI runs.
	Location() string
}

// BaselineObservation is what the store answered for one session.
type BaselineObservation struct {
	// Created is true when defs were recorded just now: nothing was
	// verified.
	Created bool
	// Version of the stored baseline: 1 files record only name,
	// description and input schema; 2 record every compared field.
	Version int
	// Tools are the baseline's definitions (when not Created).
	Tools []tooldef.Tool
}

// observeBaseline compares the session's complete tool listing with the
// baseline of its server label, recording it when there is none.
func (s *session) observeBaseline(defs []tooldef.Tool) BaselineResult {
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
	obs, err := store.Observe(s.label, defs)
	switch {
	case err != nil:
		r.Error = err.Error()
	case obs.Created:
		r.Created = true
	default:
		r.Drift, r.Unverified = tooldef.Diff(obs.Tools, defs, obs.Version)
		if red := s.e.cfg.RedactText; red != nil {
			for i := range r.Drift {
				redactDrift(&r.Drift[i], red)
			}
		}
	}
	return r
}

// redactDrift applies the report redaction to what a drift entry quotes:
// the baseline's values were stored as recorded, unredacted.
func redactDrift(d *tooldef.DriftEntry, red func(string) string) {
	for _, p := range []**string{&d.Before, &d.After} {
		if *p != nil {
			v := red(**p)
			*p = &v
		}
	}
	for i := range d.Hints {
		d.Hints[i].Before, d.Hints[i].After = red(d.Hints[i].Before), red(d.Hints[i].After)
	}
	if c := d.Schema; c != nil {
		for _, l := range [][]string{c.Added, c.Removed, c.Changed} {
			for i := range l {
				l[i] = red(l[i])
			}
		}
	}
}

// toolFindings reports the baseline error, the drift entries and the schema
// findings of a closed session, located at its last tools/list answer.
func (s *session) toolFindings(sr *SessionReport) {
	at := findingInput{phase: phaseTools, sessionWide: true, toolsList: true, party: PartyServer}
	if e := sr.Baseline.Error; e != "" {
		in := at
		in.signal, in.rank, in.kind, in.text = SignalDrift, 0, "tool baseline error", ": tool baseline error: "+e
		in.party = PartyRun // the gate's own input, not the server's doing
		s.addFinding(in)
	}
	for _, d := range sr.Baseline.Drift {
		in := at
		in.signal, in.rank, in.tool, in.kind = SignalDrift, 1, d.Tool, "tool <name> "+d.Kind.Label()
		in.text = ": tool " + strconv.Quote(d.Tool) + " " + d.Kind.Label()
		if detail := d.Detail(); detail != "" {
			in.text += ": " + detail
		}
		s.addFinding(in)
	}
	for _, f := range sr.SchemaFindings {
		if f.Kind == toolschema.NonDefaultDialect {
			// Every tool of an SDK that writes draft-07 has it: one note
			// for the session, not one a tool.
			in := at
			in.signal, in.rank, in.kind = SignalSchema, 2, "tools' schemas use a non-default dialect"
			in.text = ": " + s.dialectNote(f.Tools)
			s.addFinding(in)
			continue
		}
		for _, tool := range f.Tools {
			in := at
			in.signal, in.rank, in.tool, in.kind = SignalSchema, 2, tool, "tool <name> schema uses "+f.Kind
			in.text = ": tool " + strconv.Quote(tool) + " schema uses " + f.Kind
			s.addFinding(in)
		}
	}
}

// recordedBaselineKind is the kind of the first-seen baseline's finding.
const recordedBaselineKind = "recorded first-seen tool baseline"

// recordedFinding notes that the session's listing became the first-seen
// baseline; it is an error only when the run gated drift and verified
// nothing.
func (s *session) recordedFinding(sr *SessionReport) {
	in := findingInput{signal: SignalDrift, phase: phaseBaselineNote, sessionWide: true, level: LevelNote, party: PartyRun,
		kind: recordedBaselineKind, text: ": recorded first-seen tool baseline (trusted, not verified)"}
	if sr.Baseline.RecordedOnly {
		in.level = LevelError
	}
	s.addFinding(in)
}

// dialectNote names the non-default JSON Schema dialects the tools use and
// the tools using each, in advertised order.
func (s *session) dialectNote(tools []string) string {
	listed := map[string][]byte{}
	for _, t := range s.inv.tools {
		listed[t.name] = t.raw
	}
	var dialects []string
	byDialect := map[string][]string{}
	for _, name := range tools {
		d := toolschema.Dialect(gjson.GetBytes(listed[name], "inputSchema"), gjson.GetBytes(listed[name], "outputSchema"))
		if _, seen := byDialect[d]; !seen {
			dialects = append(dialects, d)
		}
		byDialect[d] = append(byDialect[d], strconv.Quote(name))
	}
	parts := make([]string, len(dialects))
	for i, d := range dialects {
		parts[i] = "dialect " + strconv.Quote(s.serverWords(d)) + " in " + strconv.Itoa(len(byDialect[d])) + " " + plural(len(byDialect[d]), "tool", "tools") + ": " + strings.Join(byDialect[d], ", ")
	}
	return "tool schemas name a JSON Schema dialect other than 2020-12, which MCP assumes: " + strings.Join(parts, "; ")
}
