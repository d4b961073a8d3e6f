package checker

import (
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/security"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/tidwall/gjson"
)

// The security signal (opt in: --fail-on security or --security): the
// rules of package security applied to what a server told the model
// (definitions in list and initialize results, tool, prompt and resource
// results), to every string either side sent (credentials), and to how a
// tool's definition changed (rug pulls). Each finding is its own SARIF
// rule, mcpsnoop/security/S<n>.

// securityState is a session's security tally and what rug pulls compare.
type securityState struct {
	byRule map[string]int
	// own are the names the server offers: its tools and their input
	// properties (naming them is no shadowing).
	own map[string]bool
	// defs are the tools as last listed, with where they were listed.
	defs map[string]*listedDef
	// reported are the definition cues already reported.
	reported map[string]bool
}

type listedDef struct {
	raw     []byte
	profile security.Profile
	at      securityAt
}

// securityAt is where a finding sits.
type securityAt struct {
	seq     uint64
	path    string
	line    int
	ordinal int
	pointer string
}

// securityRules judges one frame when the signal is on.
func (s *session) securityRules(fc *frameCtx) {
	if !s.e.security || fc.withheld || len(fc.f.Raw) == 0 {
		return
	}
	at := securityAt{seq: fc.f.Seq, path: fc.pos.Path, line: fc.pos.Line, ordinal: fc.ordinal}
	party := sender(fc.f.Direction)
	m := &fc.msg
	if fc.f.Direction == capture.ServerToClient && m.kind == kindResponse && m.hasResult {
		switch {
		case fc.method == "tools/list":
			s.securityToolsList(fc, at)
			fallthrough
		case fc.method == "initialize" || security.Lists[fc.method] != "":
			for _, f := range security.DefinitionTexts(fc.method, m.result) {
				s.securityCues(fc, at, f, security.InDefinition)
			}
		case security.Results[fc.method]:
			for _, f := range security.ResultTexts(fc.method, fc.tool, m.result) {
				s.securityCues(fc, at, f, security.InResult)
			}
		}
	}
	for _, c := range security.Credentials(gjson.ParseBytes(fc.f.Raw)) {
		in := at
		in.pointer = c.Pointer
		s.securityFinding(fc.method, fc.tool, party, in, "S7", c.Format+" "+strconv.Quote(c.Shown),
			c.Format, fieldOf(c.Pointer))
	}
}

// securityCues reports the cues of one text a server sent. A definition's
// cue is reported once a session: listing the same tools again says
// nothing new (a changed definition is S8's).
func (s *session) securityCues(fc *frameCtx, at securityAt, f security.Field, where security.Where) {
	for _, c := range security.Scan(f.Text, where, s.sec.own) {
		if where == security.InDefinition {
			key := c.Rule + "\x00" + f.Subject + "\x00" + c.Match
			if s.sec.reported[key] {
				continue
			}
			if s.sec.reported == nil {
				s.sec.reported = map[string]bool{}
			}
			s.sec.reported[key] = true
		}
		at.pointer = f.Pointer
		what := c.Why + ": " + quoteCue(c.Match)
		if c.Rule == "S3" {
			what = c.Why + " " + quoteCue(c.Dest) + ": " + quoteCue(c.Match)
		}
		tool := f.Tool
		if tool == "" {
			tool = fc.tool
		}
		// The kind names the field without indices and the cue as
		// matched: a re-capture listing tools in another order keeps
		// its fingerprints.
		s.securityFinding(fc.method, tool, PartyServer, at, c.Rule, f.Subject+": "+what,
			quoteCue(strings.ToLower(c.Match)), fieldOf(f.Pointer))
	}
}

// securityToolsList learns the names the server offers and reports the
// tools whose definition changed for the worse within the session (S8).
func (s *session) securityToolsList(fc *frameCtx, at securityAt) {
	tools := fc.msg.resultField("tools")
	if s.sec.own == nil {
		s.sec.own, s.sec.defs = map[string]bool{}, map[string]*listedDef{}
	}
	tools.ForEach(func(_, t gjson.Result) bool {
		if name := t.Get("name"); name.Type == gjson.String {
			s.sec.own[clone(name.Str)] = true
		}
		t.Get("inputSchema.properties").ForEach(func(k, _ gjson.Result) bool {
			s.sec.own[clone(k.Str)] = true
			return true
		})
		return true
	})
	i := 0
	tools.ForEach(func(_, t gjson.Result) bool {
		defer func() { i++ }()
		name := t.Get("name")
		if name.Type != gjson.String {
			return true
		}
		here := at
		here.pointer = "/result/tools/" + strconv.Itoa(i)
		cur := &listedDef{raw: []byte(t.Raw), profile: security.ToolProfile(t, s.sec.own), at: here}
		if prev := s.sec.defs[name.Str]; prev != nil && !security.SameDefinition(prev.raw, cur.raw) {
			s.rugPull(name.Str, "changed within the session", prev.profile, cur)
		}
		s.sec.defs[clone(name.Str)] = cur
		return true
	})
}

// securityBaseline reports the tools whose definition got worse since the
// baseline (S8), at the listing that showed them last.
func (s *session) securityBaseline(before []tooldef.Tool) {
	if !s.e.security {
		return
	}
	for _, b := range before {
		cur := s.sec.defs[b.Name]
		if cur == nil {
			continue
		}
		raw := security.DefinitionJSON(b)
		if security.SameDefinition(raw, cur.raw) {
			continue
		}
		s.rugPull(b.Name, "changed since the baseline", security.ToolProfile(gjson.ParseBytes(raw), s.sec.own), cur)
	}
}

// rugPull reports how a tool's definition got worse, if it did.
func (s *session) rugPull(tool, how string, before security.Profile, cur *listedDef) {
	changes := security.RugPull(before, cur.profile)
	if len(changes) == 0 {
		return
	}
	parts := make([]string, len(changes))
	keys := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = c.What + " " + quoteCue(c.Match)
		keys[i] = c.What + " " + strings.ToLower(c.Match)
	}
	s.securityFinding("tools/list", tool, PartyServer, cur.at, "S8",
		"tool "+strconv.Quote(tool)+" "+how+": "+strings.Join(parts, "; "),
		how+": "+strings.Join(keys, "; "), "")
}

// securityFinding adds one finding of rule id.
func (s *session) securityFinding(method, tool string, party Party, at securityAt, id, what, cue, field string) {
	rule, _ := security.RuleByID(id)
	if s.sec.byRule == nil {
		s.sec.byRule = map[string]int{}
	}
	s.sec.byRule[id]++
	if !rule.Note {
		s.counters.SecurityFindings++
	}
	text := id + " (" + rule.Severity + "): " + what
	if at.pointer != "" {
		text += " at " + at.pointer
	}
	in := findingInput{
		signal: SignalSecurity, rule: security.RulePrefix + id, phase: phaseFrames, ordinal: at.ordinal, rank: rankSecurity, party: party,
		seq: at.seq, path: at.path, line: at.line, method: method, tool: tool,
		kind: "security " + id + ": " + field + ": " + cue, text: text,
		security: &SecurityDetail{Rule: id, Severity: rule.Severity, Pointer: at.pointer, Cue: what},
	}
	if rule.Note {
		in.level = LevelNote
	}
	s.addFinding(in)
}

// fieldOf is a JSON pointer without its array indices: the field a
// fingerprint may name.
func fieldOf(pointer string) string {
	parts := strings.Split(pointer, "/")
	out := parts[:0]
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			out = append(out, p)
		}
	}
	return strings.Join(out, "/")
}

// quoteCue quotes peer text for a finding: escaped, and cut to 120 bytes.
func quoteCue(s string) string {
	const limit = 120
	if len(s) > limit {
		cut := limit
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// SecurityDetail is what a security finding found.
type SecurityDetail struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	// Pointer is the JSON pointer of the text in the frame ("" for a
	// finding about the whole session).
	Pointer string `json:"pointer,omitempty"`
	// Cue is what matched, quoted and escaped.
	Cue string `json:"cue"`
}

// SecuritySummary counts a session's security findings by rule.
type SecuritySummary struct {
	Rules []SecurityRuleCount `json:"rules"`
}

// SecurityRuleCount is one rule's findings in a session.
type SecurityRuleCount struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Findings int    `json:"findings"`
}

// securitySummary closes the tally; nil when the signal was off.
func (s *session) securitySummary() *SecuritySummary {
	if !s.e.security {
		return nil
	}
	sum := &SecuritySummary{Rules: []SecurityRuleCount{}}
	for _, r := range security.Rules {
		if n := s.sec.byRule[r.ID]; n > 0 {
			sum.Rules = append(sum.Rules, SecurityRuleCount{Rule: r.ID, Severity: r.Severity, Findings: n})
		}
	}
	return sum
}

// toolNameConflicts notes (S9) a tool name that two servers of one run
// offer with different definitions, on the later session's listing.
func (e *Engine) toolNameConflicts(rep *Report) {
	if !e.security {
		return
	}
	for _, r := range rep.Runs {
		type offer struct {
			label string
			def   tooldef.Tool
		}
		seen := map[string][]offer{}
		for i, sr := range rep.Sessions {
			if !inRun(sr, r.ID) {
				continue
			}
			s := e.order[i]
			for _, t := range sr.Listing.Tools {
				for _, o := range seen[t.Name] {
					if o.label != sr.Label && !sameTool(o.def, t) {
						s.noteConflict(sr, t.Name, o.label)
						break
					}
				}
				seen[t.Name] = append(seen[t.Name], offer{sr.Label, t})
			}
		}
	}
}

func inRun(sr *SessionReport, id string) bool {
	for _, r := range sr.RunIDs {
		if r == id {
			return true
		}
	}
	return false
}

func sameTool(a, b tooldef.Tool) bool {
	return a.Description == b.Description && a.Title == b.Title && string(a.InputSchema) == string(b.InputSchema) &&
		string(a.OutputSchema) == string(b.OutputSchema) && string(a.Annotations) == string(b.Annotations)
}

// noteConflict adds the S9 note to a closed session.
func (s *session) noteConflict(sr *SessionReport, tool, other string) {
	rule, _ := security.RuleByID("S9")
	if s.sec.byRule == nil {
		s.sec.byRule = map[string]int{}
	}
	s.sec.byRule["S9"]++
	if sr.Security != nil {
		sr.Security = s.securitySummary()
	}
	s.addFinding(findingInput{
		signal: SignalSecurity, rule: security.RulePrefix + "S9", level: LevelNote, phase: phaseTools, rank: 3,
		sessionWide: true, toolsList: true, party: PartyServer, method: "tools/list", tool: tool,
		kind: "security S9: tool offered by another server: " + other,
		text: ": S9 (" + rule.Severity + "): tool " + strconv.Quote(tool) + " is also offered by server " +
			strconv.Quote(other) + " with another definition",
		security: &SecurityDetail{Rule: "S9", Severity: rule.Severity, Cue: "tool " + strconv.Quote(tool) + " also offered by " + strconv.Quote(other)},
	})
}
