package main

import (
	"context"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/viewer"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newOpenCmd) }

type openOptions struct {
	run    string
	filter string
	redact redactFlags
	replay replayFlags
}

func newOpenCmd() *cobra.Command {
	var o openOptions
	cmd := &cobra.Command{
		Use:   "open [LOG|SESSION-ID|DIR|- ...]",
		Short: "Look through captured sessions in a terminal viewer",
		Long: `open reads session logs into a terminal viewer: the sessions, each one's
frames (time, direction, kind, method, tool, id, status, duration), a filter,
a frame inspector with the raw JSON, and panels for the per-tool summary,
capabilities, multi-round-trip interactions and elicitations. Press ? in the
viewer for the keys. e exports the session as HTML to
<state>/exports/<session-id>.html, and :export json|html|text|har|otlp [PATH]
writes any format; the --redact-* flags apply to those exports too.

r re-issues the call under the cursor against a live server and shows the
new answer beside the recorded one (R edits its params in $EDITOR first).
A stdio session runs a fresh copy of its recorded command; an HTTP session
goes only to --replay-target, with credentials only from --replay-header.
The viewer asks before a session's first send (--yes does not), and only
reads and tools annotated read-only or idempotent are replayed unless --all.
Replays go through mcpsnoop's capture into <state>/replays/<session-id>.jsonl.

Inputs are those of check: log paths, session ids, directories, - for
standard input (keys then come from the terminal), or --run ID. Without an
argument the newest log in the state directory is opened.

When stdout is not a terminal, open prints the stream as text instead, one
line per frame (seq, time, direction, kind, method, tool, id, status,
duration, and what the checker noted), and exits 0; --filter selects the
lines. Exit 2 on a bad flag, an input that cannot be read, or a stream
that cannot be written (a full disk, a closed pipe).`,
		Example: `  mcpsnoop open                                   # the newest session
  mcpsnoop open server.py-8933-e910199a9539
  mcpsnoop open --filter 'status:error' run.jsonl | less
  mcpsnoop open --run latest`,
		RunE: func(cmd *cobra.Command, args []string) error { return runOpen(cmd, args, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.run, "run", "", "open every session of one agent run (a run id, or latest)")
	f.StringVar(&o.filter, "filter", "", "start with this filter (the / tokens, e.g. 'tool:search status:error'); without a terminal, print only the frames it selects")
	o.redact.register(f)
	o.replay.register(f)
	return cmd
}

func openFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop open: " + fmt.Sprintf(format, args...)}
}

func runOpen(cmd *cobra.Command, args []string, o openOptions) error {
	lowerGCTarget()
	red, err := o.redact.redactor()
	if err != nil {
		return openFail("%v", err)
	}
	filter, err := viewer.ParseFilter(o.filter)
	if err != nil {
		return openFail("--filter: %v", err)
	}
	header, err := o.replay.check()
	if err != nil {
		return openFail("%v", err)
	}
	var sessions map[string]bool
	var inputs []capture.Input
	if o.run != "" {
		sel, err := selectRunInputs("open", args, o.run, cmd.InOrStdin(), cmd.ErrOrStderr())
		if err != nil {
			return openFail("%v", err)
		}
		inputs, sessions = sel.Inputs, sel.Sessions
	} else if inputs, err = resolveCommandInputs(cmd, "open", args); err != nil {
		return openFail("%v", err)
	}
	st, err := viewer.Load(inputs, viewer.LoadOptions{Redactor: red, Sessions: sessions, Stdin: cmd.InOrStdin()})
	if err != nil {
		return openFail("%v", err)
	}
	out := cmd.OutOrStdout()
	if !isTerminal(out) {
		if err := viewer.WriteText(out, st, filter); err != nil {
			// A full disk or a closed pipe: the stream did not get out.
			return openFail("writing the stream to standard output: %v", err)
		}
		return nil
	}
	return runViewer(viewer.New(st, viewer.Options{Filter: filter, Export: viewerExporter(red),
		Replay: viewerReplayer(o.replay, header, red, o.redact), ReplayYes: o.replay.yes}), out, nil)
}

// isTerminal reports whether w is a terminal (a test hook).
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// runViewer runs the terminal UI on out until the user quits. feed, when
// set, runs beside it (in its own goroutine) and may send it messages; its
// context ends when the UI does.
func runViewer(m *viewer.Model, out io.Writer, feed func(ctx context.Context, send func(tea.Msg))) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(m, tea.WithOutput(out), tea.WithContext(ctx))
	done := make(chan struct{})
	if feed != nil {
		go func() {
			defer close(done)
			feed(ctx, p.Send)
		}()
	} else {
		close(done)
	}
	_, err := p.Run()
	cancel()
	<-done
	if err != nil {
		return &exitError{code: 1, msg: "mcpsnoop: the terminal viewer failed: " + err.Error()}
	}
	return nil
}
