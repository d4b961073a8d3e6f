package conformance

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

func r(scenario string, suite, ours Verdict, reason, note string) Row {
	return Row{Suite: "0.1.16", Side: "server", Peer: "go-stateless", Scenario: scenario, SuiteVerdict: suite, OurVerdict: ours, Reason: reason, Note: note}
}

func TestTableRoundTrip(t *testing.T) {
	rows := []Row{
		r("tools-call-error", Pass, Fail, "provoked", "the suite calls a tool that fails on purpose"),
		r("ping", Pass, RaceOrPass, "checker-wrong", "#31 item 1"),
		r("caching", Fail, Fail, "", "both fail:\tfor different reasons"),
	}
	rows[0].SuiteFailed, rows[0].OurFindings = "", "error/tools/call test_error_handling isError"
	var buf bytes.Buffer
	if err := WriteTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTable(&buf, "agreement.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{rows[2], rows[1], rows[0]}          // sorted by scenario
	want[0].Note = "both fail: for different reasons" // a tab in a note is a space
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestReadTableRefuses(t *testing.T) {
	header := strings.Join(columns, "\t") + "\n"
	line := func(cells ...string) string { return strings.Join(cells, "\t") + "\n" }
	for name, tc := range map[string]struct{ text, want string }{
		"no header":          {"# nothing\n", "no header line"},
		"another header":     {"suite\tscenario\n", "the header must be"},
		"a short line":       {header + "0.1.16\tserver\n", "2 cells, want 10"},
		"a bad verdict":      {header + line("0.1.16", "server", "p", "s", "passed", "pass", "", "", "", ""), `suite verdict "passed"`},
		"an unknown reason":  {header + line("0.1.16", "server", "p", "s", "pass", "fail", "flaky", "", "", ""), `unknown reason "flaky"`},
		"a reason on agree":  {header + line("0.1.16", "server", "p", "s", "pass", "pass", "provoked", "", "", ""), "whose verdicts agree"},
		"missed, no quote":   {header + line("0.1.16", "server", "p", "s", "fail", "pass", "suite-missed", "we are right", "", ""), "quote the specification"},
		"wrong, no issue":    {header + line("0.1.16", "server", "p", "s", "pass", "fail", "checker-wrong", "soon", "", ""), "name the issue"},
		"race, no reason":    {header + line("0.1.16", "server", "p", "s", "pass", "pass|fail", "", "", "", ""), "needs a suite pass and a reason"},
		"race, suite fails":  {header + line("0.1.16", "server", "p", "s", "fail", "pass|fail", "checker-wrong", "#31", "", ""), "needs a suite pass"},
		"the same row twice": {header + line("0.1.16", "server", "p", "s", "pass", "pass", "", "", "", "") + line("0.1.16", "server", "p", "s", "fail", "fail", "", "", "", ""), "the same scenario as line"},
	} {
		_, err := ReadTable(strings.NewReader(tc.text), "agreement.tsv")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
}

func TestCompare(t *testing.T) {
	table := []Row{
		r("agrees", Pass, Pass, "", ""),
		r("disagrees", Pass, Fail, "provoked", "on purpose"),
		r("unexplained", Pass, Fail, "", ""),
		r("racy", Pass, RaceOrPass, "checker-wrong", "#31"),
		r("not-run", Fail, Fail, "", ""),
		r("was-disagreeing", Fail, Pass, "unobservable", "content"),
		r("changed", Pass, Pass, "", ""),
	}
	raced := r("racy", Pass, Fail, "", "")
	raced.RaceOnly = true
	observed := []Row{
		r("agrees", Pass, Pass, "", ""),
		r("disagrees", Pass, Fail, "", ""),
		r("unexplained", Pass, Fail, "", ""),
		raced,
		r("was-disagreeing", Fail, Fail, "", ""),
		r("changed", Pass, Fail, "", ""),
		r("new", Pass, Pass, "", ""),
	}
	got := Compare(observed, table)
	want := []string{
		"unexplained: suite pass, ours fail, and the table gives no reason",
		"was-disagreeing: the table says suite fail, ours pass; this run gave suite fail, ours fail",
		"changed: the table says suite pass, ours pass; this run gave suite pass, ours fail",
		"new: not in the table",
		"not-run: in the table, but did not run",
	}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("problem %d: %q, want it to say %q", i, got[i], want[i])
		}
	}

	// A RaceOrPass row takes a pass or a fail on the race alone, nothing
	// else; a race fail on a row the table says passes asks to mark it.
	racy := r("racy", Pass, Fail, "", "")
	if p := Compare([]Row{racy}, table[3:4]); len(p) != 1 || !strings.Contains(p[0], "not on the GET race alone") {
		t.Errorf("a racy row failing on more than the race: %v", p)
	}
	if p := Compare([]Row{r("racy", Pass, Pass, "", "")}, table[3:4]); len(p) != 0 {
		t.Errorf("a racy row passing: %v", p)
	}
	raced.Scenario = "agrees"
	if p := Compare([]Row{raced}, table[:1]); len(p) != 1 || !strings.Contains(p[0], "mark it pass|fail") {
		t.Errorf("a race fail on a passing row: %v", p)
	}
	// An agreement that now disagrees the other way round.
	if p := Compare([]Row{r("disagrees", Pass, Pass, "", "")}, table[1:2]); len(p) != 1 || !strings.Contains(p[0], "this run gave suite pass, ours pass") {
		t.Errorf("a disagreement gone: %v", p)
	}
}

func TestUpdate(t *testing.T) {
	table := []Row{
		r("still-disagrees", Pass, Fail, "provoked", "on purpose"),
		r("now-agrees", Pass, Fail, "checker-wrong", "#31"),
		r("agree-note", Fail, Fail, "", "both fail, for different reasons"),
	}
	racyPass := r("racy", Pass, Pass, "", "")
	racyPass.Racy = true
	racyFail := r("racy-fail", Pass, Fail, "", "")
	racyFail.Racy, racyFail.RaceOnly = true, true
	racyOther := r("racy-other", Pass, Fail, "", "")
	racyOther.Racy = true // fails on more than the race
	observed := []Row{
		r("still-disagrees", Pass, Fail, "", ""),
		r("now-agrees", Pass, Pass, "", ""),
		r("agree-note", Fail, Fail, "", ""),
		r("new-disagreement", Fail, Pass, "", ""),
		racyPass, racyFail, racyOther,
	}
	got := Update(observed, table, true)
	type v struct {
		ours           Verdict
		reason, note   string
		raceOrPassNote bool
	}
	want := map[string]v{
		"still-disagrees":  {Fail, "provoked", "on purpose", false},
		"now-agrees":       {Pass, "", "", false},
		"agree-note":       {Fail, "", "both fail, for different reasons", false},
		"new-disagreement": {Pass, "", "", false},
		"racy":             {RaceOrPass, "checker-wrong", raceNote, true},
		"racy-fail":        {RaceOrPass, "checker-wrong", raceNote, true},
		"racy-other":       {Fail, "", "", false},
	}
	for _, row := range got {
		w := want[row.Scenario]
		if row.OurVerdict != w.ours || row.Reason != w.reason || row.Note != w.note {
			t.Errorf("%s: %s %q %q, want %s %q %q", row.Scenario, row.OurVerdict, row.Reason, row.Note, w.ours, w.reason, w.note)
		}
	}
	// Without the race, a racy row keeps its own verdict.
	for _, row := range Update([]Row{racyPass, racyFail}, nil, false) {
		if row.OurVerdict == RaceOrPass {
			t.Errorf("%s: %s with the race off", row.Scenario, row.OurVerdict)
		}
	}
	agree, racy, byReason := Counts(got)
	if agree != 2 || racy != 2 || byReason["provoked"] != 1 || byReason[""] != 2 {
		t.Errorf("counts: %d agree, %d racy, %v", agree, racy, byReason)
	}
}

// The committed table reads, and every disagreement in it has a reason:
// what the e2e test holds a run to is itself well formed.
func TestCommittedTable(t *testing.T) {
	f, err := os.Open("agreement.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadTable(f, "agreement.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("agreement.tsv lists no scenario")
	}
	for _, row := range rows {
		if !row.Agree() && row.Reason == "" {
			t.Errorf("%s %s %s %s: suite %s, ours %s, no reason", row.Suite, row.Side, row.Peer, row.Scenario, row.SuiteVerdict, row.OurVerdict)
		}
	}
}
