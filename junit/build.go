package junit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/report"
)

// Names and attribute values fixed by spec/check.md section 7.
const (
	suitesName     = "mcpsnoop check"
	caseClassname  = "mcpsnoop.check"
	failureType    = "mcpsnoop.check." // + signal
	assertionType  = "mcpsnoop.check.assertion"
	assertionsCase = "assertions"
	zeroTime       = "0"
)

// nouns names what each signal counts, singular then plural.
var nouns = map[checker.Signal][2]string{
	checker.SignalError:      {"error", "errors"},
	checker.SignalInvalid:    {"invalid frame", "invalid frames"},
	checker.SignalWarn:       {"warning", "warnings"},
	checker.SignalMismatch:   {"routing mismatch", "routing mismatches"},
	checker.SignalPending:    {"pending call", "pending calls"},
	checker.SignalLateResult: {"late result", "late results"},
	checker.SignalDrift:      {"tool definition change", "tool definition changes"},
	checker.SignalDeprecated: {"deprecated protocol feature", "deprecated protocol features"},
	checker.SignalIncomplete: {"dropped frame", "dropped frames"},
	checker.SignalSchema:     {"schema finding", "schema findings"},
	checker.SignalWire:       {"frame breaking the schema", "frames breaking the schema"},
	checker.SignalSecurity:   {"security finding", "security findings"},
}

// noun returns the word for count things of signal s.
func noun(s checker.Signal, count int) string {
	n, ok := nouns[s]
	if !ok {
		// Only reached if a signal is added without a noun; a test guards it.
		return string(s) + " findings"
	}
	if count == 1 {
		return n[0]
	}
	return n[1]
}

// build returns the JUnit model of rep: one testsuite per session, in
// report order, with totals summed at the top, and the properties of its
// failing testcases: the party (server, client, transport, run) each of
// the findings it lists blames, once per party. Strings are not sanitised
// here; the encoder does that for every attribute and text.
func build(rep *checker.Report, opts Options) (junit.Testsuites, caseProperties) {
	doc := junit.Testsuites{Name: suitesName, Time: zeroTime}
	props := caseProperties{}
	found := map[string][]*checker.Finding{}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		found[f.SessionID] = append(found[f.SessionID], f)
	}
	for _, s := range rep.Sessions {
		doc.AddSuite(buildSuite(rep, s, found[s.ID], opts, props))
	}
	return doc, props
}

// PartyProperty is the testcase property naming a party at fault.
const PartyProperty = "party"

// addParties records, as properties of testcase name, the parties of the
// findings it lists, in BlameParties order and then run.
func addParties(props caseProperties, name string, listed []*checker.Finding) {
	for _, p := range append(append([]checker.Party(nil), checker.BlameParties...), checker.PartyRun) {
		if slices.ContainsFunc(listed, func(f *checker.Finding) bool { return f.Party == p }) {
			props[name] = append(props[name], junit.Property{Name: PartyProperty, Value: string(p)})
		}
	}
}

// buildSuite returns one session's testsuite: a skipped "<sid>/baseline"
// case when the run recorded the session's first-seen baseline, the 10
// signal testcases in checker.AllSignals order (plus wire when schema
// validation ran, and security when the security rules did), then the
// assertions testcase.
func buildSuite(rep *checker.Report, s *checker.SessionReport, found []*checker.Finding, opts Options, props caseProperties) junit.Testsuite {
	suite := junit.Testsuite{Name: s.ID, Time: zeroTime}
	for _, id := range s.RunIDs {
		// The agent run the session belongs to (spec/interfaces.md, Runs).
		suite.AddProperty("mcpsnoop.run", id)
	}
	if s.Baseline.Created {
		tc := newCase(s.ID, "baseline")
		tc.Skipped = &junit.Result{Message: baselineRecorded}
		if s.Baseline.Dir == "" {
			tc.Skipped.Message = baselineHeld
		}
		addCase(&suite, tc)
	}
	for _, sig := range reportedSignals(rep) {
		tc, listed := signalCase(s, sig, found, opts)
		addParties(props, tc.Name, listed)
		addCase(&suite, tc)
	}
	tc := assertionsTestcase(s)
	if tc.Failure != nil {
		props[tc.Name] = []junit.Property{{Name: PartyProperty, Value: string(checker.PartyRun)}}
	}
	addCase(&suite, tc)
	return suite
}

// reportedSignals are the signals a report has a testcase for: all of
// them, wire only when schema validation ran and security only when the
// security rules did (otherwise nothing counted them, and a report
// without them reads as before).
func reportedSignals(rep *checker.Report) []checker.Signal {
	out := make([]checker.Signal, 0, len(checker.AllSignals))
	for _, sig := range checker.AllSignals {
		switch {
		case sig == checker.SignalWire && !rep.Wire, sig == checker.SignalSecurity && !rep.Security:
			continue
		}
		out = append(out, sig)
	}
	return out
}

// addCase adds tc to suite; the suite's tests, failures and skipped count
// its cases (the reference kept skipped at 0 even with a skipped case,
// spec/check.md section 15, quirk 9: ours agree with the cases). Errors
// are never produced.
func addCase(suite *junit.Testsuite, tc junit.Testcase) {
	suite.AddTestcase(tc)
}

// newCase returns a passing testcase named "<sid>/<name>".
func newCase(sid, name string) junit.Testcase {
	return junit.Testcase{
		Classname: caseClassname,
		Name:      sid + "/" + name,
		Time:      zeroTime,
	}
}

// signalCase returns the testcase of one signal and the findings its
// failure lists. It fails when the signal failed the gate in the session
// (gated, counted, of a party --blame names, and not every finding of it
// accepted as known); the failure's body lists the findings as the text
// report does (report.FindingLine), at most report.MaxFindingLines.
func signalCase(s *checker.SessionReport, sig checker.Signal, found []*checker.Finding, opts Options) (junit.Testcase, []*checker.Finding) {
	tc := newCase(s.ID, string(sig))
	count := s.Counters.Count(sig)
	var shown []*checker.Finding
	if count > 0 && slices.Contains(s.FailedSignals, sig) {
		reason := signalReason(s, sig, count)
		body := []string{reason}
		listed, total := 0, 0
		for _, f := range found {
			if f.Signal != sig || f.RuleID == checker.RuleAssertion || f.Level != checker.LevelError {
				continue
			}
			total++
			if listed < report.MaxFindingLines {
				body = append(body, report.FindingLine(f, opts.LogName))
				shown = append(shown, f)
				listed++
			}
		}
		if more := total - listed; more > 0 {
			body = append(body, fmt.Sprintf("… %d more (see the JSON or SARIF report)", more))
		}
		tc.Failure = &junit.Result{
			Message: reason,
			Type:    failureType + string(sig),
			Data:    strings.Join(body, "\n"),
		}
	}
	return tc, shown
}

// baselineRecorded is the skipped baseline case's message; baselineHeld
// that of a baseline held for this check only (a log from elsewhere, whose
// report names no folder: Baseline.Dir is "").
const (
	baselineRecorded = "recorded first-seen tool baseline (trusted, not verified)"
	baselineHeld     = "first-seen tool baseline held for this check only (trusted, not verified; not written: the log is not one of this machine's captures; --baseline DIR records it)"
)

// signalReason is the failure text of a gated signal. Drift fails for two
// reasons that are not a count of changes: an unusable baseline, and a run
// that could only record one.
func signalReason(s *checker.SessionReport, sig checker.Signal, count int) string {
	if sig == checker.SignalDrift {
		switch b := s.Baseline; {
		case b.Error != "":
			return "tool baseline error: " + b.Error
		case b.RecordedOnly && b.Dir == "":
			return fmt.Sprintf("session %s only held a first-seen tool baseline, so no tool definition was verified; check it with --baseline pointing at a persisted folder", s.ID)
		case b.RecordedOnly:
			return fmt.Sprintf("session %s only recorded a first-seen tool baseline, so no tool definition was verified; keep %s between runs", s.ID, b.Dir)
		}
	}
	return fmt.Sprintf("session %s has %d %s", s.ID, count, noun(sig, count))
}

// assertionsTestcase returns the "<sid>/assertions" testcase, failing when
// any of the session's assertions failed.
func assertionsTestcase(s *checker.SessionReport) junit.Testcase {
	tc := newCase(s.ID, assertionsCase)
	failed := s.FailedAssertions()
	if len(failed) == 0 {
		return tc
	}
	msgs := make([]string, len(failed))
	for i, a := range failed {
		msgs[i] = a.Message
	}
	tc.Failure = &junit.Result{
		Message: strings.Join(msgs, "; "),
		Type:    assertionType,
		Data:    strings.Join(msgs, "\n"),
	}
	return tc
}
