// Package report renders a checker.Report as check's text summary and as
// the JSON document of `check --json`. SARIF and JUnit have packages of
// their own.
package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// WriteText writes the text summary: per session, the counters line, the
// gated signals that fired and the failed assertions; then "check passed"
// when nothing failed anywhere. These lines are parsed by scripts, so their
// wording is fixed.
func WriteText(w io.Writer, rep *checker.Report) error {
	bw := bufio.NewWriter(w)
	for _, s := range rep.Sessions {
		c := s.Counters
		fmt.Fprintf(bw, "session %s: errors=%d invalid=%d warnings=%d mismatches=%d pending=%d late_results=%d deprecated=%d missing_frames=%d schema_findings=%d\n",
			s.ID, c.Errors, c.Invalid, c.Warnings, c.Mismatches, c.Pending, c.LateResults, c.Deprecated, c.MissingFrames, c.SchemaFindings)
		if len(s.FailedSignals) > 0 {
			names := make([]string, len(s.FailedSignals))
			for i, sig := range s.FailedSignals {
				names[i] = string(sig)
			}
			fmt.Fprintf(bw, "check failed: %s\n", strings.Join(names, ","))
		}
		for _, a := range s.FailedAssertions() {
			fmt.Fprintf(bw, "assertion failed: %s\n", a.Message)
		}
	}
	if rep.Verdict == checker.Passed {
		fmt.Fprintln(bw, "check passed")
	}
	return bw.Flush()
}
