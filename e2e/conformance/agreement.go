package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Row is one scenario's line of agreement.tsv: which suite version ran it,
// against which side and which peer, the two verdicts, and for a
// disagreement the reason and a note saying why. SuiteFailed and
// OurFindings say what each side objected to; they are refreshed by
// -update and never compared, so that a rule that changes what a failing
// scenario reports, and not whether it fails, does not fail the step.
type Row struct {
	Suite        string // the suite's version, 0.1.16 or 0.2.0-alpha.12
	Side         string // server or client: what the scenario tests
	Peer         string // the server or client under test
	Scenario     string
	SuiteVerdict Verdict
	OurVerdict   Verdict
	Reason       string
	Note         string
	SuiteFailed  string // the ids of the suite's failed checks (and warnings), comma-separated
	OurFindings  string // our gated findings, signal/rule with counts
}

func (r Row) key() string { return r.Suite + "\t" + r.Side + "\t" + r.Peer + "\t" + r.Scenario }

// Agree says whether the two verdicts are the same.
func (r Row) Agree() bool { return r.SuiteVerdict == r.OurVerdict }

// The reasons a disagreement may have. See docs/guides/conformance.md.
var reasons = map[string]string{
	// The suite probes something a recording cannot show (a check made on
	// the suite's side of the wire, a tool's expected content).
	"unobservable": "",
	// The suite sends faults on purpose; the --blame used settles who is
	// judged, and the fault it provoked decides the suite's verdict.
	"provoked": "",
	// We are right and the suite is not: the note quotes the spec.
	"suite-missed": "the note must quote the specification",
	// Our verdict is wrong today: the note names the issue that fixes it
	// (#NN), or says there is none yet.
	"checker-wrong": "the note must name the issue that fixes it (#NN) or say \"no issue yet\"",
	// The suite's verdict is about the proxy, not the peer: a reverse proxy
	// on another origin changes what the peer sees (OAuth's resource URL).
	"proxied": "",
}

var issueRef = regexp.MustCompile(`#\d+|no issue yet`)

// columns is the table's header line.
var columns = []string{"suite", "side", "peer", "scenario", "suite_verdict", "our_verdict", "reason", "note", "suite_failed", "our_findings"}

// tableHeader is the comment the table starts with.
const tableHeader = `# The official MCP conformance suite's verdict and mcpsnoop's, per scenario
# (docs/guides/conformance.md). A disagreement needs a reason: unobservable,
# provoked, suite-missed (the note quotes the spec), checker-wrong (the note
# names the issue that fixes it, or says "no issue yet") or proxied.
# suite_failed and our_findings are refreshed by go test -tags e2e ./e2e/conformance/ -update,
# which keeps the reasons and notes of rows that still disagree.
`

// ReadTable reads agreement.tsv.
func ReadTable(r io.Reader, name string) ([]Row, error) {
	var rows []Row
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	header := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, "\t")
		if !header {
			if strings.Join(cells, "\t") != strings.Join(columns, "\t") {
				return nil, fmt.Errorf("%s:%d: the header must be %q", name, n, strings.Join(columns, " "))
			}
			header = true
			continue
		}
		if len(cells) != len(columns) {
			return nil, fmt.Errorf("%s:%d: %d cells, want %d", name, n, len(cells), len(columns))
		}
		row := Row{Suite: cells[0], Side: cells[1], Peer: cells[2], Scenario: cells[3], SuiteVerdict: Verdict(cells[4]), OurVerdict: Verdict(cells[5]),
			Reason: cells[6], Note: cells[7], SuiteFailed: cells[8], OurFindings: cells[9]}
		if err := row.valid(); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", name, n, row.Scenario, err)
		}
		if first, dup := seen[row.key()]; dup {
			return nil, fmt.Errorf("%s:%d: the same scenario as line %d", name, n, first)
		}
		seen[row.key()] = n
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !header {
		return nil, fmt.Errorf("%s: no header line", name)
	}
	return rows, nil
}

// valid checks what a row of the table may say.
func (r Row) valid() error {
	if r.SuiteVerdict != Pass && r.SuiteVerdict != Fail {
		return fmt.Errorf("suite verdict %q is neither pass nor fail", r.SuiteVerdict)
	}
	if r.OurVerdict != Pass && r.OurVerdict != Fail {
		return fmt.Errorf("our verdict %q is neither pass nor fail", r.OurVerdict)
	}
	if r.Reason == "" {
		return nil
	}
	need, ok := reasons[r.Reason]
	switch {
	case !ok:
		return fmt.Errorf("unknown reason %q (known: unobservable, provoked, suite-missed, checker-wrong, proxied)", r.Reason)
	case r.Agree():
		return fmt.Errorf("a reason (%s) on a row whose verdicts agree", r.Reason)
	case r.Reason == "suite-missed" && !strings.Contains(r.Note, `"`):
		return fmt.Errorf("reason suite-missed: %s", need)
	case r.Reason == "checker-wrong" && !issueRef.MatchString(r.Note):
		return fmt.Errorf("reason checker-wrong: %s", need)
	}
	return nil
}

// WriteTable writes rows as agreement.tsv, sorted by suite, side, peer and
// scenario.
func WriteTable(w io.Writer, rows []Row) error {
	rows = append([]Row(nil), rows...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].key() < rows[j].key() })
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	var b bytes.Buffer
	b.WriteString(tableHeader)
	b.WriteString(strings.Join(columns, "\t") + "\n")
	for _, r := range rows {
		cells := []string{r.Suite, r.Side, r.Peer, r.Scenario, string(r.SuiteVerdict), string(r.OurVerdict), r.Reason, r.Note, r.SuiteFailed, r.OurFindings}
		for i, c := range cells {
			cells[i] = clean.Replace(c)
		}
		b.WriteString(strings.Join(cells, "\t") + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Compare holds what a run observed to the table and says what is wrong:
// a scenario the table does not list or lists with other verdicts, a
// disagreement without a reason, a reason for a disagreement that no
// longer happens, and a listed scenario that did not run.
func Compare(observed, table []Row) []string {
	listed := map[string]Row{}
	for _, r := range table {
		listed[r.key()] = r
	}
	var problems []string
	ran := map[string]bool{}
	for _, o := range observed {
		ran[o.key()] = true
		t, ok := listed[o.key()]
		where := fmt.Sprintf("%s %s %s %s", o.Suite, o.Side, o.Peer, o.Scenario)
		detail := fmt.Sprintf("(suite failed: %s; our findings: %s)", orNone(o.SuiteFailed), orNone(o.OurFindings))
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: not in the table: suite %s, ours %s %s", where, o.SuiteVerdict, o.OurVerdict, detail))
		case t.SuiteVerdict != o.SuiteVerdict || t.OurVerdict != o.OurVerdict:
			problems = append(problems, fmt.Sprintf("%s: the table says suite %s, ours %s; this run gave suite %s, ours %s %s",
				where, t.SuiteVerdict, t.OurVerdict, o.SuiteVerdict, o.OurVerdict, detail))
		case !o.Agree() && t.Reason == "":
			problems = append(problems, fmt.Sprintf("%s: suite %s, ours %s, and the table gives no reason %s", where, o.SuiteVerdict, o.OurVerdict, detail))
		case o.Agree() && t.Reason != "":
			problems = append(problems, fmt.Sprintf("%s: both %s now, yet the table lists a disagreement (%s): remove it", where, o.OurVerdict, t.Reason))
		}
	}
	for _, t := range table {
		if !ran[t.key()] {
			problems = append(problems, fmt.Sprintf("%s %s %s %s: in the table, but did not run", t.Suite, t.Side, t.Peer, t.Scenario))
		}
	}
	return problems
}

// Update is the table as -update writes it: the observed rows, each
// keeping the reason the table gave it while it still disagrees, and its
// note while it still agrees or disagrees as the table said (a note on an
// agreement may say why both fail).
func Update(observed, table []Row) []Row {
	listed := map[string]Row{}
	for _, r := range table {
		listed[r.key()] = r
	}
	rows := make([]Row, len(observed))
	for i, o := range observed {
		t, ok := listed[o.key()]
		o.Reason, o.Note = "", ""
		if ok && t.Agree() == o.Agree() {
			o.Note = t.Note
			if !o.Agree() {
				o.Reason = t.Reason
			}
		}
		rows[i] = o
	}
	return rows
}

// RunFlippedAgain gives each observed row whose verdicts differ from the
// table's a second run (again, which reports false when it could not run
// the scenario) and keeps the second run's row when it gives the table's
// verdicts. Some of the suite's checks time what the peers do (sse-retry
// times a reconnection against a 200 ms tolerance; a client's timeout
// decides another), so on a loaded machine a verdict can flip with no
// change in the peers or in mcpsnoop: a flip that repeats is a
// disagreement, one that does not is told to logf with both runs' details.
// Rows the table does not list, or lists with the same verdicts, are not
// run again.
func RunFlippedAgain(observed, table []Row, again func(Row) (Row, bool), logf func(format string, args ...any)) []Row {
	listed := map[string]Row{}
	for _, r := range table {
		listed[r.key()] = r
	}
	out := make([]Row, len(observed))
	copy(out, observed)
	for i, o := range observed {
		want, ok := listed[o.key()]
		if !ok || (want.SuiteVerdict == o.SuiteVerdict && want.OurVerdict == o.OurVerdict) {
			continue
		}
		where := fmt.Sprintf("%s %s %s %s", o.Suite, o.Side, o.Peer, o.Scenario)
		second, ran := again(o)
		switch {
		case !ran || second.key() != o.key():
			logf("%s: could not run it again", where)
		case second.SuiteVerdict == want.SuiteVerdict && second.OurVerdict == want.OurVerdict:
			logf("%s: the first run gave suite %s, ours %s (suite failed: %s; our findings: %s); run again it gave the table's suite %s, ours %s: taken as timing, not a change",
				where, o.SuiteVerdict, o.OurVerdict, orNone(o.SuiteFailed), orNone(o.OurFindings), want.SuiteVerdict, want.OurVerdict)
			out[i] = second
		default:
			logf("%s: run again it gave suite %s, ours %s (suite failed: %s; our findings: %s)",
				where, second.SuiteVerdict, second.OurVerdict, orNone(second.SuiteFailed), orNone(second.OurFindings))
		}
	}
	return out
}

// Counts sums the table up: agreements, and disagreements by reason (""
// for those without one).
func Counts(rows []Row) (agree int, byReason map[string]int) {
	byReason = map[string]int{}
	for _, r := range rows {
		if r.Agree() {
			agree++
		} else {
			byReason[r.Reason]++
		}
	}
	return agree, byReason
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
