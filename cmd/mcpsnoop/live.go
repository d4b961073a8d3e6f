package main

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/replay"
	"github.com/mcpsnoop/mcpsnoop/viewer"
	"github.com/spf13/cobra"
)

// setUpLive makes `mcpsnoop` with no command the live view, beside the
// shim that runs when a command follows. The shim's own behaviour is left
// as it was: flags other than --history-limit without a command are still
// the shim's usage error.
func setUpLive(root *cobra.Command) {
	var limit int
	var metricsAddr string
	root.Flags().IntVar(&limit, "history-limit", 100, "live view and metrics hub: how many of the newest session logs to load at start (0 for all)")
	root.Flags().StringVar(&metricsAddr, "metrics-listen", "", "run the headless metrics hub: follow the session logs (the log folders the live view follows, and the folders given as arguments) and serve Prometheus metrics on this address, e.g. 127.0.0.1:9464 (no authentication)")
	shim := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		f := cmd.Flags()
		if f.Changed("metrics-listen") {
			if n := f.NFlag(); n > 2 || (n == 2 && !f.Changed("history-limit")) {
				return shimFail("--metrics-listen takes only --history-limit and folders of session logs; the other flags belong to the shim")
			}
			return runHub(cmd, args, limit, metricsAddr)
		}
		liveOnly := f.NFlag() == 0 || (f.NFlag() == 1 && f.Changed("history-limit"))
		if len(args) == 0 && liveOnly {
			return runLive(cmd, limit)
		}
		if f.Changed("history-limit") {
			return shimFail("--history-limit belongs to the live view (mcpsnoop without a server command)")
		}
		// "mcpsnoop exprot": a typo of a subcommand rather than a server
		// (the shim takes the first positional argument as the command, so
		// a server of that name is run with "mcpsnoop -- exprot").
		if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
			if name := misspeltCommand(cmd.Root(), args[0]); name != "" {
				return shimFail("unknown command %q; did you mean %s? (to run a program of that name: mcpsnoop -- %s)", args[0], name, args[0])
			}
		}
		return shim(cmd, args)
	}
}

// runLive follows the session logs of the log folders (the state
// directory's, $MCPSNOOP_LOG_DIR's, .mcpsnoop.toml's log-dir) in the
// terminal viewer. Without a terminal it prints the stream of the newest sessions
// as text, as open does, and exits.
func runLive(cmd *cobra.Command, limit int) error {
	if limit < 0 {
		return shimFail("--history-limit must be 0 (all) or more, got %d", limit)
	}
	dirs := followedFolders()
	dir := termsafe.Clean(strings.Join(dirs, ", "), false)
	fol := viewer.NewFollower(dirs, limit)
	out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if !isTerminal(out) {
		st := viewer.NewStore(viewer.LiveLimits)
		if err := fol.History(func(b viewer.Batch) {
			st.Apply(b.Changes)
			for _, n := range b.Notices {
				fmt.Fprintln(stderr, "mcpsnoop: "+n)
			}
		}); err != nil {
			return &exitError{code: 1, msg: fmt.Sprintf("mcpsnoop: reading %s: %v", dir, err)}
		}
		if len(st.Sessions) == 0 {
			fmt.Fprintf(stderr, "mcpsnoop: no session logs in %s yet; run a server as mcpsnoop -- <command> to record one\n", dir)
			return nil
		}
		fmt.Fprintf(stderr, "mcpsnoop: stdout is not a terminal, so here are the newest %d session(s) as text; run mcpsnoop in a terminal for the live view\n", len(st.Sessions))
		if err := viewer.WriteText(out, st, viewer.Filter{}); err != nil {
			return &exitError{code: 1, msg: "mcpsnoop: " + err.Error()}
		}
		return nil
	}
	if err := fol.Start(); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("mcpsnoop: cannot watch %s: %v", dir, err)}
	}
	defer fol.Close()
	m := viewer.New(viewer.NewStore(viewer.LiveLimits), viewer.Options{Live: true, Loading: true, Export: viewerExporter(nil),
		Replay: viewerReplayer(replayFlags{timeout: replay.DefaultCallTimeout}, nil, nil, capturecli.RedactFlags{})})
	return runViewer(m, out, func(ctx context.Context, send func(tea.Msg)) {
		followInto(ctx, fol, send)
	})
}

// followInto loads the follower's history, saying how far it has got,
// then follows, sending each batch to the viewer.
func followInto(ctx context.Context, fol *viewer.Follower, send func(tea.Msg)) {
	deliver := func(b viewer.Batch) { send(b) }
	fol.OnHistoryProgress(func(read, total int64) { send(viewer.Loading{Read: read, Total: total}) })
	if err := fol.History(deliver); err != nil {
		send(viewer.Batch{Notices: []string{err.Error()}})
	}
	send(viewer.Loaded{})
	fol.Run(ctx, deliver)
}
