package report

import (
	"encoding/json"
	"io"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// JSONVersion is the version of the check JSON document.
const JSONVersion = 1

type jsonReport struct {
	Version int              `json:"version"`
	Verdict checker.Verdict  `json:"verdict"`
	FailOn  []checker.Signal `json:"fail_on"`
	// Blame is the parties whose findings can fail the gate (--blame).
	Blame             []checker.Party `json:"blame"`
	Sessions          []jsonSession   `json:"sessions"`
	Runs              []checker.Run   `json:"runs"`
	Findings          []jsonFinding   `json:"findings"`
	FindingsTotal     int             `json:"findings_total"`
	FindingsTruncated int             `json:"findings_truncated"`
	Assertions        []jsonAssertion `json:"assertions"`
	// Known says how check --known's accepted findings fared (absent
	// without --known).
	Known *checker.KnownSummary `json:"known,omitempty"`
}

type jsonSession struct {
	SessionID     string           `json:"session_id"`
	ServerLabel   string           `json:"server_label"`
	Transport     string           `json:"transport"`
	Source        jsonSource       `json:"source"`
	RunIDs        []string         `json:"run_ids"`
	Counters      jsonCounters     `json:"counters"`
	FailedSignals []checker.Signal `json:"failed_signals"`
	// Parties counts the session's findings by the party they blame.
	Parties      []checker.PartyCount  `json:"parties"`
	Tools        []checker.ToolStats   `json:"tools"`
	Interactions []checker.Interaction `json:"interactions"`
	// InteractionsTruncated counts multi-hop interactions left out past
	// the first 1,000.
	InteractionsTruncated int                   `json:"interactions_truncated"`
	Elicitations          []checker.Elicitation `json:"elicitations"`
	// ElicitationsTruncated counts ledger rows left out past the first 1,000.
	ElicitationsTruncated int `json:"elicitations_truncated"`
	// Baseline and SchemaFindings carry the drift and schema verdicts.
	Baseline       checker.BaselineResult  `json:"baseline"`
	SchemaFindings []checker.SchemaFinding `json:"schema_findings"`
	// Wire is what schema validation said; present only when it ran.
	Wire *checker.WireSummary `json:"wire,omitempty"`
	// Security counts the security findings by rule; present only when
	// the security rules ran.
	Security *checker.SecuritySummary `json:"security,omitempty"`
}

// jsonCounters are the session's counters, plus wire_findings when schema
// validation ran (absent otherwise: nothing was counted).
type jsonCounters struct {
	checker.Counters
	WireFindings *int `json:"wire_findings,omitempty"`
	// SecurityFindings is present only when the security rules ran.
	SecurityFindings *int `json:"security_findings,omitempty"`
}

type jsonSource struct {
	Path      string `json:"path"`
	FirstLine int    `json:"first_line"`
}

type jsonFinding struct {
	Signal      checker.Signal `json:"signal"`
	RuleID      string         `json:"rule_id"`
	Level       checker.Level  `json:"level"`
	Party       checker.Party  `json:"party"`
	SessionID   string         `json:"session_id"`
	Seq         uint64         `json:"seq"`
	Line        int            `json:"line"`
	Path        string         `json:"path,omitempty"`
	Method      string         `json:"method"`
	Tool        string         `json:"tool"`
	Kind        string         `json:"kind"`
	Message     string         `json:"message"`
	Fingerprint string         `json:"fingerprint"`
	// Known marks a finding check --known accepted: level note, failing
	// nothing.
	Known bool `json:"known,omitempty"`
	// Rules are the catalogue rules of a warn, mismatch or wire finding,
	// each with the spec section it enforces.
	Rules []checker.RuleRef `json:"rules,omitempty"`
	// Wire is a wire finding's schema problem: revision, definition, and
	// the failing instance locations (JSON pointers) and keywords.
	Wire *wire.Finding `json:"wire,omitempty"`
	// Security is a security finding's rule, severity, JSON pointer and
	// cue.
	Security *checker.SecurityDetail `json:"security,omitempty"`
}

// jsonAssertion is an assertion with the session that holds it: for one
// judged per run (run is set), the run's last session.
type jsonAssertion struct {
	checker.AssertionResult
	SessionID string `json:"session_id"`
}

// WriteJSON writes the check report as one indented JSON document (shape:
// spec/interfaces.md, "The check JSON report"). Lists are [] rather than
// null so consumers can iterate without checks.
func WriteJSON(w io.Writer, rep *checker.Report) error {
	out := jsonReport{
		Version: JSONVersion, Verdict: rep.Verdict, FailOn: nonNil(rep.FailOn), Blame: nonNil(rep.Blame),
		Sessions: []jsonSession{}, Runs: nonNil(rep.Runs), Findings: []jsonFinding{},
		FindingsTotal: rep.FindingsTotal, FindingsTruncated: rep.FindingsTruncated,
		Assertions: []jsonAssertion{}, Known: rep.Known,
	}
	for _, s := range rep.Sessions {
		src := s.Source.Path
		if src == "" {
			src = s.Source.Name
		}
		out.Sessions = append(out.Sessions, jsonSession{
			SessionID: s.ID, ServerLabel: s.Label, Transport: s.Transport,
			Source:   jsonSource{Path: src, FirstLine: s.Source.FirstLine},
			RunIDs:   nonNil(s.RunIDs),
			Counters: countersJSON(s), FailedSignals: nonNil(s.FailedSignals), Parties: nonNil(s.Parties),
			Tools: nonNil(s.Tools), Interactions: nonNil(s.Interactions), InteractionsTruncated: s.InteractionsTruncated, Elicitations: nonNil(s.Elicitations), ElicitationsTruncated: s.ElicitationsTruncated,
			Baseline: baselineJSON(s.Baseline), SchemaFindings: nonNil(s.SchemaFindings),
			Wire: s.Wire, Security: s.Security,
		})
		for _, a := range s.Assertions {
			out.Assertions = append(out.Assertions, jsonAssertion{AssertionResult: a, SessionID: s.ID})
		}
	}
	for _, f := range rep.Findings {
		signal := f.Signal
		if f.RuleID == checker.RuleAssertion {
			signal = "assertion"
		}
		out.Findings = append(out.Findings, jsonFinding{
			Signal: signal, RuleID: f.RuleID, Level: f.Level, Party: f.Party, SessionID: f.SessionID,
			Seq: f.Seq, Line: f.Line, Path: f.Path, Method: f.Method, Tool: f.Tool,
			Kind: f.Kind, Message: f.Message, Fingerprint: f.Fingerprint, Known: f.Known,
			Rules: f.Rules, Wire: f.Wire, Security: f.Security,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func baselineJSON(b checker.BaselineResult) checker.BaselineResult {
	b.Drift = nonNil(b.Drift)
	return b
}

// countersJSON adds wire_findings to the counters when validation ran, and
// security_findings when the security rules did.
func countersJSON(s *checker.SessionReport) jsonCounters {
	c := jsonCounters{Counters: s.Counters}
	if s.Wire != nil {
		n := s.Counters.WireFindings
		c.WireFindings = &n
	}
	if s.Security != nil {
		n := s.Counters.SecurityFindings
		c.SecurityFindings = &n
	}
	return c
}
