package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/internal/progress"
	"github.com/mcpsnoop/mcpsnoop/viewer"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newOpenCmd) }

type openOptions struct {
	run    string
	filter string
	redact capturecli.RedactFlags
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
argument the newest log of the log folders (the state directory's sessions,
$MCPSNOOP_LOG_DIR, .mcpsnoop.toml's log-dir) is opened.

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
	o.redact.Register(f)
	o.replay.register(f)
	return cmd
}

func openFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop open: " + fmt.Sprintf(format, args...)}
}

func runOpen(cmd *cobra.Command, args []string, o openOptions) error {
	lowerGCTarget()
	red, err := o.redact.Redactor()
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
	load := viewer.LoadOptions{Redactor: red, Sessions: sessions, Stdin: cmd.InOrStdin()}
	out := cmd.OutOrStdout()
	if !isTerminal(out) {
		stop := showReading(cmd.ErrOrStderr(), inputs)
		st, err := viewer.Load(inputs, load)
		stop()
		if err != nil {
			return openFail("%v", err)
		}
		if err := viewer.WriteText(out, st, filter); err != nil {
			// A full disk or a closed pipe: the stream did not get out.
			return openFail("writing the stream to standard output: %v", err)
		}
		return nil
	}
	opts := viewer.Options{Filter: filter, Export: viewerExporter(red),
		Replay: viewerReplayer(o.replay, header, red, o.redact), ReplayYes: o.replay.yes}
	if total := inputsSize(inputs); total > progress.Threshold && !slices.ContainsFunc(inputs, func(in capture.Input) bool { return in.Stdin }) {
		return loadInViewer(inputs, load, opts, total, out)
	}
	// A small log is read before the viewer starts, which then shows it
	// at once (and a bad one is refused before the screen is taken).
	st, err := viewer.Load(inputs, load)
	if err != nil {
		return openFail("%v", err)
	}
	return runViewer(viewer.New(st, opts), out, nil)
}

// loadInViewer starts the viewer at once and reads the inputs beside it: a
// big log takes seconds to read, and the viewer says how far it has got
// rather than leaving the screen blank. A log that cannot be read closes
// the viewer and is reported as when it is read first.
func loadInViewer(inputs []capture.Input, load viewer.LoadOptions, opts viewer.Options, total int64, out io.Writer) error {
	read := new(atomic.Int64)
	for i := range inputs {
		inputs[i].Count = read
	}
	opts.Loading = true
	var loadErr error
	err := runViewer(viewer.New(viewer.NewStore(viewer.Limits{}), opts), out, func(ctx context.Context, send func(tea.Msg)) {
		done := make(chan viewer.Loaded, 1)
		go func() {
			st, err := viewer.Load(inputs, load)
			done <- viewer.Loaded{Store: st, Err: err}
		}()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return // quit while loading: the load is left to the exit
			case <-tick.C:
				send(viewer.Loading{Read: read.Load(), Total: total})
			case r := <-done:
				loadErr = r.Err
				send(r)
				return
			}
		}
	})
	if loadErr != nil {
		return openFail("%v", loadErr)
	}
	return err
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
