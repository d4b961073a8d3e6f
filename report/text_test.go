package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestWriteText(t *testing.T) {
	pass := &checker.SessionReport{ID: "s1"}
	fail := &checker.SessionReport{
		ID: "s2", Counters: checker.Counters{Errors: 1, Pending: 2, MissingFrames: 3},
		FailedSignals: []checker.Signal{checker.SignalError, checker.SignalIncomplete},
		Assertions: []checker.AssertionResult{
			{Name: "expect-tool", Passed: true, Message: `expected tool "a" was called`},
			{Name: "forbid-tool", Passed: false, Message: `forbidden tool "rm" was called`},
		},
		Findings: checker.FindingCounts{Gated: 2, Notes: 2},
	}
	failFindings := []checker.Finding{
		{Signal: checker.SignalError, RuleID: "mcpsnoop/error", Level: checker.LevelError, SessionID: "s2", Seq: 4, Path: "logs/a.jsonl", Line: 7,
			Text: `tools/call rm (id 3) ended in an error: the result is marked isError: EACCES`},
		{Signal: checker.SignalPending, RuleID: "mcpsnoop/pending", Level: checker.LevelNote, SessionID: "s2", Seq: 5, Path: "logs/a.jsonl", Line: 9,
			Text: `tools/call x (id 4) never got a response`},
		{Signal: checker.SignalWarn, RuleID: "mcpsnoop/warn", Level: checker.LevelNote, Known: true, SessionID: "s2", Seq: 6, Path: "logs/a.jsonl", Line: 10,
			Text: `response id has no matching request`, Rules: []checker.RuleRef{{ID: "W24"}}},
		{Signal: checker.SignalIncomplete, RuleID: "mcpsnoop/incomplete", Level: checker.LevelError, SessionID: "s2", Path: "logs/a.jsonl",
			Text: `session s2 has 3 dropped frames`},
		{RuleID: checker.RuleAssertion, Level: checker.LevelError, SessionID: "s2", Text: `forbidden tool "rm" was called`},
	}
	forged := &checker.SessionReport{
		ID: "s3\ncheck passed\n::error::x\x1b[2J", Counters: checker.Counters{Errors: 1},
		FailedSignals: []checker.Signal{checker.SignalError},
		Assertions:    []checker.AssertionResult{{Name: "forbid-tool", Message: "forbidden tool \"a\nb\" was called"}},
		Findings:      checker.FindingCounts{Gated: 1},
	}
	forgedFinding := checker.Finding{Signal: checker.SignalError, RuleID: "mcpsnoop/error", Level: checker.LevelError,
		SessionID: forged.ID, Path: "session s3: errors=0.jsonl", Line: 2, Text: "x\ncheck passed"}
	counters := func(id string, c string) string {
		return "session " + id + ": " + c + "\n"
	}
	zero := "errors=0 invalid=0 warnings=0 mismatches=0 pending=0 late_results=0 deprecated=0 missing_frames=0 schema_findings=0"
	tests := []struct {
		name    string
		rep     *checker.Report
		verbose bool
		want    string
	}{
		// A peer's text cannot start a line: no forged verdict, no
		// workflow command, no escape sequence; a log named like a
		// line scripts read is shown as ./NAME.
		{"escaped", &checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{forged}, Findings: []checker.Finding{forgedFinding}}, false,
			`session s3\ncheck passed\n::error::x\x1b[2J: errors=1 invalid=0 warnings=0 mismatches=0 pending=0 late_results=0 deprecated=0 missing_frames=0 schema_findings=0` + "\n" +
				`./session s3: errors=0.jsonl:2: error: x\ncheck passed` + "\n" +
				"check failed: error\n" +
				`assertion failed: forbidden tool "a\nb" was called` + "\n" +
				"result: 1 of 1 session failed the gate (error); 1 assertion failed\n"},
		{"passed", &checker.Report{Verdict: checker.Passed, Sessions: []*checker.SessionReport{pass}}, false,
			counters("s1", zero) + "check passed\n"},
		{"failed: the gated findings, then the verdict", &checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{pass, fail}, Findings: failFindings}, false,
			counters("s1", zero) +
				counters("s2", "errors=1 invalid=0 warnings=0 mismatches=0 pending=2 late_results=0 deprecated=0 missing_frames=3 schema_findings=0") +
				"logs/a.jsonl:7: error: tools/call rm (id 3) ended in an error: the result is marked isError: EACCES\n" +
				"logs/a.jsonl: incomplete: session s2 has 3 dropped frames\n" +
				"check failed: error,incomplete\n" +
				"assertion failed: forbidden tool \"rm\" was called\n" +
				"result: 1 of 2 sessions failed the gate (error, incomplete); 1 assertion failed\n"},
		{"verbose: every finding, known ones marked", &checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{fail}, Findings: failFindings}, true,
			counters("s2", "errors=1 invalid=0 warnings=0 mismatches=0 pending=2 late_results=0 deprecated=0 missing_frames=3 schema_findings=0") +
				"logs/a.jsonl:7: error: tools/call rm (id 3) ended in an error: the result is marked isError: EACCES\n" +
				"logs/a.jsonl:9: pending: tools/call x (id 4) never got a response (not gated)\n" +
				"logs/a.jsonl:10: warn/W24: response id has no matching request (known)\n" +
				"logs/a.jsonl: incomplete: session s2 has 3 dropped frames\n" +
				"check failed: error,incomplete\n" +
				"assertion failed: forbidden tool \"rm\" was called\n" +
				"result: 1 of 1 session failed the gate (error, incomplete); 1 assertion failed\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := WriteText(&buf, tt.rep, TextOptions{Verbose: tt.verbose}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, buf.String(), tt.want)
		}
	}
}

// At most MaxFindingLines findings a session, then how many more; standard
// input is named by --log-name, else "-".
func TestFindingLinesCap(t *testing.T) {
	s := &checker.SessionReport{ID: "s", Counters: checker.Counters{Warnings: 70}, FailedSignals: []checker.Signal{checker.SignalWarn},
		Findings: checker.FindingCounts{Gated: 70}}
	rep := &checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{s}}
	for i := range 60 { // the report kept 60 of the 70
		rep.Findings = append(rep.Findings, checker.Finding{Signal: checker.SignalWarn, RuleID: "mcpsnoop/warn", Level: checker.LevelError,
			SessionID: "s", Line: i + 1, Text: "w", Rules: []checker.RuleRef{{ID: "W1"}, {ID: "W8"}}})
	}
	for _, tc := range []struct{ logName, first string }{{"", "-:1: warn/W1,W8: w"}, {"run.jsonl", "run.jsonl:1: warn/W1,W8: w"}} {
		var buf bytes.Buffer
		if err := WriteText(&buf, rep, TextOptions{LogName: tc.logName}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != 1+MaxFindingLines+1+1+1 || lines[1] != tc.first || lines[MaxFindingLines] != fmt.Sprintf("%s:%d: warn/W1,W8: w", strings.Split(tc.first, ":")[0], MaxFindingLines) {
			t.Fatalf("%d lines:\n%s", len(lines), buf.String())
		}
		if got := lines[MaxFindingLines+1]; got != "… 20 more (see --json or --sarif)" {
			t.Errorf("overflow line %q", got)
		}
	}
	// One past the cap is said as one more; at the cap, nothing is.
	for _, kept := range []int{MaxFindingLines + 1, MaxFindingLines} {
		s.Counters.Warnings, s.Findings.Gated = kept, kept
		one := *rep
		one.Findings = rep.Findings[:kept]
		var buf bytes.Buffer
		if err := WriteText(&buf, &one, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(buf.String(), "… 1 more (see --json or --sarif)\n")
		if said != (kept > MaxFindingLines) || strings.Contains(buf.String(), "… 0 more") {
			t.Errorf("%d findings:\n%s", kept, buf.String())
		}
	}
}

// The verdict line sums up what failed and never reads as a session's
// "check failed: " line.
func TestVerdictLine(t *testing.T) {
	s := func(failed ...checker.Signal) *checker.SessionReport {
		return &checker.SessionReport{FailedSignals: failed}
	}
	stale := &checker.SessionReport{Assertions: []checker.AssertionResult{{Name: checker.AssertionKnown}, {Name: checker.AssertionKnown}}}
	for _, tc := range []struct {
		rep  *checker.Report
		want string
	}{
		{&checker.Report{Verdict: checker.Passed, Sessions: []*checker.SessionReport{s()}}, "check passed"},
		{&checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{s(checker.SignalWarn), s(), s(checker.SignalError, checker.SignalWarn)}},
			"result: 2 of 3 sessions failed the gate (error, warn)"},
		{&checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{stale}, Known: &checker.KnownSummary{Accepted: 4}},
			"result: 2 known findings no longer occur (stale); 4 known findings accepted"},
	} {
		if got := VerdictLine(tc.rep); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
		if strings.HasPrefix(VerdictLine(tc.rep), "check failed: ") {
			t.Error("the verdict reads as a session's line")
		}
	}
}

func TestWriteJSONShape(t *testing.T) {
	rep := &checker.Report{Verdict: checker.Passed, FailOn: checker.DefaultFailOn, Sessions: []*checker.SessionReport{{ID: "s1"}}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"version", "verdict", "fail_on", "sessions", "runs", "findings", "findings_truncated", "assertions"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("missing %q", key)
		}
	}
	s := doc["sessions"].([]any)[0].(map[string]any)
	for _, key := range []string{"session_id", "server_label", "transport", "source", "run_ids", "counters", "failed_signals", "tools", "interactions", "elicitations"} {
		if v, ok := s[key]; !ok || v == nil {
			t.Errorf("session: missing or null %q", key)
		}
	}
}
