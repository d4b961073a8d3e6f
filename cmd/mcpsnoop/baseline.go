package main

import (
	"fmt"

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
		Long: `The first complete tools/list seen for a server label becomes its trusted
baseline; check --fail-on drift then reports every later change to a tool's
description, title, schemas, annotations or icons, and tools added or removed.

Without a flag, baseline compares the first session of the log with its
label's baseline (recording it when there is none). --accept replaces the
baseline with the session's definitions once you trust a change; --reset
deletes it so the next complete listing is trusted afresh.

Exit codes: 0 done (or no drift), 1 drift found, 2 bad flag or input.`,
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
	eng := checker.New(checker.Config{})
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
	if !s.Listing.Complete {
		return baselineFail("session %q has no complete tools/list result", s.ID)
	}
	if accept {
		if err := store.Accept(s.Label, s.Listing.Tools); err != nil {
			return baselineFail("%v", err)
		}
		fmt.Fprintf(out, "accepted baseline for %s\n", termsafe.Clean(s.Label, false))
		return nil
	}
	obs, err := store.Observe(s.Label, s.Listing.Tools)
	if err != nil {
		return baselineFail("%v", err)
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
