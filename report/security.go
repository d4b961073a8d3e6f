package report

import (
	"fmt"
	"io"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/security"
)

// writeSecurity writes a session's "security findings:" block: each rule
// that fired, its severity and count, and what it looks for. It is written
// only when the security rules ran; like wire it is not on the counters
// line, whose wording scripts parse.
func writeSecurity(w io.Writer, s *checker.SessionReport) {
	sum := s.Security
	if sum == nil {
		return
	}
	fmt.Fprintln(w, "security findings:")
	if len(sum.Rules) == 0 {
		fmt.Fprintln(w, "  none")
		return
	}
	for _, r := range sum.Rules {
		rule, _ := security.RuleByID(r.Rule)
		note := ""
		if rule.Note {
			note = ", notes, never gated"
		}
		fmt.Fprintf(w, "  %s %s: %d %s (%s%s)\n", r.Rule, r.Severity, r.Findings, plural(r.Findings, "finding", "findings"), rule.Title, note)
	}
}
