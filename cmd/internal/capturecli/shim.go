package capturecli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/spf13/cobra"
)

// shimUsage is the shim's command line, for the program named prog.
func shimUsage(prog string) string { return prog + " [flags] -- <server command> [args...]" }

// SetUpShim makes root, the command of the program named prog, the stdio
// shim. Flag parsing stops at the first argument that is not a flag, so
// flags after the server command are the server's; "--" makes that
// explicit.
func SetUpShim(root *cobra.Command, prog string) {
	var o Options
	root.Use = shimUsage(prog)
	root.Args = cobra.ArbitraryArgs
	f := root.Flags()
	f.SetInterspersed(false)
	f.StringVar(&o.Label, "label", "", "server label in the log and its file name (default: named after the server: its package, module or project folder, from the command)")
	o.RegisterLogFlags(f)
	f.DurationVar(&o.KillGrace, "kill-grace", stdio.DefaultKillGrace, "after passing on SIGINT, SIGTERM or SIGHUP, kill the server if it has not exited within this time; and after the client's input ends, end the server (SIGTERM, then SIGKILL after as long again) if it has not exited within this time")
	o.Redact.Register(f)
	o.OTLP.Register(f)
	root.RunE = func(cmd *cobra.Command, args []string) error {
		return runShim(cmd, args, &o, prog)
	}
}

func runShim(cmd *cobra.Command, args []string, o *Options, prog string) error {
	capture.BoundMemory() // the heap near what is live, whatever the traffic
	if len(args) == 0 {
		if cmd.Flags().NFlag() == 0 {
			return cmd.Help()
		}
		return shimFail("no server command to run: %s", shimUsage(prog))
	}
	if o.KillGrace <= 0 {
		return shimFail("--kill-grace must be positive, got %s", o.KillGrace)
	}
	cfg, notice, err := LoadProjectConfig("mcpsnoop")
	if err != nil {
		return shimFail("%v", err)
	}
	st, err := MergeSettings(cmd, o, cfg, capture.DeriveLabel(args), "server")
	if err != nil {
		return shimFail("%v", err)
	}
	if !st.NoTrace && st.TraceFile != "" && SameFile(st.TraceFile, cmd.OutOrStdout()) {
		return shimFail("--trace-file %s is the shim's own stdout, which carries the server's messages to the client; name another file", st.TraceFile)
	}

	stderr := cmd.ErrOrStderr()
	// The shim's own lines (the span sink's and the log's included) go
	// through one queue that never waits: stderr may be a full pipe the
	// client never reads. The server's stderr is forwarded as it comes.
	notes := capture.NewNotices(stderr)
	if notice != "" {
		notes.Say(notice)
	}
	if st.Sink, err = o.OTLP.Open("mcpsnoop", notes); err != nil {
		notes.Close(capture.NoticeFlush)
		return shimFail("%v", err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stdio.ForwardedSignals...)
	defer signal.Stop(sigs)
	// With SIGPIPE caught, a client that went away makes writes to stdout
	// fail instead of killing the shim outright: the shim then ends the
	// server (stdio.Shim) rather than leave it running.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	sh := &stdio.Shim{
		Command: args, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr,
		Notices: notes, Signals: sigs, KillGrace: o.KillGrace,
	}
	if !st.NoTrace {
		sh.OpenLog = func() *capture.LogWriter { return openShimLog(st, args, notes, notes) }
	} else if st.Sink != nil {
		sh.OpenLog = func() *capture.LogWriter {
			return capture.NewLogWriter(SpanOnlyLog(st.Sink), capture.LogOptions{
				SessionID: capture.NewSessionID(st.Label), Label: st.Label, Path: "(no log)", Redactor: st.Redactor,
			})
		}
	}
	code, err := sh.Run()
	CloseSink(st.Sink, notes, "mcpsnoop")
	notes.Close(capture.NoticeFlush)
	if err != nil {
		var se *stdio.StartError
		if errors.As(err, &se) {
			return &Failure{Code: se.Code, Msg: "mcpsnoop: " + se.Error()}
		}
		return &Failure{Code: code, Msg: "mcpsnoop: " + err.Error()}
	}
	if code != 0 {
		return &Failure{Code: code}
	}
	return nil
}

// openShimLog creates the session's log and says where it goes. A log that
// cannot be opened costs the log, never the session: the shim forwards
// without one.
func openShimLog(st Settings, args []string, stderr io.Writer, warn *capture.Notices) *capture.LogWriter {
	f, path, sid := OpenLog(st, stderr, "mcpsnoop")
	if f == nil {
		if st.Sink == nil {
			return nil
		}
		return capture.NewLogWriter(SpanOnlyLog(st.Sink), capture.LogOptions{SessionID: sid, Label: st.Label, Path: "(no log)", Redactor: st.Redactor})
	}
	fmt.Fprintf(stderr, "mcpsnoop: logging %s to %s (session %s)\n", stdio.CommandLine(st.Redactor.Command(args)), path, sid)
	return capture.NewLogWriter(TapLog(st.Sink, f), capture.LogOptions{
		SessionID: sid, Label: st.Label, Path: path, Redactor: st.Redactor, Warn: warn, MaxSize: st.MaxLogSize,
	})
}
