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
	OurVerdict   Verdict // Pass, Fail, or in the table RaceOrPass
	Reason       string
	Note         string
	SuiteFailed  string // the ids of the suite's failed checks (and warnings), comma-separated
	OurFindings  string // our gated findings, signal/rule with counts

	// What a run observed beyond the verdict (never in the table):
	// RaceOnly is a fail on the GET race's findings alone (see
	// RaceFindings); Racy says the scenario's client opened a session
	// that the race can hit (it sent initialize).
	RaceOnly bool
	Racy     bool
}

// RaceOrPass, as our verdict in the table, says: pass, or fail on the GET
// race's findings alone. The suite's TypeScript client opens its GET event
// stream after initialize without waiting for it and closes (DELETE) when
// the scenario is done; when the GET reaches the server first it is
// answered 405 (a stateless server), and when it comes after the DELETE,
// 404 (Go SDK) or 400 (server-everything). The log records neither the
// request's method nor its session id today, so check takes that answer
// for a failure; whether it comes is a race, so the verdict is pass or fail
// from run to run.
const RaceOrPass Verdict = "pass|fail"

// RaceFindings are the gated findings the GET race gives (as
// gatedFindings names them).
var RaceFindings = map[string]bool{
	"error/HTTP 405": true, "error/HTTP 404": true,
	"error/error response could not be matched to a call": true, "warn/W24": true,
}

// raceNote is the note -update gives a RaceOrPass row.
const raceNote = "the suite's client sends its GET unawaited after initialize: answered 405 (stateless) or, after the DELETE, 404/400, it fails us on a race; #31 item 1 (405 to GET/DELETE is no finding) and item 5 (http_method recorded) are expected to settle it"

func (r Row) key() string { return r.Suite + "\t" + r.Side + "\t" + r.Peer + "\t" + r.Scenario }

// Agree says whether the two verdicts are the same (a RaceOrPass row agrees
// with a suite pass only when it passes, so it is not counted as agreeing).
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
# names the issue that fixes it) or proxied. our_verdict pass|fail: pass, or
# fail on the GET race alone (agreement.go, RaceOrPass). suite_failed and
# our_findings are refreshed by go test -tags e2e ./e2e/conformance/ -update,
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
	switch r.OurVerdict {
	case Pass, Fail:
	case RaceOrPass:
		if r.SuiteVerdict != Pass || r.Reason == "" {
			return fmt.Errorf("our verdict %s needs a suite pass and a reason", RaceOrPass)
		}
	default:
		return fmt.Errorf("our verdict %q is not pass, fail or %s", r.OurVerdict, RaceOrPass)
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
// longer happens, and a listed scenario that did not run. A RaceOrPass row
// takes a pass or a fail on the race's findings alone, nothing else.
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
		case t.OurVerdict == RaceOrPass:
			if t.SuiteVerdict != o.SuiteVerdict || (o.OurVerdict == Fail && !o.RaceOnly) {
				problems = append(problems, fmt.Sprintf("%s: the table says suite %s, ours %s; this run gave suite %s, ours %s, and not on the GET race alone %s",
					where, t.SuiteVerdict, t.OurVerdict, o.SuiteVerdict, o.OurVerdict, detail))
			}
		case t.SuiteVerdict != o.SuiteVerdict || t.OurVerdict != o.OurVerdict:
			hint := ""
			if o.RaceOnly && t.OurVerdict == Pass {
				hint = fmt.Sprintf(": it failed on the GET race alone, so mark it %s", RaceOrPass)
			}
			problems = append(problems, fmt.Sprintf("%s: the table says suite %s, ours %s; this run gave suite %s, ours %s %s%s",
				where, t.SuiteVerdict, t.OurVerdict, o.SuiteVerdict, o.OurVerdict, detail, hint))
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
// agreement may say why both fail). With race set, a row the GET race can
// hit (Racy) that the suite passes and we pass or fail on the race alone
// is written RaceOrPass, with its reason.
func Update(observed, table []Row, race bool) []Row {
	listed := map[string]Row{}
	for _, r := range table {
		listed[r.key()] = r
	}
	rows := make([]Row, len(observed))
	for i, o := range observed {
		t, ok := listed[o.key()]
		o.Reason, o.Note = "", ""
		if race && o.Racy && o.SuiteVerdict == Pass && (o.OurVerdict == Pass || o.RaceOnly) {
			o.OurVerdict, o.Reason, o.Note = RaceOrPass, "checker-wrong", raceNote
			if ok && t.OurVerdict == RaceOrPass {
				o.Reason, o.Note = t.Reason, t.Note
			}
		} else if ok && t.OurVerdict != RaceOrPass && t.Agree() == o.Agree() {
			o.Note = t.Note
			if !o.Agree() {
				o.Reason = t.Reason
			}
		}
		rows[i] = o
	}
	return rows
}

// Counts sums the table up: agreements, rows that agree unless the GET
// race strikes, and disagreements by reason ("" for those without one).
func Counts(rows []Row) (agree, racy int, byReason map[string]int) {
	byReason = map[string]int{}
	for _, r := range rows {
		switch {
		case r.OurVerdict == RaceOrPass:
			racy++
		case r.Agree():
			agree++
		default:
			byReason[r.Reason]++
		}
	}
	return agree, racy, byReason
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
