package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/report"
	"github.com/spf13/cobra"
)

func newBaselineCmd() *cobra.Command {
	var accept, reset bool
	var dir string
	cmd := &cobra.Command{
		Use:   "baseline [LOG|SESSION-ID|-]",
		Short: "Record, verify, accept or reset the trusted tool definitions of a server",
		Long: `The first complete tools/list seen for a server (its label and the
serverInfo.name it gives) becomes its trusted baseline; check --fail-on drift
then reports every later change to a tool's description, title, schemas,
annotations or icons, tools added or removed, and a server that calls itself
something else than its label's baseline says.

Without a flag, baseline compares the first session of the log with its
server's baseline (recording it when there is none). --accept replaces the
baseline with the session's definitions once you trust a change, or trusts
a server under a name of its own; --reset deletes every baseline of the
label so the next complete listing is trusted afresh.

Exit codes: 0 done, or no drift; 1 drift, or the server calls itself
something else than its label's baseline says; 2 bad flag or input (nothing
written).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBaseline(cmd, args, accept, reset, baseline.Store{Dir: dir})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&accept, "accept", false, "replace the baseline with this session's tool definitions")
	f.BoolVar(&reset, "reset", false, "delete the baseline so the next complete tools/list is trusted")
	f.StringVar(&dir, "baseline", "", "tool-baseline folder (default <state>/tool-baselines)")
	return cmd
}

func baselineFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop baseline: " + fmt.Sprintf(format, args...)}
}

func runBaseline(cmd *cobra.Command, args []string, accept, reset bool, store baseline.Store) error {
	if accept && reset {
		return baselineFail("--accept and --reset are mutually exclusive")
	}
	inputs, err := resolveCommandInputs(cmd, "baseline", args)
	if err != nil {
		return baselineFail("%v", err)
	}
	// The engine says whose baseline the session's is (its label, the
	// server's name, the label it had before labels named the server),
	// exactly as check keys it.
	first := &firstKey{}
	eng := checker.New(checker.Config{Baseline: first})
	if err := ingestInput(eng, inputs[0], cmd.InOrStdin()); err != nil {
		return baselineFail("%v", err)
	}
	s := eng.Report().Sessions[0] // like the reference, only the first session
	out := cmd.OutOrStdout()
	if s.Label == "" {
		return baselineFail("session %q has no server label; a tool baseline needs a stable label, set one with --label", s.ID)
	}
	if reset {
		if err := store.Reset(s.Label); err != nil {
			return baselineFail("%v", err)
		}
		fmt.Fprintf(out, "reset baseline for %s\n", termsafe.Clean(s.Label, false))
		return nil
	}
	if !s.Listing.Complete || first.key == nil || first.key.Label != s.Label {
		return baselineFail("session %q has no complete tools/list result", s.ID)
	}
	key := *first.key
	if accept {
		if err := store.Accept(key.Label, key.ServerName, s.Listing.Tools); err != nil {
			return baselineFail("%v", err)
		}
		fmt.Fprintf(out, "accepted baseline for %s\n", termsafe.Clean(serverOf(key), false))
		return nil
	}
	obs, err := store.Observe(key, s.Listing.Tools)
	if err != nil {
		return baselineFail("%v", err)
	}
	if len(obs.OtherNames) > 0 {
		msg := fmt.Sprintf("server name changed: the baseline of label %q was recorded for server %s, not %q; its tools were not compared (--accept trusts this server)",
			key.Label, strings.Join(quoteAll(obs.OtherNames), ", "), key.ServerName)
		fmt.Fprintln(out, termsafe.Clean(msg, false))
		return &exitError{code: 1}
	}
	if obs.Created {
		fmt.Fprintln(out, "created first-seen tool baseline")
		return nil
	}
	drift, unverified := tooldef.Diff(obs.Tools, s.Listing.Tools, obs.Version)
	report.WriteUnverified(out, unverified)
	if len(drift) == 0 {
		fmt.Fprintln(out, "no tool definition drift")
		return nil
	}
	report.WriteDrift(out, drift)
	return &exitError{code: 1}
}

// firstKey is a BaselineStore that notes the key of the first session the
// engine asks about, and stores nothing.
type firstKey struct {
	key *checker.BaselineKey
}

func (f *firstKey) Observe(key checker.BaselineKey, _ []tooldef.Tool) (checker.BaselineObservation, error) {
	if f.key == nil {
		f.key = &key
	}
	return checker.BaselineObservation{Created: true}, nil
}

func (f *firstKey) Location() string { return "" }

// serverOf names a baseline's server for a message: the label, and the
// server's name when it gave one.
func serverOf(key checker.BaselineKey) string {
	if key.ServerName == "" {
		return key.Label
	}
	return key.Label + " (server " + strconv.Quote(key.ServerName) + ")"
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}
