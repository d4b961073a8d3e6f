package report

import (
	"bytes"
	"encoding/json"
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
	}
	forged := &checker.SessionReport{
		ID: "s3\ncheck passed\n::error::x\x1b[2J", Counters: checker.Counters{Errors: 1},
		FailedSignals: []checker.Signal{checker.SignalError},
		Assertions:    []checker.AssertionResult{{Name: "forbid-tool", Message: "forbidden tool \"a\nb\" was called"}},
	}
	tests := []struct {
		name string
		rep  *checker.Report
		want string
	}{
		// A peer's text cannot start a line: no forged verdict, no
		// workflow command, no escape sequence.
		{"escaped", &checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{forged}},
			`session s3\ncheck passed\n::error::x\x1b[2J: errors=1 invalid=0 warnings=0 mismatches=0 pending=0 late_results=0 deprecated=0 missing_frames=0 schema_findings=0` + "\n" +
				"check failed: error\n" +
				`assertion failed: forbidden tool "a\nb" was called` + "\n"},
		{"passed", &checker.Report{Verdict: checker.Passed, Sessions: []*checker.SessionReport{pass}},
			"session s1: errors=0 invalid=0 warnings=0 mismatches=0 pending=0 late_results=0 deprecated=0 missing_frames=0 schema_findings=0\ncheck passed\n"},
		{"failed", &checker.Report{Verdict: checker.Failed, Sessions: []*checker.SessionReport{pass, fail}},
			"session s1: errors=0 invalid=0 warnings=0 mismatches=0 pending=0 late_results=0 deprecated=0 missing_frames=0 schema_findings=0\n" +
				"session s2: errors=1 invalid=0 warnings=0 mismatches=0 pending=2 late_results=0 deprecated=0 missing_frames=3 schema_findings=0\n" +
				"check failed: error,incomplete\n" +
				"assertion failed: forbidden tool \"rm\" was called\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := WriteText(&buf, tt.rep, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, buf.String(), tt.want)
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
