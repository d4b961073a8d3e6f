package checker_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// The note that a first-seen baseline was recorded says what one run did:
// no known file holds it, an old file's entry for it is never stale, and
// it is never accepted (a drift gate that verified nothing still fails).
func TestKnownNeverHoldsTheBaselineNote(t *testing.T) {
	log := logOf("s", "1 c2s 0 "+listReq, "2 s2c 1 "+listResp, "3 c2s 2 "+toolCall("3", "a", ""), "4 s2c 3 "+rpcError("3", -32000, "boom"))
	store := &memStore{tools: map[string][]tooldef.Tool{}}
	first := check(t, checker.Config{Baseline: store, Fingerprints: true}, log)
	var note string
	for _, f := range first.Findings {
		if strings.Contains(f.Message, "recorded first-seen tool baseline") {
			note = f.Fingerprint
		}
	}
	if note == "" {
		t.Fatalf("no first-seen note in %v", messages(first))
	}
	var entries []checker.KnownFinding
	for _, f := range first.Fingerprints {
		if f.Fingerprint == note {
			t.Errorf("the first-seen note is listed for a known file: %+v", f)
		}
		entries = append(entries, checker.KnownFinding{Fingerprint: f.Fingerprint, Label: f.Label})
	}
	if len(entries) != 1 {
		t.Fatalf("fingerprints %+v, want the error's only", first.Fingerprints)
	}

	// The next run finds the baseline, so there is no note: an entry for
	// one (as earlier versions wrote) is not stale.
	old := checker.KnownFinding{Fingerprint: note, Label: "srv", Note: "mcpsnoop/drift: recorded first-seen tool baseline"}
	if !old.RecordsBaseline() || (checker.KnownFinding{Fingerprint: entries[0].Fingerprint, Label: "srv"}).RecordsBaseline() {
		t.Errorf("RecordsBaseline does not tell the note from a finding")
	}
	second := check(t, checker.Config{Baseline: store, Known: &checker.KnownFindings{Entries: append(entries, old)}}, log)
	if second.Verdict != checker.Passed || len(second.Known.Stale) != 0 {
		t.Errorf("verdict %s, stale %+v, assertions %v", second.Verdict, second.Known.Stale, runAssertionLines(second))
	}

	// A drift gate that could only record fails, entry or not.
	fresh := &memStore{tools: map[string][]tooldef.Tool{}}
	gated := check(t, checker.Config{Baseline: fresh, FailOn: []checker.Signal{checker.SignalDrift},
		Known: &checker.KnownFindings{Entries: []checker.KnownFinding{old}}}, log)
	if gated.Verdict != checker.Failed || !reflect.DeepEqual(gated.Sessions[0].FailedSignals, []checker.Signal{checker.SignalDrift}) {
		t.Errorf("recorded-only under a drift gate: verdict %s, failed %v", gated.Verdict, gated.Sessions[0].FailedSignals)
	}
}

// A known file written when the server's label was the old rule's
// ("index.js") still accepts its findings once the label names the server,
// so the first check after the upgrade passes; the rewrite replaces those
// entries.
func TestKnownUnderOldLabel(t *testing.T) {
	frames := []string{
		`1 meta 0 {"command":["node","build/index.js"],"cwd":"/home/u/weather"}`,
		"2 c2s 1 " + toolCall("1", "a", ""), "3 s2c 2 " + rpcError("1", -32000, "boom"),
		"4 s2c 3 " + rpcResult("77", `{}`), // W24
	}
	oldLog := labelled("index.js", logOf("s", frames...))
	newLog := labelled("weather", logOf("s", frames...))
	before := check(t, checker.Config{Fingerprints: true}, oldLog)
	var entries []checker.KnownFinding
	for _, f := range before.Fingerprints {
		entries = append(entries, checker.KnownFinding{Fingerprint: f.Fingerprint, Label: "index.js", Note: "accepted " + f.Kind})
	}
	if len(entries) != 2 {
		t.Fatalf("fingerprints %+v", before.Fingerprints)
	}
	// An entry of the old label that matches nothing is not stale either:
	// the findings it named were made under a label no server has now.
	gone := checker.KnownFinding{Fingerprint: "00000000000000aa", Label: "index.js"}
	known := &checker.KnownFindings{Entries: append(entries, gone)}

	rep := check(t, checker.Config{Known: known, Fingerprints: true}, newLog)
	s := rep.Sessions[0]
	if rep.Verdict != checker.Passed || s.Findings.Known != 2 || rep.Known.Matched != 2 || len(rep.Known.Stale) != 0 {
		t.Fatalf("after the upgrade: verdict %s, findings %+v, known %+v", rep.Verdict, s.Findings, rep.Known)
	}
	if !reflect.DeepEqual(rep.Known.OldLabels, []string{"index.js"}) {
		t.Errorf("old labels %v", rep.Known.OldLabels)
	}
	for i, f := range rep.Fingerprints {
		if f.Label != "weather" || f.Replaces != entries[i].Fingerprint || f.Fingerprint == f.Replaces || !f.Known {
			t.Errorf("fingerprint %+v, want one of label weather replacing %s", f, entries[i].Fingerprint)
		}
	}
	for _, f := range rep.Findings {
		if !f.Known {
			t.Errorf("finding not known: %+v", f)
		}
	}

	// When a server of this check has that label now, its entries are its
	// own: the renamed server's findings are not accepted through them.
	both := check(t, checker.Config{Known: known}, newLog+labelled("index.js", logOf("t", "1 c2s 0 "+call1, "2 s2c 1 "+ok1)))
	if both.Verdict != checker.Failed || both.Sessions[0].Findings.Known != 0 {
		t.Errorf("with a server labelled index.js: verdict %s, findings %+v", both.Verdict, both.Sessions[0].Findings)
	}
}
