package checker

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/checker/toolschema"
	"github.com/tidwall/gjson"
)

// BaselineStore keeps the trusted tool definitions of each server, by
// label and serverInfo.name. The engine hands it each session's complete
// tool listing, in session order; implementations do the I/O (see package
// baseline), the engine stays pure.
type BaselineStore interface {
	// Observe returns the baseline of the session's server, first
	// recording defs as the baseline when there is none yet (trust on
	// first use). An error (an unreadable or corrupt baseline, a write
	// failure) is reported as the session's baseline error.
	Observe(key BaselineKey, defs []tooldef.Tool) (BaselineObservation, error)
	// Location is where baselines are kept, for messages that tell users
	// what to persist between CI runs.
	Location() string
}

// BaselineKey says whose baseline a session is judged against.
type BaselineKey struct {
	// Label is the session's server label.
	Label string
	// ServerName is the serverInfo.name the server gave (in its
	// initialize or server/discover result, or a result's _meta); "" when
	// the log holds none. Two servers under one label keep two baselines.
	ServerName string
	// OldLabel is the label mcpsnoop derived from the session's command
	// before labels named the server (capture.LegacyLabel of the meta
	// frame's command) when it differs from Label, else "": where the
	// server's baseline is found on the first check after an upgrade.
	OldLabel string
	// Log is the file the session was read from; "" for standard input.
	Log string
}

// BaselineObservation is what the store answered for one session.
type BaselineObservation struct {
	// Created is true when defs were recorded just now: nothing was
	// verified.
	Created bool
	// Held is true, with Created, when defs are the baseline for this
	// check only and were not written: the log is not one of this
	// machine's captures.
	Held bool
	// Version of the stored baseline: 1 files record only name,
	// description and input schema; 2 record every compared field.
	Version int
	// Tools are the baseline's definitions (when not Created).
	Tools []tooldef.Tool
	// OtherNames, when set, are the server names the label's baselines
	// were recorded for, none of them the key's: the server calls itself
	// something else now. Nothing was compared or recorded.
	OtherNames []string
}

// baselineState is what a session learns for its baseline as frames pass:
// the server's name and the label its command had under the old rule.
type baselineState struct {
	serverName string
	oldLabel   string
	renamed    []string // the names the label's baselines have (OtherNames)
	held       bool     // the first-seen baseline is kept for this check only
}

// onMetaCommand reads the meta frame's command, for the old label.
func (b *baselineState) onMetaCommand(f *capture.Frame) {
	var meta struct {
		Command []string `json:"command"`
	}
	if json.Unmarshal(f.Raw, &meta) == nil && len(meta.Command) > 0 {
		b.oldLabel = capture.LegacyLabel(meta.Command)
	}
}

// noteServerName keeps the first serverInfo.name a server answer gives: in
// an initialize or server/discover result, or in a result's _meta
// (2026-07-28). Only when a baseline will be judged.
func (s *session) noteServerName(fc *frameCtx, c *call) {
	m := &fc.msg
	if s.bl.serverName != "" || s.e.cfg.Baseline == nil || fc.f.Direction != capture.ServerToClient || !m.hasResult || !m.result.IsObject() {
		return
	}
	var info gjson.Result
	if c.method == "initialize" || c.method == "server/discover" {
		info = m.resultField("serverInfo")
	}
	if !info.IsObject() {
		if meta := m.resultField("_meta"); meta.IsObject() {
			info = meta.Get(escapeKey("io.modelcontextprotocol/serverInfo"))
		}
	}
	if name := info.Get("name"); info.IsObject() && name.Type == gjson.String && name.Str != "" {
		s.bl.serverName = clone(name.Str)
	}
}

// observeBaseline compares the session's complete tool listing with the
// baseline of its server, recording it when there is none.
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
	key := BaselineKey{Label: s.label, ServerName: s.bl.serverName, Log: s.source.Path}
	if s.bl.oldLabel != s.label {
		key.OldLabel = s.bl.oldLabel
	}
	obs, err := store.Observe(key, defs)
	switch {
	case err != nil:
		r.Error = err.Error()
	case len(obs.OtherNames) > 0:
		s.bl.renamed = obs.OtherNames
	case obs.Created:
		r.Created = true
		if obs.Held {
			s.bl.held = true
			r.Dir = "" // kept nowhere: the report must not say where it is
		}
	default:
		r.Drift, r.Unverified = tooldef.Diff(obs.Tools, defs, obs.Version)
		s.securityBaseline(obs.Tools)
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
	if len(s.bl.renamed) > 0 {
		in := at
		in.signal, in.rank, in.kind = SignalDrift, 1, serverRenamedKind
		in.text = ": " + s.renamedText()
		s.addFinding(in)
		sr.Counters.Drift++
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

// serverRenamedKind is the kind of the finding that a server's name is not
// the one its label's baseline was recorded for.
const serverRenamedKind = "server name changed"

// renamedText says which names the label's baselines have and what to do:
// a server cannot dodge drift by calling itself something else, and a
// second server under a label is told apart once the user says so.
func (s *session) renamedText() string {
	was := make([]string, len(s.bl.renamed))
	for i, n := range s.bl.renamed {
		was[i] = strconv.Quote(n)
	}
	name := strconv.Quote(s.bl.serverName)
	if s.bl.serverName == "" {
		name = "no name"
	}
	return "server name changed: the tool baseline of label " + strconv.Quote(s.label) + " was recorded for server " +
		strings.Join(was, ", ") + ", and this session's server gave " + name +
		"; its tools were not compared. If it is another server, give it a label of its own (--label); if the server renamed itself, trust it with mcpsnoop baseline --accept"
}

// recordedBaselineKind is the kind of the first-seen baseline's note. The
// note says what this run did, not something about the server: it is
// never a known finding (known.go).
const recordedBaselineKind = "recorded first-seen tool baseline"

// recordedFinding notes that the session's listing became the first-seen
// baseline (or one held for this check only, for a log from elsewhere); it
// is an error only when the run gated drift and verified nothing.
func (s *session) recordedFinding(sr *SessionReport) {
	in := findingInput{signal: SignalDrift, phase: phaseBaselineNote, sessionWide: true, level: LevelNote, party: PartyRun,
		kind: recordedBaselineKind, text: ": recorded first-seen tool baseline (trusted, not verified)"}
	if s.bl.held {
		in.text = ": first-seen tool baseline held for this check only (trusted, not verified; not written: the log is not one of this machine's captures; --baseline DIR records it)"
	}
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
