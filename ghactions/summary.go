package ghactions

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	textreport "github.com/mcpsnoop/mcpsnoop/report" // check's text lines
)

// MaxSummaryBytes bounds the job summary. GitHub refuses a step summary
// over 1 MiB outright, so sessions past this budget are counted instead of
// shown.
const MaxSummaryBytes = 900 * 1024

// SlowestTools is how many tools each session's table lists.
const SlowestTools = 5

// MaxInteractions and MaxElicitations are how many multi-round-trip
// interactions and questions to the user each session's tables list.
const (
	MaxInteractions = 10
	MaxElicitations = 10
)

// maxQuestion is how many characters of a question the summary quotes.
const maxQuestion = 120

// MaxFindingLines is how many of a session's findings that fail the gate
// the summary lists, as the text report writes them.
const MaxFindingLines = 20

// everySession says which reports cover the sessions the summary leaves out.
func everySession(listed []string) string {
	switch len(listed) {
	case 0:
		return "A --sarif, --junit or --json report would cover every session."
	case 1:
		return "The " + listed[0] + " report covers every session."
	}
	return "The " + strings.Join(listed[:len(listed)-1], ", ") + " and " + listed[len(listed)-1] + " reports cover every session."
}

// counterColumns are the counters in the order of the text report.
var counterColumns = []struct {
	head   string
	signal checker.Signal
}{
	{"errors", checker.SignalError},
	{"invalid", checker.SignalInvalid},
	{"warnings", checker.SignalWarn},
	{"mismatches", checker.SignalMismatch},
	{"pending", checker.SignalPending},
	{"late results", checker.SignalLateResult},
	{"drift", checker.SignalDrift},
	{"deprecated", checker.SignalDeprecated},
	{"missing frames", checker.SignalIncomplete},
	{"schema", checker.SignalSchema},
	{"wire", checker.SignalWire}, // only when schema validation ran
}

// Summary renders the job summary: a headline with the verdict and the
// output counts, then per session a table of its counters (gated signals
// that fired in bold), the failed signals and assertions, its slowest tools
// by p95 latency, its multi-round-trip interactions and the questions its
// servers put to the user. Text from the log is escaped so that it cannot
// open links, HTML or table cells.
func Summary(rep *checker.Report, opts Options) string {
	var b strings.Builder
	out := ComputeOutputs(rep, opts)
	mark := "✅"
	if rep.Verdict != checker.Passed {
		mark = "❌"
	}
	fmt.Fprintf(&b, "## %s mcpsnoop check: %s\n\n", mark, rep.Verdict)
	gate := make([]string, len(rep.FailOn))
	for i, s := range rep.FailOn {
		gate[i] = string(s)
	}
	gateFlags := "--fail-on " + strings.Join(gate, ",")
	if len(rep.Blame) > 0 && len(rep.Blame) < len(checker.BlameParties) {
		parties := make([]string, len(rep.Blame))
		for i, p := range rep.Blame {
			parties[i] = string(p)
		}
		gateFlags += " --blame " + strings.Join(parties, ",")
	}
	fmt.Fprintf(&b, "%s checked · gate `%s` · %s · %s · %s on gated signals\n\n",
		plural(len(rep.Sessions), "session"), gateFlags,
		plural(*out.Errors, "error"), plural(*out.Warnings, "warning"), plural(*out.Findings, "finding"))
	if rep.FindingsTruncated > 0 {
		fmt.Fprintf(&b, "The check kept %d of %d findings; the counters below are exact.\n\n", len(rep.Findings), rep.FindingsTotal)
	}
	failing := gatedFindings(rep)
	for i, s := range rep.Sessions {
		section := sessionSection(s, failing[s.ID], opts)
		if b.Len()+len(section) > MaxSummaryBytes {
			fmt.Fprintf(&b, "%s not shown: the summary is capped at %d KiB. %s\n", plural(len(rep.Sessions)-i, "more session"), MaxSummaryBytes/1024, everySession(opts.Listed))
			break
		}
		b.WriteString(section)
	}
	return b.String()
}

// ErrorSummary is the summary of a check that judged nothing.
func ErrorSummary(reason string) string {
	return fmt.Sprintf("## ⚠️ mcpsnoop check: error\n\nNothing was checked: %s\n", escape(reason))
}

// gatedFindings are the findings that fail the gate (assertions aside,
// which are listed on their own), by session, in report order.
func gatedFindings(rep *checker.Report) map[string][]*checker.Finding {
	out := map[string][]*checker.Finding{}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.Level == checker.LevelError && f.RuleID != checker.RuleAssertion {
			out[f.SessionID] = append(out[f.SessionID], f)
		}
	}
	return out
}

// writeFindingLines lists the session's findings that fail the gate, as
// the text report's lines (LOG:LINE: SIGNAL[/RULE] [PARTY]: message), in
// an indented code block: shown as written, never as Markdown or HTML
// (report.FindingLine has already made control characters visible and
// kept each on one line). At most MaxFindingLines, then how many more.
func writeFindingLines(b *strings.Builder, s *checker.SessionReport, found []*checker.Finding, opts Options) {
	total := max(s.Findings.Gated, len(found))
	if total == 0 {
		return
	}
	shown := found[:min(len(found), MaxFindingLines)]
	fmt.Fprintf(b, "Findings that fail the gate (%d of %d):\n\n", len(shown), total)
	for _, f := range shown {
		b.WriteString("    " + textreport.FindingLine(f, opts.LogName) + "\n")
	}
	b.WriteString("\n")
	if more := total - len(shown); more > 0 {
		fmt.Fprintf(b, "%s not listed. %s\n\n", plural(more, "more finding"), everyReport(opts.Listed))
	}
}

// everyReport says which reports list every finding.
func everyReport(listed []string) string {
	switch len(listed) {
	case 0:
		return "A --sarif, --junit or --json report would list them all."
	case 1:
		return "The " + listed[0] + " report lists them all."
	}
	return "The " + strings.Join(listed[:len(listed)-1], ", ") + " and " + listed[len(listed)-1] + " reports list them all."
}

// sessionSection is one session's part of the summary.
func sessionSection(s *checker.SessionReport, failing []*checker.Finding, opts Options) string {
	var b strings.Builder
	mark := "✅"
	if s.Failed() {
		mark = "❌"
	}
	fmt.Fprintf(&b, "### %s session %s\n\n", mark, escape(s.ID))
	var about []string
	if s.Label != "" {
		about = append(about, "server "+escape(s.Label))
	}
	if s.Transport != "" {
		about = append(about, escape(s.Transport))
	}
	if s.Source.Name != "" {
		src := escape(s.Source.Name)
		if s.Source.FirstLine > 1 { // a log holding several sessions
			src += fmt.Sprintf(" from line %d", s.Source.FirstLine)
		}
		about = append(about, src)
	}
	if len(about) > 0 {
		b.WriteString(strings.Join(about, " · ") + "\n\n")
	}

	var heads, aligns, cells []string
	for _, c := range counterColumns {
		if c.signal == checker.SignalWire && s.Wire == nil {
			continue
		}
		n := strconv.Itoa(s.Counters.Count(c.signal))
		if slices.Contains(s.FailedSignals, c.signal) {
			n = "**" + n + "**"
		}
		heads, aligns, cells = append(heads, c.head), append(aligns, "---:"), append(cells, n)
	}
	writeRow(&b, heads)
	writeRow(&b, aligns)
	writeRow(&b, cells)
	b.WriteString("\n")

	if len(s.FailedSignals) > 0 {
		names := make([]string, len(s.FailedSignals))
		for i, sig := range s.FailedSignals {
			names[i] = string(sig)
		}
		fmt.Fprintf(&b, "**Failed signals:** %s\n\n", strings.Join(names, ", "))
	}
	writeFindingLines(&b, s, failing, opts)
	writeParties(&b, s)
	if failed := s.FailedAssertions(); len(failed) > 0 {
		b.WriteString("**Failed assertions:**\n\n")
		for _, a := range failed {
			fmt.Fprintf(&b, "- %s\n", escape(a.Message))
		}
		b.WriteString("\n")
	}
	if tools := slowest(s.Tools, SlowestTools); len(tools) > 0 {
		fmt.Fprintf(&b, "Slowest tools by p95 (%d of %d):\n\n", len(tools), len(s.Tools))
		writeRow(&b, []string{"tool", "calls", "errors", "pending", "p50", "p95", "p99", "round trips"})
		writeRow(&b, []string{"---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"})
		for _, t := range tools {
			writeRow(&b, []string{
				escape(t.Name), strconv.Itoa(t.Calls), strconv.Itoa(t.Errors), strconv.Itoa(t.Pending),
				millis(t.P50Ms), millis(t.P95Ms), millis(t.P99Ms), strconv.Itoa(t.RoundTrips),
			})
		}
		b.WriteString("\n")
	}
	writeInteractions(&b, s)
	writeElicitations(&b, s)
	return b.String()
}

// writeParties says whom the session's findings blame: per party, how
// many, and how many of them fail the gate.
func writeParties(b *strings.Builder, s *checker.SessionReport) {
	if len(s.Parties) == 0 {
		return
	}
	parts := make([]string, len(s.Parties))
	for i, p := range s.Parties {
		switch {
		case p.Gated == p.Total:
			parts[i] = fmt.Sprintf("%s %d", p.Party, p.Total)
		case p.Gated == 0:
			parts[i] = fmt.Sprintf("%s %d (not gated)", p.Party, p.Total)
		default:
			parts[i] = fmt.Sprintf("%s %d (%d gated)", p.Party, p.Total, p.Gated)
		}
	}
	fmt.Fprintf(b, "**Findings by party:** %s\n\n", strings.Join(parts, " · "))
}

// writeInteractions lists the session's multi-round-trip interactions (MRTR
// chains), the first MaxInteractions of them.
func writeInteractions(b *strings.Builder, s *checker.SessionReport) {
	total := len(s.Interactions) + s.InteractionsTruncated
	if total == 0 {
		return
	}
	shown := s.Interactions[:min(MaxInteractions, len(s.Interactions))]
	fmt.Fprintf(b, "Multi-round-trip interactions (%d of %d):\n\n", len(shown), total)
	writeRow(b, []string{"call", "round trips", "outcome", "duration", "server", "client"})
	writeRow(b, []string{"---", "---:", "---", "---:", "---:", "---:"})
	for _, it := range shown {
		call := escape(it.Method)
		if it.Name != "" {
			call += " " + escape(it.Name)
		}
		writeRow(b, []string{
			call, strconv.Itoa(it.RoundTrips), escape(it.Outcome),
			millis(it.DurationMs), millis(it.ServerTimeMs), millis(it.ClientTurnaroundMs),
		})
	}
	b.WriteString("\n")
}

// writeElicitations lists the questions the session's servers put to the
// user (never a submitted value: the ledger holds none), the first
// MaxElicitations of them.
func writeElicitations(b *strings.Builder, s *checker.SessionReport) {
	total := len(s.Elicitations) + s.ElicitationsTruncated
	if total == 0 {
		return
	}
	shown := s.Elicitations[:min(MaxElicitations, len(s.Elicitations))]
	fmt.Fprintf(b, "Questions to the user (%d of %d):\n\n", len(shown), total)
	writeRow(b, []string{"call", "mode", "question", "asked for", "answer", "after"})
	writeRow(b, []string{"---", "---", "---", "---", "---", "---:"})
	for _, e := range shown {
		call := escape(e.Method)
		if e.Name != "" {
			call += " " + escape(e.Name)
		}
		asked := e.Host
		if e.Mode != "url" {
			names := make([]string, len(e.Fields))
			for i, f := range e.Fields {
				names[i] = f.Name + " (" + f.Type + ")"
			}
			asked = strings.Join(names, ", ")
		}
		answer, after := e.Action, ""
		if e.Pending {
			answer = "pending"
		}
		if e.ElapsedMs != nil {
			after = millis(*e.ElapsedMs)
		}
		writeRow(b, []string{call, escape(e.Mode), escape(clip(e.Message, maxQuestion)), escape(clip(asked, maxQuestion)), escape(answer), after})
	}
	b.WriteString("\n")
}

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// slowest returns up to n tools, highest p95 first (ties by name).
func slowest(tools []checker.ToolStats, n int) []checker.ToolStats {
	out := append([]checker.ToolStats(nil), tools...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].P95Ms != out[j].P95Ms {
			return out[i].P95Ms > out[j].P95Ms
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(n, len(out))]
}

func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// millis formats a latency to a tenth: "12 ms", "0.4 ms", "38.2 s".
func millis(ms float64) string {
	unit := " ms"
	if ms >= 1000 {
		ms, unit = ms/1000, " s"
	}
	return strings.TrimSuffix(strconv.FormatFloat(ms, 'f', 1, 64), ".0") + unit
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// markdownEscaper backslash-escapes what could start emphasis, code, a
// link (autolinks too), an image, HTML or a table cell, and flattens line
// breaks, so a
// value from a log stays one literal run of text (in a table cell too).
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "~", `\~`, "#", `\#`, "!", `\!`, "&", `\&`,
	// GitHub turns bare URLs, www. hosts and e-mail addresses into links;
	// an escaped colon, dot or at sign keeps them literal text.
	":", `\:`, ".", `\.`, "@", `\@`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// escape makes text from a log one literal run of Markdown: control and
// bidirectional characters made visible (termsafe, as on a terminal), then
// the Markdown escaped.
func escape(s string) string { return markdownEscaper.Replace(termsafe.Clean(s, false)) }
