package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/security"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/mcpsnoop/mcpsnoop/report"
)

// The rule catalogue page: an introduction, a table of every rule by
// revision, and a section per rule with every field the catalogue has.
// Fields of checker.Rule this file does not know yet (one added to the
// catalogue later) are shown too, by name, in the table and in each
// section, so the page never leaves one out.

// knownRuleFields are the checker.Rule fields rendered by name below.
var knownRuleFields = []string{"ID", "Signal", "Mismatch", "Party", "Family", "Text", "Since", "HTTPOnly", "Gate", "Example"}

const rulesIntro = `# The rule catalogue

<!-- Generated from the checker's rule catalogue (checker/rulecatalog.go) by go -C tools/docgen run . -- do not edit. -->

Every ` + "`warn`" + ` rule (W1–W45 as the reference tool numbers them, W46–W61
ours), the server's own ` + "`-32020`" + ` (M1) and ` + "`wire`" + `, with the protocol
revisions each is judged under (✓) and the section of the specification it
enforces. Where the section moved between revisions both are linked. The
same links reach the reports: the JSON report's findings carry ` + "`rules`" + `
(` + "`id`, `spec_url`" + ` for the frame's revision), SARIF results the properties
` + "`mcpsnoop/rules` and `mcpsnoop/specUris`" + `, and ` + "`check --verbose`" + ` lists each
rule that fired in a session with its link. A revision is "judged" when the
engine applies the rule to frames of it: most 2026-07-28 rules apply to a
request that declares 2026-07-28 or later (in ` + "`_meta`" + `, or the
` + "`MCP-Protocol-Version`" + ` header), and the rules marked HTTP only to
streamable-HTTP frames. The signals themselves are described in
[What is counted](../guides/checking.md#what-is-counted).

` + "```sh" + `
mcpsnoop check --explain W24      # a rule: text, signal, party, revisions, spec link per revision, an example
mcpsnoop check --explain all      # the catalogue, one rule a line
mcpsnoop check --explain mismatch # the rules whose frames count as mismatch
mcpsnoop check --explain signals  # each signal and the party its findings blame
` + "```" + `

` + "```console runnable" + `
$ mcpsnoop check --explain W13
W13: result is missing required resultType
  signal:    warn (in the default gate)
  party:     server
  family:    Result types
  judged on: a result to a request that declared 2026-07-28 or later (not initialize)
  revisions: 2026-07-28; any transport
  spec:
             2026-07-28  https://modelcontextprotocol.io/specification/2026-07-28/basic/index#resulttype
  example:   session s1 line 7: result is missing required resultType
` + "```" + `

In the table, *finding* is the message template (` + "`<placeholders>`" + ` stand for
what the frame says); each rule's section below adds its family, what else
must hold for it to be judged, and an example finding.

`

// rulesPage renders docs/reference/rules.md.
func rulesPage() []byte {
	rules := checker.Rules()
	extra := extraRuleFields()
	var b strings.Builder
	b.WriteString(rulesIntro)
	writeRuleTable(&b, rules, extra)
	writeSignalParties(&b)
	b.WriteString("\n## The rules\n")
	for i := range rules {
		writeRuleSection(&b, &rules[i], extra)
	}
	writeSecurityRules(&b)
	return []byte(b.String())
}

// writeSecurityRules lists the security signal's rules (package
// checker/security), which docs/reference/security.md explains in full.
func writeSecurityRules(b *strings.Builder) {
	b.WriteString("\n## The security rules\n\n")
	b.WriteString("The opt-in `security` signal (`--fail-on security`, or `--security` to count it\n" +
		"without gating) has rules of its own, one SARIF rule each (`mcpsnoop/security/S<n>`,\n" +
		"with `security-severity` and `tags`). [Security rules](security.md) says what each\n" +
		"looks for, what it does not catch, and how to accept a reviewed finding.\n\n")
	b.WriteString("| rule | severity | security-severity | CWE | finds | party | gated |\n|---|---|---|---|---|---|---|\n")
	for _, r := range security.Rules {
		party, gated := "server", "yes"
		if r.ID == "S7" {
			party = "sender"
		}
		if r.Note {
			gated = "no (notes)"
		}
		cwe := r.CWE
		if cwe == "" {
			cwe = "–"
		}
		fmt.Fprintf(b, "| [%s](security.md#%s) | %s | %s | %s | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Severity, r.Score, cwe, cell(r.Title), party, gated)
	}
	b.WriteString("\nExamples:\n\n")
	for _, r := range security.Rules {
		fmt.Fprintf(b, "- %s\n", code(r.Example))
	}
}

// writeRuleTable writes which rules apply to which revisions, and the spec
// section each enforces.
func writeRuleTable(b *strings.Builder, rules []checker.Rule, extra []string) {
	b.WriteString("| rule | signal | party |")
	for _, rev := range wire.Revisions {
		b.WriteString(" " + rev + " |")
	}
	for _, f := range extra {
		b.WriteString(" " + f + " |")
	}
	b.WriteString(" spec | finding |\n|---|---|---|")
	for range wire.Revisions {
		b.WriteString(":-:|")
	}
	for range extra {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for i := range rules {
		r := &rules[i]
		fmt.Fprintf(b, "| [%s](#%s) | %s | %s |", r.ID, ruleAnchor(r), signalLabel(r), r.Party)
		for _, rev := range wire.Revisions {
			mark := " "
			if r.AppliesTo(rev) {
				mark = "✓"
			}
			b.WriteString(" " + mark + " |")
		}
		for _, f := range extra {
			b.WriteString(" " + cell(fieldText(r, f)) + " |")
		}
		b.WriteString(" " + strings.Join(specLinks(r), ", ") + " | " + code(report.RuleText(r.Text)) + " |\n")
	}
}

// writeRuleSection writes everything the catalogue says of one rule.
func writeRuleSection(b *strings.Builder, r *checker.Rule, extra []string) {
	fmt.Fprintf(b, "\n### %s\n\n", r.ID)
	fmt.Fprintf(b, "`%s`\n\n", report.RuleText(r.Text))
	signal := string(r.Signal)
	if slices.Contains(checker.DefaultFailOn, r.Signal) {
		signal += " (in the default gate)"
	}
	if r.Mismatch {
		signal += "; its frames count as `mismatch` too"
	}
	transport := "any transport"
	if r.HTTPOnly {
		transport = "streamable HTTP only"
	}
	since := "every revision"
	if r.Since != "" {
		since = r.Since + " and later"
	}
	fmt.Fprintf(b, "* **signal**: %s\n", signal)
	fmt.Fprintf(b, "* **party**: %s\n", partyText(r))
	fmt.Fprintf(b, "* **family**: %s\n", r.Family)
	fmt.Fprintf(b, "* **judged on**: %s\n", r.Gate)
	fmt.Fprintf(b, "* **revisions**: %s (%s); %s\n", strings.Join(r.Revisions(), ", "), since, transport)
	for _, f := range extra {
		fmt.Fprintf(b, "* **%s**: %s\n", f, fieldText(r, f))
	}
	if r.ID == checker.RuleWire {
		var links []string
		for _, rev := range wire.Revisions {
			links = append(links, fmt.Sprintf("[%s](%s)", rev, strings.TrimSuffix(wire.SpecURL(rev, ""), "#")))
		}
		fmt.Fprintf(b, "* **spec**: the schema reference of the session's revision, at the definition the message broke: %s\n", strings.Join(links, ", "))
	} else {
		var links []string
		for _, u := range r.SpecURLs() {
			links = append(links, fmt.Sprintf("[%s](%s) (from %s)", u.Path, u.URL, u.Revision))
		}
		fmt.Fprintf(b, "* **spec**: %s\n", strings.Join(links, ", "))
	}
	fmt.Fprintf(b, "* **example**: `%s`\n", r.Example)
}

// specLinks are the table's links: each page, labelled with the newest
// revision it holds for.
func specLinks(r *checker.Rule) []string {
	if r.ID == checker.RuleWire {
		return []string{"[schema](" + checker.SpecBase + wire.Revisions[len(wire.Revisions)-1] + "/schema) of the session's revision"}
	}
	var links []string
	pages := r.SpecURLs()
	revs := r.Revisions()
	for i, p := range pages {
		label := p.Path
		newest := revs[len(revs)-1]
		if i+1 < len(pages) {
			for _, rev := range revs {
				if rev < pages[i+1].Revision {
					newest = rev
				}
			}
			label += " (to " + newest + ")"
		} else if len(pages) > 1 {
			label += " (" + p.Revision + " on)"
		}
		links = append(links, "["+label+"]("+r.SpecURL(newest)+")")
	}
	return links
}

// partyText says whom a rule's findings blame.
func partyText(r *checker.Rule) string {
	switch {
	case r.ID == "M1":
		return "server; client when the request's routing headers disagreed with its body"
	case r.Party == checker.PartySender:
		return "sender (whichever side sent the frame)"
	}
	return string(r.Party)
}

// writeSignalParties lists whom each signal's findings blame.
func writeSignalParties(b *strings.Builder) {
	b.WriteString("\n## Who each signal blames\n\n")
	b.WriteString("Every finding names its party at fault; `check --blame` gates on chosen parties ")
	b.WriteString("([Who is at fault](../guides/checking.md#who-is-at-fault---blame)). A rule's own party is in the table ")
	b.WriteString("above; `sender` is whichever side sent the frame. Assertions blame `run`.\n\n")
	b.WriteString("| signal | party |\n|---|---|\n")
	for _, sig := range checker.AllSignals {
		fmt.Fprintf(b, "| `%s` | %s |\n", sig, cell(checker.SignalParty[sig]))
	}
}

// signalLabel is the table's signal column: "warn, mismatch (HTTP)".
func signalLabel(r *checker.Rule) string {
	s := string(r.Signal)
	if r.Mismatch {
		s += ", mismatch"
	}
	if r.HTTPOnly {
		s += " (HTTP)"
	}
	return s
}

// ruleAnchor is the anchor GitHub gives the rule's "### W24" heading.
func ruleAnchor(r *checker.Rule) string { return strings.ToLower(r.ID) }

// code puts a template in a code span (its <placeholders> are not HTML),
// pipes escaped for a table.
func code(s string) string { return "`" + strings.ReplaceAll(s, "|", "\\|") + "`" }

// cell escapes a value for a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// extraRuleFields lists the exported fields of checker.Rule this page does
// not render by name, in declaration order.
func extraRuleFields() []string {
	var out []string
	t := reflect.TypeFor[checker.Rule]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.IsExported() && !slices.Contains(knownRuleFields, f.Name) {
			out = append(out, f.Name)
		}
	}
	return out
}

// fieldText renders a field of r by name: a value as fmt prints it, "" as
// "-".
func fieldText(r *checker.Rule, name string) string {
	v := reflect.ValueOf(*r).FieldByName(name)
	s := fmt.Sprint(v.Interface())
	if s == "" || (v.Kind() == reflect.Slice && v.Len() == 0) {
		return "-"
	}
	return s
}
