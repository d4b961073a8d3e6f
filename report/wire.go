package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// writeWire writes a session's "wire findings:" block: what was validated
// against which revision, the findings summed up by what they broke (each
// with its first frame's finding), and why frames went unvalidated. It is
// written only when validation ran; like drift it is not on the counters
// line. verbose adds each group's spec link.
func writeWire(w io.Writer, s *checker.SessionReport, verbose bool) {
	ws := s.Wire
	if ws == nil {
		return
	}
	fmt.Fprintln(w, "wire findings:")
	if ws.Validated > 0 {
		fmt.Fprintf(w, "  validated %d %s against %s: %d %s the schema\n",
			ws.Validated, plural(ws.Validated, "frame", "frames"), strings.Join(ws.Revisions, ", "),
			s.Counters.WireFindings, plural(s.Counters.WireFindings, "breaks", "break"))
	} else if ws.Note == "" {
		fmt.Fprintln(w, "  no JSON-RPC frame to validate")
	}
	for _, g := range ws.Groups {
		fmt.Fprintf(w, "  %d %s, first at line %d: %s\n", g.Frames, plural(g.Frames, "frame", "frames"), g.FirstLine, termsafe.Clean(g.Example, false))
		if verbose {
			fmt.Fprintf(w, "    spec: %s\n", g.SpecURL)
		}
	}
	if ws.Note != "" {
		fmt.Fprintf(w, "  %s\n", termsafe.Clean(ws.Note, false))
	}
}

// writeRuleHits lists, under --verbose, the catalogue rules that fired in
// the session with the section of the specification each enforces.
func writeRuleHits(w io.Writer, s *checker.SessionReport) {
	for _, h := range s.RuleHits {
		fmt.Fprintf(w, "rule %s: %d %s, %s\n", h.ID, h.Frames, plural(h.Frames, "frame", "frames"), h.SpecURL)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
