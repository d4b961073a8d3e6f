package conformance

import (
	"bytes"
	"fmt"
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
		r("ping", Pass, Fail, "checker-wrong", "no issue yet"),
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
		"our verdict racy":   {header + line("0.1.16", "server", "p", "s", "pass", "pass|fail", "checker-wrong", "#31", "", ""), `our verdict "pass|fail" is neither pass nor fail`},
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
		r("not-run", Fail, Fail, "", ""),
		r("was-disagreeing", Fail, Pass, "unobservable", "content"),
		r("changed", Pass, Pass, "", ""),
	}
	observed := []Row{
		r("agrees", Pass, Pass, "", ""),
		r("disagrees", Pass, Fail, "", ""),
		r("unexplained", Pass, Fail, "", ""),
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
		r("flipped", Fail, Pass, "unobservable", "content"),
	}
	observed := []Row{
		r("still-disagrees", Pass, Fail, "", ""),
		r("now-agrees", Pass, Pass, "", ""),
		r("agree-note", Fail, Fail, "", ""),
		r("new-disagreement", Fail, Pass, "", ""),
		r("flipped", Pass, Fail, "", ""),
	}
	got := Update(observed, table)
	type v struct {
		ours         Verdict
		reason, note string
	}
	want := map[string]v{
		"still-disagrees":  {Fail, "provoked", "on purpose"},
		"now-agrees":       {Pass, "", ""},
		"agree-note":       {Fail, "", "both fail, for different reasons"},
		"new-disagreement": {Pass, "", ""},
		// Disagreeing still, the other way round: the reason is kept, to
		// be judged again (Compare reports the changed verdicts).
		"flipped": {Fail, "unobservable", "content"},
	}
	for _, row := range got {
		w := want[row.Scenario]
		if row.OurVerdict != w.ours || row.Reason != w.reason || row.Note != w.note {
			t.Errorf("%s: %s %q %q, want %s %q %q", row.Scenario, row.OurVerdict, row.Reason, row.Note, w.ours, w.reason, w.note)
		}
	}
	agree, byReason := Counts(got)
	if agree != 2 || byReason["provoked"] != 1 || byReason["unobservable"] != 1 || byReason[""] != 1 {
		t.Errorf("counts: %d agree, %v", agree, byReason)
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

func TestRunFlippedAgain(t *testing.T) {
	table := []Row{
		r("ping", Pass, Pass, "", ""),
		r("sse-retry", Pass, Pass, "", ""),
		r("tools-call-error", Pass, Fail, "provoked", "on purpose"),
		r("logging", Pass, Pass, "", ""),
	}
	flipped := func(row Row, suite, ours Verdict) Row {
		row.SuiteVerdict, row.OurVerdict = suite, ours
		return row
	}
	for name, tc := range map[string]struct {
		observed []Row
		again    map[string]Row // the second run of a scenario; absent: it could not run
		want     []Row
		ran      []string // the scenarios run again
		said     string   // in what was logged
	}{
		"all as the table": {
			observed: table,
			want:     table,
		},
		"a flip that does not repeat is the second run": {
			observed: []Row{table[0], flipped(table[1], Fail, Pass)},
			again:    map[string]Row{"sse-retry": table[1]},
			want:     []Row{table[0], table[1]},
			ran:      []string{"sse-retry"},
			said:     "taken as timing",
		},
		"a flip that repeats stays": {
			observed: []Row{flipped(table[2], Pass, Pass)},
			again:    map[string]Row{"tools-call-error": flipped(table[2], Pass, Pass)},
			want:     []Row{flipped(table[2], Pass, Pass)},
			ran:      []string{"tools-call-error"},
			said:     "run again it gave suite pass, ours pass",
		},
		"a second run that flips the other way stays the first": {
			observed: []Row{flipped(table[3], Fail, Pass)},
			again:    map[string]Row{"logging": flipped(table[3], Pass, Fail)},
			want:     []Row{flipped(table[3], Fail, Pass)},
			ran:      []string{"logging"},
		},
		"a scenario that could not run again stays": {
			observed: []Row{flipped(table[0], Pass, Fail)},
			want:     []Row{flipped(table[0], Pass, Fail)},
			ran:      []string{"ping"},
			said:     "could not run it again",
		},
		"a scenario the table does not list is not run again": {
			observed: []Row{r("new-scenario", Pass, Fail, "", "")},
			want:     []Row{r("new-scenario", Pass, Fail, "", "")},
		},
	} {
		t.Run(name, func(t *testing.T) {
			var ran []string
			var said strings.Builder
			again := func(row Row) (Row, bool) {
				ran = append(ran, row.Scenario)
				second, ok := tc.again[row.Scenario]
				return second, ok
			}
			logf := func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			got := RunFlippedAgain(tc.observed, table, again, logf)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rows:\n got  %+v\n want %+v", got, tc.want)
			}
			if !reflect.DeepEqual(ran, tc.ran) {
				t.Errorf("run again: %v, want %v", ran, tc.ran)
			}
			if !strings.Contains(said.String(), tc.said) {
				t.Errorf("logged %q, want it to say %q", said.String(), tc.said)
			}
		})
	}
}
