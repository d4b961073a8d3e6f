// Package report renders a checker.Report as check's text summary and as
// the JSON document of `check --json`, and gives the one text of an MRTR
// interaction and of an elicitation that export and the viewer show too.
// SARIF and JUnit have packages of their own.
package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// TextOptions tune the text report.
type TextOptions struct {
	// Verbose lists every finding, not only those that fail the gate, and
	// adds each session's rules that fired with their spec links, its
	// multi-round-trip interactions and its elicitations.
	Verbose bool
	// LogName names standard input in finding lines (check --log-name);
	// "" shows it as "-".
	LogName string
}

// WriteText writes the text summary: per session, the counters line, its
// findings (findings.go), the gated signals that fired and the failed
// assertions; then one verdict line, "check passed" when nothing failed
// anywhere, else what did (VerdictLine). The counters, "check failed: ",
// "assertion failed: " and "check passed" lines are parsed by scripts, so
// their wording is fixed. Everything a peer named (session ids, tool
// names, messages) goes through termsafe, so that a log can neither drive
// the terminal nor start a line of its own: no forged "check passed", no
// line a CI runner would read as a command.
func WriteText(w io.Writer, rep *checker.Report, opts TextOptions) error {
	bw := bufio.NewWriter(w)
	found := findingsBySession(rep)
	for _, s := range rep.Sessions {
		c := s.Counters
		fmt.Fprintf(bw, "session %s: errors=%d invalid=%d warnings=%d mismatches=%d pending=%d late_results=%d deprecated=%d missing_frames=%d schema_findings=%d\n",
			line(s.ID), c.Errors, c.Invalid, c.Warnings, c.Mismatches, c.Pending, c.LateResults, c.Deprecated, c.MissingFrames, c.SchemaFindings)
		writeFindings(bw, s, found[s.ID], opts)
		writeBaseline(bw, s)
		if len(s.SchemaFindings) > 0 {
			fmt.Fprintln(bw, "schema findings:")
			for _, f := range s.SchemaFindings {
				fmt.Fprintf(bw, "  %s: %s\n", f.Kind, line(strings.Join(f.Tools, ", ")))
			}
		}
		writeWire(bw, s, opts.Verbose)
		writeSecurity(bw, s)
		if len(s.FailedSignals) > 0 {
			names := make([]string, len(s.FailedSignals))
			for i, sig := range s.FailedSignals {
				names[i] = string(sig)
			}
			fmt.Fprintf(bw, "check failed: %s\n", strings.Join(names, ","))
		}
		for _, a := range s.FailedAssertions() {
			fmt.Fprintf(bw, "assertion failed: %s\n", line(a.Message))
		}
		if opts.Verbose {
			writeRuleHits(bw, s)
			writeInteractions(bw, s)
			writeElicitations(bw, s)
		}
	}
	fmt.Fprintln(bw, VerdictLine(rep))
	return bw.Flush()
}

// writeBaseline writes what the tool baseline said: recorded, the kinds an
// old baseline cannot answer for, and the error or the drift block.
func writeBaseline(w io.Writer, s *checker.SessionReport) {
	b := s.Baseline
	switch {
	case b.Created && b.Dir == "": // held for this check only (a log from elsewhere)
		fmt.Fprintln(w, "first-seen tool baseline held for this check only (trusted, not verified; not written: the log is not one of this machine's captures; --baseline DIR records it)")
		if b.RecordedOnly {
			fmt.Fprintln(w, "nothing was verified: check it with --baseline pointing at a persisted folder so the next check compares against it")
		}
	case b.Created:
		fmt.Fprintln(w, "recorded first-seen tool baseline (trusted, not verified)")
		if b.RecordedOnly {
			fmt.Fprintf(w, "nothing was verified: keep %s between runs (or point --baseline at a persisted folder) so the next check compares against it\n", line(b.Dir))
		}
	}
	WriteUnverified(w, b.Unverified)
	if b.Error != "" {
		fmt.Fprintf(w, "tool baseline error: %s\n", line(b.Error))
		return
	}
	WriteDrift(w, b.Drift)
}

// WriteUnverified writes the note that an old baseline could not answer
// for some kinds; nothing when kinds is empty.
func WriteUnverified(w io.Writer, kinds []tooldef.DriftKind) {
	if len(kinds) == 0 {
		return
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	fmt.Fprintf(w, "note: this baseline predates %s tracking; those fields were not compared. Re-record with --accept once you trust the current definitions.\n", strings.Join(names, ", "))
}

// WriteDrift writes the drift block: "definition drift:", then one line
// per kind with the changed tools, each followed by what changed of each
// tool (old → new, the hints, the schema's property paths) on a line of
// its own; nothing when there is no drift.
func WriteDrift(w io.Writer, drift []tooldef.DriftEntry) {
	if len(drift) == 0 {
		return
	}
	fmt.Fprintln(w, "definition drift:")
	for _, kind := range tooldef.DriftKinds {
		var tools, details []string
		for _, d := range drift {
			if d.Kind == kind {
				tools = append(tools, d.Tool)
				if detail := d.Detail(); detail != "" {
					details = append(details, d.Tool+": "+detail)
				}
			}
		}
		if len(tools) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", kind.Label(), line(strings.Join(tools, ", ")))
		}
		for _, d := range details {
			fmt.Fprintf(w, "    %s\n", line(d))
		}
	}
}

// writeInteractions lists a session's multi-round-trip operations with the
// server's and the client's share of each, hop by hop.
func writeInteractions(w io.Writer, s *checker.SessionReport) {
	for _, it := range s.Interactions {
		writeLines(w, "interaction ", InteractionLines(it))
	}
	if s.InteractionsTruncated > 0 {
		fmt.Fprintf(w, "(%d more interactions not listed)\n", s.InteractionsTruncated)
	}
}

// writeElicitations lists the questions put to the user: the operation they
// interrupted, the mode, the key, what the user did and how long it took,
// then the form's fields or the url. Never a submitted value.
func writeElicitations(w io.Writer, s *checker.SessionReport) {
	for _, e := range s.Elicitations {
		writeLines(w, "elicitation ", ElicitationLines(e))
	}
	if s.ElicitationsTruncated > 0 {
		fmt.Fprintf(w, "(%d more elicitations not listed)\n", s.ElicitationsTruncated)
	}
}

// writeLines writes an item's lines: the first after prefix, the details
// under it indented by two spaces.
func writeLines(w io.Writer, prefix string, lines []string) {
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintf(w, "%s%s\n", prefix, line(l))
		} else {
			fmt.Fprintf(w, "  %s\n", line(l))
		}
	}
}

// line makes peer-controlled text one safe line (termsafe.Clean).
func line(s string) string { return termsafe.Clean(s, false) }
