package checker_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Known findings: accepted ones are notes and fail nothing, the counters
// stay exact; a new finding still fails; an accepted finding of a checked
// server that is gone is stale and fails.
func TestKnownFindings(t *testing.T) {
	log := logOf("s",
		"1 c2s 0 "+toolCall("1", "a", ""),
		"2 s2c 10 "+rpcError("1", -32000, "boom"),
		"3 s2c 20 "+rpcResult("77", `{}`), // W24
		"4 s2c 30 "+rpcResult("78", `{}`), // W24 again
	)
	all := check(t, checker.Config{Fingerprints: true}, log)
	if len(all.Fingerprints) != 3 || all.Known != nil {
		t.Fatalf("fingerprints %+v", all.Fingerprints)
	}
	var entries []checker.KnownFinding
	for _, f := range all.Fingerprints {
		if f.Label != "srv" || f.SessionID != "s" || f.Text == "" {
			t.Errorf("entry %+v", f)
		}
		entries = append(entries, checker.KnownFinding{Fingerprint: f.Fingerprint, Label: f.Label})
	}
	// The two W24 fingerprints differ: the occurrence is part of them.
	if all.Fingerprints[1].Fingerprint == all.Fingerprints[2].Fingerprint {
		t.Error("two occurrences share a fingerprint")
	}

	t.Run("all accepted", func(t *testing.T) {
		rep := check(t, checker.Config{Known: &checker.KnownFindings{Entries: entries}}, log)
		s := rep.Sessions[0]
		if rep.Verdict != checker.Passed || len(s.FailedSignals) != 0 {
			t.Errorf("verdict %s, failed %v", rep.Verdict, s.FailedSignals)
		}
		if s.Counters.Errors != 1 || s.Counters.Warnings != 2 {
			t.Errorf("counters %+v must stay exact", s.Counters)
		}
		if s.Findings != (checker.FindingCounts{Gated: 0, Notes: 3, Known: 3}) {
			t.Errorf("finding counts %+v", s.Findings)
		}
		for _, f := range rep.Findings {
			if !f.Known || f.Level != checker.LevelNote {
				t.Errorf("finding %+v", f)
			}
		}
		if k := rep.Known; k == nil || k.Entries != 3 || k.Matched != 3 || k.Accepted != 3 || len(k.Stale) != 0 {
			t.Errorf("summary %+v", rep.Known)
		}
	})
	t.Run("a new finding fails", func(t *testing.T) {
		rep := check(t, checker.Config{Known: &checker.KnownFindings{Entries: entries[:2]}}, log)
		s := rep.Sessions[0]
		if rep.Verdict != checker.Failed || len(s.FailedSignals) != 1 || s.FailedSignals[0] != checker.SignalWarn {
			t.Errorf("verdict %s, failed %v", rep.Verdict, s.FailedSignals)
		}
		if s.Findings != (checker.FindingCounts{Gated: 1, Notes: 2, Known: 2}) {
			t.Errorf("finding counts %+v", s.Findings)
		}
	})
	t.Run("a gone finding of a checked server is stale", func(t *testing.T) {
		known := append(append([]checker.KnownFinding(nil), entries...),
			checker.KnownFinding{Fingerprint: "00000000000000aa", Label: "srv", Note: "mcpsnoop/warn: fixed since"},
			checker.KnownFinding{Fingerprint: "00000000000000bb", Label: "not-checked"},
			checker.KnownFinding{Fingerprint: "00000000000000cc"})
		rep := check(t, checker.Config{Known: &checker.KnownFindings{Entries: known}}, log)
		if rep.Verdict != checker.Failed || len(rep.Sessions[0].FailedSignals) != 0 {
			t.Errorf("verdict %s, failed %v", rep.Verdict, rep.Sessions[0].FailedSignals)
		}
		got := strings.Join(runAssertionLines(rep), "\n")
		want := `s: FAIL  [srv] known finding 00000000000000aa of server "srv" no longer occurs (mcpsnoop/warn: fixed since); drop it from the file, or rewrite the file with --write-known`
		if got != want {
			t.Errorf("assertions\n got %s\nwant %s", got, want)
		}
		if k := rep.Known; len(k.Stale) != 1 || k.Stale[0].Fingerprint != "00000000000000aa" {
			t.Errorf("stale %+v", k.Stale)
		}
	})
}
