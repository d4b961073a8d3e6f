package checker_test

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// A session with no server label has findings like any other: an entry
// without a label accepts them, and an entry without a label that matches
// nothing is never stale, since it names no server (even though a session
// without a label was checked).
func TestKnownFindingsOfAnUnlabelledSession(t *testing.T) {
	log := labelled("", logOf("s",
		"1 c2s 0 "+toolCall("1", "a", ""),
		"2 s2c 10 "+rpcError("1", -32000, "boom"),
	))
	all := check(t, checker.Config{Fingerprints: true}, log)
	if len(all.Fingerprints) != 1 || all.Fingerprints[0].Label != "" {
		t.Fatalf("fingerprints %+v", all.Fingerprints)
	}
	entries := []checker.KnownFinding{
		{Fingerprint: all.Fingerprints[0].Fingerprint},
		{Fingerprint: "00000000000000cc", Note: "matches nothing"},
	}
	rep := check(t, checker.Config{Known: &checker.KnownFindings{Entries: entries}}, log)
	if rep.Verdict != checker.Passed {
		t.Errorf("verdict %s, assertions %q", rep.Verdict, runAssertionLines(rep))
	}
	if k := rep.Known; k == nil || k.Matched != 1 || k.Accepted != 1 || len(k.Stale) != 0 {
		t.Errorf("summary %+v", rep.Known)
	}
}
