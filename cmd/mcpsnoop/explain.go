package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/spf13/cobra"
)

// check --explain RULE prints what a rule of the catalogue checks: its
// text, the signal it counts under, the revisions and transports it is
// judged for, the spec section it enforces per revision, and an example
// finding. "all" lists the catalogue, one rule a line.

func runExplain(cmd *cobra.Command, args []string, id string) error {
	if len(args) > 0 {
		return checkFail("--explain reads no log, got %q", args[0])
	}
	// Written whole at the end, so that a write that fails (a full disk,
	// a closed pipe) is an exit 2 like check's, not a silent success.
	var w bytes.Buffer
	switch strings.ToLower(strings.TrimSpace(id)) {
	case "all":
		for _, r := range checker.Rules() {
			fmt.Fprintf(&w, "%-5s %-8s %-22s %s\n", r.ID, r.Signal, revisionSpan(&r), r.Text)
		}
	case string(checker.SignalWarn), string(checker.SignalMismatch):
		for _, r := range checker.Rules() {
			if string(r.Signal) == strings.ToLower(id) || (r.Mismatch && strings.EqualFold(id, string(checker.SignalMismatch))) {
				fmt.Fprintf(&w, "%-5s %s\n", r.ID, r.Text)
			}
		}
	default:
		r, ok := checker.LookupRule(id)
		if !ok {
			return checkFail("--explain: no rule %q; rules are W1 to W49, M1 and wire (--explain all lists them)", id)
		}
		writeExplain(&w, &r)
	}
	if _, err := cmd.OutOrStdout().Write(w.Bytes()); err != nil {
		return checkFail("writing the explanation: %v", err)
	}
	return nil
}

func writeExplain(w io.Writer, r *checker.Rule) {
	// The wire rule's text starts with its id, as its findings do.
	if strings.HasPrefix(r.Text, r.ID+":") {
		fmt.Fprintf(w, "%s\n", r.Text)
	} else {
		fmt.Fprintf(w, "%s: %s\n", r.ID, r.Text)
	}
	gate := ""
	if signalGatedByDefault(r.Signal) {
		gate = " (in the default gate)"
	}
	signal := string(r.Signal) + gate
	if r.Mismatch {
		signal += "; its frames count as mismatch too"
	}
	fmt.Fprintf(w, "  signal:    %s\n", signal)
	fmt.Fprintf(w, "  family:    %s\n", r.Family)
	fmt.Fprintf(w, "  judged on: %s\n", r.Gate)
	transport := "any transport"
	if r.HTTPOnly {
		transport = "streamable HTTP only"
	}
	fmt.Fprintf(w, "  revisions: %s; %s\n", strings.Join(r.Revisions(), ", "), transport)
	if r.ID == checker.RuleWire {
		fmt.Fprintf(w, "  spec:      the schema reference of the session's revision, at the definition the message broke:\n")
		for _, rev := range wire.Revisions {
			fmt.Fprintf(w, "             %s  %s\n", rev, strings.TrimSuffix(wire.SpecURL(rev, ""), "#"))
		}
	} else {
		fmt.Fprintf(w, "  spec:\n")
		for _, rev := range r.Revisions() {
			fmt.Fprintf(w, "             %s  %s\n", rev, r.SpecURL(rev))
		}
	}
	fmt.Fprintf(w, "  example:   session s1 frame 7: %s\n", r.Example)
}

// signalGatedByDefault reports whether --fail-on's default holds sig.
func signalGatedByDefault(sig checker.Signal) bool {
	for _, s := range checker.DefaultFailOn {
		if s == sig {
			return true
		}
	}
	return false
}

// revisionSpan sums up the revisions a rule applies to: "all revisions" or
// "2026-07-28".
func revisionSpan(r *checker.Rule) string {
	revs := r.Revisions()
	if len(revs) == len(wire.Revisions) {
		return "all revisions"
	}
	return strings.Join(revs, ", ")
}
