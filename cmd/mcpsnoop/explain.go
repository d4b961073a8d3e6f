package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/mcpsnoop/mcpsnoop/report"
	"github.com/spf13/cobra"
)

// check --explain RULE prints what a rule of the catalogue checks: its
// text, the signal it counts under, the party it blames, the revisions and
// transports it is judged for, the spec section it enforces per revision,
// and an example finding. "all" lists the catalogue, one rule a line;
// "signals" lists the signals and whom each blames; a signal's name says
// that of one signal (warn and mismatch list their rules too).

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
			fmt.Fprintf(&w, "%-5s %-8s %-6s %-22s %s\n", r.ID, r.Signal, r.Party, revisionSpan(&r), report.RuleText(r.Text))
		}
	case "signals":
		for _, sig := range checker.AllSignals {
			fmt.Fprintf(&w, "%-12s %s\n", sig, checker.SignalParty[sig])
		}
	case string(checker.SignalWarn), string(checker.SignalMismatch):
		sig := checker.Signal(strings.ToLower(strings.TrimSpace(id)))
		fmt.Fprintf(&w, "%s: party %s\n", sig, checker.SignalParty[sig])
		for _, r := range checker.Rules() {
			if r.Signal == sig || (r.Mismatch && sig == checker.SignalMismatch) {
				fmt.Fprintf(&w, "%-5s %-6s %s\n", r.ID, r.Party, report.RuleText(r.Text))
			}
		}
	default:
		if sig := checker.Signal(strings.ToLower(strings.TrimSpace(id))); checker.SignalParty[sig] != "" && sig != checker.SignalWire {
			fmt.Fprintf(&w, "%s: party %s\n", sig, checker.SignalParty[sig])
			break
		}
		r, ok := checker.LookupRule(id)
		if !ok {
			return checkFail("--explain: no rule %q; rules are W1 to W49, M1 and wire, signals are named too (--explain all lists the rules, --explain signals the signals)", id)
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
	text := report.RuleText(r.Text)
	if strings.HasPrefix(text, r.ID+":") {
		fmt.Fprintf(w, "%s\n", text)
	} else {
		fmt.Fprintf(w, "%s: %s\n", r.ID, text)
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
	fmt.Fprintf(w, "  party:     %s\n", partyWords(r))
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
	fmt.Fprintf(w, "  example:   session s1 line 7: %s\n", r.Example)
}

// partyWords says whom a rule's findings blame.
func partyWords(r *checker.Rule) string {
	switch {
	case r.ID == "M1":
		return "server; client when the request's routing headers disagreed with its body"
	case r.Party == checker.PartySender:
		return "sender (whichever side sent the frame)"
	}
	return string(r.Party)
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
