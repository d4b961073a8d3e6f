package codeclimate

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// A wire finding is an issue like any other, under its own check name.
func TestWireIssue(t *testing.T) {
	f := finding(checker.SignalWire, checker.LevelError, "logs/a.jsonl", 5,
		`session s1 frame 5: wire: tools/list result: /tools/1: missing property "name" (2025-06-18 ListToolsResult)`, "c3c3c3c3c3c3c3c3")
	issues := validate(t, render(t, &checker.Report{Verdict: checker.Failed, Wire: true, Findings: []checker.Finding{f}, FindingsTotal: 1}, Options{}))
	if len(issues) != 1 {
		t.Fatalf("%d issues", len(issues))
	}
	is := issues[0]
	if is.CheckName != "mcpsnoop/wire" || is.Severity != SeverityMajor || is.Location.Lines.Begin != 5 || is.Description != f.Message {
		t.Errorf("issue %+v", is)
	}
}
