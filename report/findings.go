package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// What failed, not only that something did: under each session's counters
// the text report lists its findings, one a line, as
//
//	LOG:LINE: SIGNAL[/RULE] [PARTY]: message
//
// the log as given (standard input as --log-name, or -), the line the frame
// came from (left out for a finding of the whole session), the signal, the
// catalogue rules that fired and who is at fault. Only the findings that fail the gate are
// listed, or every one with --verbose; MaxFindingLines at most per session.
// Scripts parse the counters, "check failed: " and "assertion failed: "
// lines, so no finding line may start like one: a log whose name would is
// shown as ./NAME, and the rest of the line is escaped peer text.

// MaxFindingLines is how many findings the text report lists per session.
const MaxFindingLines = 50

// reservedStarts are the starts of the lines scripts read.
var reservedStarts = []string{"session ", "assertion failed: ", "check "}

// findingsBySession groups a report's findings (assertions aside, which
// have lines of their own) by session.
func findingsBySession(rep *checker.Report) map[string][]*checker.Finding {
	out := map[string][]*checker.Finding{}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.RuleID == checker.RuleAssertion {
			continue
		}
		out[f.SessionID] = append(out[f.SessionID], f)
	}
	return out
}

// writeFindings lists a session's findings on the gated signals (all of
// them when verbose), then how many more there are past the cap.
func writeFindings(w io.Writer, s *checker.SessionReport, found []*checker.Finding, opts TextOptions) {
	total := s.Findings.Gated
	if opts.Verbose {
		total += s.Findings.Notes
	}
	shown := 0
	for _, f := range found {
		if f.Level != checker.LevelError && !opts.Verbose {
			continue
		}
		if shown == MaxFindingLines {
			break
		}
		fmt.Fprintln(w, FindingLine(f, opts.LogName))
		shown++
	}
	if more := total - shown; more > 0 {
		fmt.Fprintf(w, "… %d more (see --json or --sarif)\n", more)
	}
}

// FindingLine renders one finding as LOG:LINE: SIGNAL[/RULE] [PARTY]:
// message; a finding of standard input is named logName, or "-". A finding
// accepted by --known ends in "(known)", one of a signal or party not gated
// in "(not gated)".
func FindingLine(f *checker.Finding, logName string) string {
	log := f.Path
	if log == "" {
		log = logName
	}
	if log == "" {
		log = "-"
	}
	log = line(log)
	for _, r := range reservedStarts {
		if strings.HasPrefix(log, r) {
			log = "./" + log
			break
		}
	}
	var b strings.Builder
	b.WriteString(log)
	if f.Line > 0 {
		fmt.Fprintf(&b, ":%d", f.Line)
	}
	b.WriteString(": ")
	b.WriteString(string(f.Signal))
	var ids []string
	for _, r := range f.Rules {
		if r.ID != string(f.Signal) { // wire's one rule is the signal itself
			ids = append(ids, r.ID)
		}
	}
	if len(ids) > 0 {
		b.WriteString("/" + strings.Join(ids, ","))
	}
	if f.Party != "" {
		b.WriteString(" [" + string(f.Party) + "]")
	}
	b.WriteString(": ")
	text := f.Text
	if text == "" {
		text = f.Message
	}
	// A wire finding's text starts with its signal, which the line
	// already names.
	text = strings.TrimPrefix(text, string(f.Signal)+": ")
	b.WriteString(line(text))
	switch {
	case f.Known:
		b.WriteString(" (known)")
	case f.Level != checker.LevelError:
		b.WriteString(" (not gated)")
	}
	return b.String()
}

// VerdictLine is the text report's last line: "check passed", or what
// failed, in a line that scripts reading "check failed: " do not take for a
// session's, e.g. "result: 2 of 3 sessions failed the gate (error, warn);
// 1 assertion failed".
func VerdictLine(rep *checker.Report) string {
	if rep.Verdict == checker.Passed {
		return "check passed"
	}
	failed, assertions, stale := 0, 0, 0
	seen := map[checker.Signal]bool{}
	for _, s := range rep.Sessions {
		if len(s.FailedSignals) > 0 {
			failed++
		}
		for _, sig := range s.FailedSignals {
			seen[sig] = true
		}
		for _, a := range s.FailedAssertions() {
			if a.Name == checker.AssertionKnown {
				stale++
			} else {
				assertions++
			}
		}
	}
	var parts []string
	if failed > 0 {
		var sigs []string
		for _, sig := range checker.AllSignals {
			if seen[sig] {
				sigs = append(sigs, string(sig))
			}
		}
		parts = append(parts, fmt.Sprintf("%d of %d %s failed the gate (%s)", failed, len(rep.Sessions),
			plural(len(rep.Sessions), "session", "sessions"), strings.Join(sigs, ", ")))
	}
	if assertions > 0 {
		parts = append(parts, fmt.Sprintf("%d %s failed", assertions, plural(assertions, "assertion", "assertions")))
	}
	if stale > 0 {
		parts = append(parts, fmt.Sprintf("%d known %s no longer %s (stale)", stale, plural(stale, "finding", "findings"), plural(stale, "occurs", "occur")))
	}
	if len(parts) == 0 {
		parts = append(parts, "the check failed")
	}
	if k := rep.Known; k != nil && k.Accepted > 0 {
		parts = append(parts, fmt.Sprintf("%d known %s accepted", k.Accepted, plural(k.Accepted, "finding", "findings")))
	}
	return "result: " + strings.Join(parts, "; ")
}
