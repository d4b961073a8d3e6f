package junit

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// session returns a session report with the given id and counters.
func session(id string, c checker.Counters, asserts ...checker.AssertionResult) *checker.SessionReport {
	return &checker.SessionReport{ID: id, Label: "srv", Transport: "stdio", Counters: c, Assertions: asserts}
}

func passed(name string) checker.AssertionResult {
	return checker.AssertionResult{Name: name, Passed: true}
}

func failed(name, msg string) checker.AssertionResult {
	return checker.AssertionResult{Name: name, Message: msg}
}

var allOnes = checker.Counters{
	Errors: 1, Invalid: 1, Warnings: 1, Mismatches: 1, Pending: 1, LateResults: 1,
	Deprecated: 1, MissingFrames: 1, SchemaFindings: 1, Drift: 1,
}

var allTwos = checker.Counters{
	Errors: 2, Invalid: 2, Warnings: 2, Mismatches: 2, Pending: 2, LateResults: 2,
	Deprecated: 2, MissingFrames: 2, SchemaFindings: 2, Drift: 2,
}

var cases = []struct {
	name string
	rep  *checker.Report
}{
	{"pass-single", &checker.Report{
		Verdict:  checker.Passed,
		FailOn:   checker.DefaultFailOn,
		Sessions: []*checker.SessionReport{session("s1", checker.Counters{}, passed(checker.AssertionExpectTool))},
	}},
	{"multi-session", &checker.Report{
		Verdict: checker.Failed,
		FailOn:  checker.DefaultFailOn,
		Sessions: []*checker.SessionReport{
			session("s1", checker.Counters{}),
			// pending and deprecated are counted but not gated: they pass.
			session("s2", checker.Counters{Errors: 2, Warnings: 3, Pending: 4, Deprecated: 1}),
			session("s3", checker.Counters{Mismatches: 5}),
		},
	}},
	{"assertions-failed", &checker.Report{
		Verdict: checker.Failed,
		FailOn:  checker.DefaultFailOn,
		Sessions: []*checker.SessionReport{session("s1", checker.Counters{},
			failed(checker.AssertionMaxDuration, "1 tool call exceeded the 1s budget (worst: tool \"slow\" took 1.5s)"),
			passed(checker.AssertionExpectTool),
			failed(checker.AssertionForbidTool, "forbidden tool \"rm\" was called"),
		)},
	}},
	{"hostile-id", &checker.Report{
		Verdict: checker.Failed,
		FailOn:  checker.DefaultFailOn,
		Sessions: []*checker.SessionReport{session("s\x1b[31m\"<1>&'\x00\x7f\ufffe\uffff\t\xff", checker.Counters{Errors: 1},
			failed(checker.AssertionExpectTool, "expected tool \"a\x01\x02]]>b\" was never called"),
		)},
	}},
	{"plurals", &checker.Report{
		Verdict: checker.Failed,
		FailOn:  checker.AllSignals,
		Sessions: []*checker.SessionReport{
			session("one", allOnes),
			session("two", allTwos),
		},
	}},
	// The spec's format-junit-multi-session-drift example, without the
	// baseline case the Report cannot express yet.
	{"drift-incomplete", &checker.Report{
		Verdict: checker.Failed,
		FailOn:  []checker.Signal{checker.SignalDrift, checker.SignalIncomplete},
		Sessions: []*checker.SessionReport{
			session("s1", checker.Counters{}),
			session("s2", checker.Counters{Drift: 1, MissingFrames: 2}),
		},
	}},
	{"no-sessions", &checker.Report{Verdict: checker.Passed, FailOn: checker.DefaultFailOn}},
	// A log from elsewhere: its first-seen baseline was held for the check
	// only, and a drift gate that verified nothing says how to record one.
	{"baseline-held", &checker.Report{
		Verdict: checker.Failed,
		FailOn:  []checker.Signal{checker.SignalDrift},
		Sessions: []*checker.SessionReport{{ID: "s1", Label: "srv", Counters: checker.Counters{Drift: 1}, FailedSignals: []checker.Signal{checker.SignalDrift},
			Baseline: checker.BaselineResult{Checked: true, Created: true, RecordedOnly: true}}},
	}},
	// A failure lists its findings as the text report does; a skipped
	// baseline case counts in skipped.
	{"findings-listed", &checker.Report{
		Verdict: checker.Failed,
		FailOn:  checker.DefaultFailOn,
		Sessions: []*checker.SessionReport{{ID: "s1", Label: "srv", Counters: checker.Counters{Errors: 1, Warnings: 2, Pending: 1},
			Baseline: checker.BaselineResult{Checked: true, Created: true, Dir: "/state/tool-baselines"}}},
		Findings: []checker.Finding{
			{Signal: checker.SignalError, RuleID: "mcpsnoop/error", Level: checker.LevelError, SessionID: "s1", Path: "logs/run.jsonl", Line: 4,
				Text: "tools/call read_file (id 2) ended in an error: the result is marked isError: ENOENT"},
			{Signal: checker.SignalWarn, RuleID: "mcpsnoop/warn", Level: checker.LevelError, SessionID: "s1", Path: "logs/run.jsonl", Line: 6,
				Text: "response id has no matching request", Rules: []checker.RuleRef{{ID: "W24"}}},
			{Signal: checker.SignalWarn, RuleID: "mcpsnoop/warn", Level: checker.LevelNote, Known: true, SessionID: "s1", Path: "logs/run.jsonl", Line: 8,
				Text: "duplicate response for the same id", Rules: []checker.RuleRef{{ID: "W25"}}},
			{Signal: checker.SignalPending, RuleID: "mcpsnoop/pending", Level: checker.LevelNote, SessionID: "s1", Path: "logs/run.jsonl", Line: 9,
				Text: "tools/call x (id 3) never got a response"},
		},
	}},
}

// gate fills in each session's failed signals as the engine does: the
// gated ones it counted.
func gate(rep *checker.Report) *checker.Report {
	for _, s := range rep.Sessions {
		s.FailedSignals = nil
		for _, sig := range rep.FailOn {
			if s.Counters.Count(sig) > 0 {
				s.FailedSignals = append(s.FailedSignals, sig)
			}
		}
	}
	return rep
}

func init() {
	for _, tc := range cases {
		gate(tc.rep)
	}
}

func TestWriteGolden(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.rep, Options{}); err != nil {
				t.Fatalf("Write: %v", err)
			}
			golden := filepath.Join("testdata", tc.name+".xml")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("output differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// TestWriteParsesBack reads every document back into go-junit-report's
// types and checks its shape and counts against the Report.
func TestWriteParsesBack(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.rep, Options{}); err != nil {
				t.Fatalf("Write: %v", err)
			}
			out := buf.String()
			if !strings.HasPrefix(out, `<?xml version="1.0" encoding="UTF-8"?>`+"\n<testsuites ") {
				t.Errorf("missing XML header: %.60q", out)
			}
			if !strings.HasSuffix(out, "</testsuites>\n") {
				t.Errorf("missing final newline: %q", out[max(0, len(out)-30):])
			}
			if strings.Contains(out, "\t") || strings.Contains(out, "CDATA") {
				t.Errorf("output has a tab or CDATA:\n%s", out)
			}

			var doc junit.Testsuites
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("output is not well-formed XML: %v\n%s", err, out)
			}
			if doc.Name != "mcpsnoop check" || doc.Time != "0" || doc.Errors != 0 {
				t.Errorf("testsuites attributes: %+v", doc)
			}
			if len(doc.Suites) != len(tc.rep.Sessions) {
				t.Fatalf("%d testsuites for %d sessions", len(doc.Suites), len(tc.rep.Sessions))
			}
			var tests, failures, skipped int
			for i, suite := range doc.Suites {
				s := tc.rep.Sessions[i]
				if suite.Name != clean(s.ID) {
					t.Errorf("suite %d name %q, want %q", i, suite.Name, clean(s.ID))
				}
				cases, wantSkipped := suite.Testcases, 0
				if s.Baseline.Created {
					if len(cases) == 0 || cases[0].Skipped == nil {
						t.Fatalf("suite %q: no skipped baseline case first", suite.Name)
					}
					cases, wantSkipped = cases[1:], 1
				}
				if suite.Tests != 11+wantSkipped || len(cases) != 11 {
					t.Errorf("suite %q: tests=%d with %d testcases, want 11 and the baseline case", suite.Name, suite.Tests, len(suite.Testcases))
				}
				if suite.Errors != 0 || suite.Skipped != wantSkipped || suite.Time != "0" || suite.ID != 0 {
					t.Errorf("suite %q attributes: %+v, want skipped=%d", suite.Name, suite, wantSkipped)
				}
				skipped += suite.Skipped
				wantFail := 0
				for j, c := range cases {
					name := assertionsCase
					gated := len(s.FailedAssertions()) > 0
					if signals := reportedSignals(tc.rep); j < len(signals) {
						sig := signals[j]
						name = string(sig)
						gated = slices.Contains(tc.rep.FailOn, sig) && s.Counters.Count(sig) > 0
					}
					if c.Name != suite.Name+"/"+name || c.Classname != "mcpsnoop.check" || c.Time != "0" {
						t.Errorf("testcase %d: %+v", j, c)
					}
					if gated != (c.Failure != nil) {
						t.Errorf("testcase %q: failure %+v, want failing=%v", c.Name, c.Failure, gated)
					}
					if c.Error != nil || c.Skipped != nil {
						t.Errorf("testcase %q has an error or skipped result", c.Name)
					}
					if gated {
						wantFail++
						if c.Failure.Message == "" || c.Failure.Data == "" {
							t.Errorf("testcase %q: empty failure %+v", c.Name, c.Failure)
						}
					}
				}
				if suite.Failures != wantFail {
					t.Errorf("suite %q: failures=%d, want %d", suite.Name, suite.Failures, wantFail)
				}
				tests += suite.Tests
				failures += suite.Failures
			}
			if doc.Tests != tests || doc.Failures != failures || doc.Skipped != skipped {
				t.Errorf("totals tests=%d failures=%d skipped=%d, want %d, %d and %d", doc.Tests, doc.Failures, doc.Skipped, tests, failures, skipped)
			}
		})
	}
}

func TestFailureTexts(t *testing.T) {
	rep := cases[2].rep // assertions-failed
	tc := assertionsTestcase(rep.Sessions[0])
	wantMsg := "1 tool call exceeded the 1s budget (worst: tool \"slow\" took 1.5s); forbidden tool \"rm\" was called"
	wantData := "1 tool call exceeded the 1s budget (worst: tool \"slow\" took 1.5s)\nforbidden tool \"rm\" was called"
	if tc.Failure == nil || tc.Failure.Message != wantMsg || tc.Failure.Data != wantData || tc.Failure.Type != "mcpsnoop.check.assertion" {
		t.Errorf("assertions failure = %+v", tc.Failure)
	}

	tests := []struct {
		sig   checker.Signal
		count int
		want  string
	}{
		{checker.SignalError, 1, "session s has 1 error"},
		{checker.SignalError, 2, "session s has 2 errors"},
		{checker.SignalMismatch, 1, "session s has 1 routing mismatch"},
		{checker.SignalMismatch, 3, "session s has 3 routing mismatches"},
		{checker.SignalIncomplete, 2, "session s has 2 dropped frames"},
		{checker.SignalDrift, 1, "session s has 1 tool definition change"},
	}
	for _, tt := range tests {
		if got := signalReason(&checker.SessionReport{ID: "s"}, tt.sig, tt.count); got != tt.want {
			t.Errorf("signalReason(%s, %d) = %q, want %q", tt.sig, tt.count, got, tt.want)
		}
	}
	for _, sig := range checker.AllSignals {
		if _, ok := nouns[sig]; !ok {
			t.Errorf("signal %q has no noun", sig)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain s1", "plain s1"},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"a\x00b\x01c\x1bd\x1fe", "abcde"},
		{"x\ufffey\uffffz", "xyz"},
		{"keep \u007f \u0085 \ufffd é 🙂", "keep \u007f \u0085 \ufffd é 🙂"},
		{"bad\xffutf8", "bad\ufffdutf8"},
		{`"<&>'`, `"<&>'`},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEncodeSkippedCase pins the encoding of a skipped testcase, the
// baseline case of the spec, which the Report cannot produce yet.
func TestEncodeSkippedCase(t *testing.T) {
	var suite junit.Testsuite
	suite.Name, suite.Time = "s1", "0"
	base := newCase("s1", "baseline")
	base.Skipped = &junit.Result{Message: "recorded first-seen tool baseline (trusted, not verified)"}
	addCase(&suite, base)
	addCase(&suite, newCase("s1", "error"))
	doc := junit.Testsuites{Name: suitesName, Time: zeroTime}
	doc.AddSuite(suite)

	var buf bytes.Buffer
	if err := encode(&buf, &doc); err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="mcpsnoop check" tests="2" failures="0" errors="0" skipped="1" time="0">
  <testsuite name="s1" tests="2" failures="0" errors="0" skipped="1" time="0">
    <testcase classname="mcpsnoop.check" name="s1/baseline" time="0">
      <skipped message="recorded first-seen tool baseline (trusted, not verified)"></skipped>
    </testcase>
    <testcase classname="mcpsnoop.check" name="s1/error" time="0"></testcase>
  </testsuite>
</testsuites>
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWriteNilReport(t *testing.T) {
	if err := Write(&bytes.Buffer{}, nil, Options{}); err == nil {
		t.Error("Write(nil) succeeded")
	}
}
