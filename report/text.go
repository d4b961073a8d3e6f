// Package report renders a checker.Report as check's text summary and as
// the JSON document of `check --json`. SARIF and JUnit have packages of
// their own.
package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TextOptions tune the text report.
type TextOptions struct {
	// Verbose adds each session's multi-round-trip interactions.
	Verbose bool
}

// WriteText writes the text summary: per session, the counters line, the
// gated signals that fired and the failed assertions; then "check passed"
// when nothing failed anywhere. These lines are parsed by scripts, so their
// wording is fixed.
func WriteText(w io.Writer, rep *checker.Report, opts TextOptions) error {
	bw := bufio.NewWriter(w)
	for _, s := range rep.Sessions {
		c := s.Counters
		fmt.Fprintf(bw, "session %s: errors=%d invalid=%d warnings=%d mismatches=%d pending=%d late_results=%d deprecated=%d missing_frames=%d schema_findings=%d\n",
			s.ID, c.Errors, c.Invalid, c.Warnings, c.Mismatches, c.Pending, c.LateResults, c.Deprecated, c.MissingFrames, c.SchemaFindings)
		writeBaseline(bw, s)
		if len(s.SchemaFindings) > 0 {
			fmt.Fprintln(bw, "schema findings:")
			for _, f := range s.SchemaFindings {
				fmt.Fprintf(bw, "  %s: %s\n", f.Kind, strings.Join(f.Tools, ", "))
			}
		}
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
		if opts.Verbose {
			writeInteractions(bw, s)
			writeElicitations(bw, s)
		}
	}
	if rep.Verdict == checker.Passed {
		fmt.Fprintln(bw, "check passed")
	}
	return bw.Flush()
}

// writeBaseline writes what the tool baseline said: recorded, the kinds an
// old baseline cannot answer for, and the error or the drift block.
func writeBaseline(w io.Writer, s *checker.SessionReport) {
	b := s.Baseline
	if b.Created {
		fmt.Fprintln(w, "recorded first-seen tool baseline (trusted, not verified)")
		if b.RecordedOnly {
			fmt.Fprintf(w, "nothing was verified: keep %s between runs (or point --baseline at a persisted folder) so the next check compares against it\n", b.Dir)
		}
	}
	WriteUnverified(w, b.Unverified)
	if b.Error != "" {
		fmt.Fprintf(w, "tool baseline error: %s\n", b.Error)
		return
	}
	WriteDrift(w, b.Drift)
}

// WriteUnverified writes the note that an old baseline could not answer
// for some kinds; nothing when kinds is empty.
func WriteUnverified(w io.Writer, kinds []checker.DriftKind) {
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
// per kind with the changed tools; nothing when there is no drift.
func WriteDrift(w io.Writer, drift []checker.DriftEntry) {
	if len(drift) == 0 {
		return
	}
	fmt.Fprintln(w, "definition drift:")
	for _, kind := range checker.DriftKinds {
		var tools []string
		for _, d := range drift {
			if d.Kind == kind {
				tools = append(tools, d.Tool)
			}
		}
		if len(tools) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", kind.Label(), strings.Join(tools, ", "))
		}
	}
}

// writeInteractions lists a session's multi-round-trip operations with the
// server's and the client's share of each, hop by hop.
func writeInteractions(w io.Writer, s *checker.SessionReport) {
	for _, it := range s.Interactions {
		subject := it.Method
		if it.Name != "" {
			subject += " " + it.Name
		}
		fmt.Fprintf(w, "interaction %s (id %s): %d round trips, %s wall clock = %s server + %s client, %s\n",
			subject, it.RootID, it.RoundTrips, msDuration(it.DurationMs), msDuration(it.ServerTimeMs),
			msDuration(it.ClientTurnaroundMs), it.Outcome)
		for i, h := range it.Hops {
			var parts []string
			if i > 0 {
				parts = append(parts, "client "+msDuration(h.ClientTurnaroundMs))
			}
			if h.ResponseTS != "" {
				parts = append(parts, "server "+msDuration(h.ServerTimeMs))
			} else {
				parts = append(parts, "no answer")
			}
			if len(h.Asked) > 0 {
				parts = append(parts, "asked "+strings.Join(h.Asked, ", "))
			}
			fmt.Fprintf(w, "  hop %d (id %s): %s\n", i+1, h.RequestID, strings.Join(parts, ", "))
		}
		if it.HopsTruncated {
			fmt.Fprintf(w, "  (hops past the first %d not listed)\n", len(it.Hops))
		}
	}
	if s.InteractionsTruncated > 0 {
		fmt.Fprintf(w, "(%d more interactions not listed)\n", s.InteractionsTruncated)
	}
}

// msDuration renders milliseconds as a Go duration ("1.2s", "400ms").
func msDuration(ms float64) string {
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Millisecond).String()
}

// writeElicitations lists the questions put to the user: the operation they
// interrupted, the mode, the key, what the user did and how long it took,
// then the form's fields or the url. Never a submitted value.
func writeElicitations(w io.Writer, s *checker.SessionReport) {
	for _, e := range s.Elicitations {
		subject := e.Method
		if e.Name != "" {
			subject += " " + e.Name
		}
		key := e.Key
		if key == "" {
			key = "(id " + e.RootID + ")"
		}
		outcome := "pending"
		if !e.Pending {
			outcome = e.Action
			if outcome == "" {
				outcome = "answered"
			}
			if e.ElapsedMs != nil {
				outcome += " after " + msDuration(*e.ElapsedMs)
			}
		}
		fmt.Fprintf(w, "elicitation %s [%s] %s: %s\n", subject, e.Mode, key, outcome)
		if e.Message != "" {
			fmt.Fprintf(w, "  %q\n", e.Message)
		}
		if e.Mode == "url" {
			fmt.Fprintf(w, "  url %s (host %s)\n", e.URL, e.Host)
		}
		for _, f := range e.Fields {
			fmt.Fprintf(w, "  %s %s\n", f.Name, f.Type)
		}
	}
	if s.ElicitationsTruncated > 0 {
		fmt.Fprintf(w, "(%d more elicitations not listed)\n", s.ElicitationsTruncated)
	}
}
