package main

import (
	"errors"
	"fmt"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/otlpsink"
	"github.com/spf13/cobra"
)

// shimOptions are the root command's flags: how to run the stdio shim.
type shimOptions struct {
	label     string
	traceFile string
	noTrace   bool
	killGrace time.Duration
	redact    redactFlags
	otlp      otlpFlags
}

const shimUsage = "mcpsnoop [flags] -- <server command> [args...]"

// setUpShim makes the root command the stdio shim. Flag parsing stops at
// the first argument that is not a flag, so flags after the server command
// are the server's; "--" makes that explicit.
func setUpShim(root *cobra.Command) {
	var o shimOptions
	root.Use = shimUsage
	root.Args = cobra.ArbitraryArgs
	f := root.Flags()
	f.SetInterspersed(false)
	f.StringVar(&o.label, "label", "", "server label in the log and its file name (default: derived from the command)")
	f.StringVar(&o.traceFile, "trace-file", "", "write the log to this file, appending (default <state>/sessions/<session-id>.jsonl)")
	f.BoolVar(&o.noTrace, "no-trace", false, "forward only: no log, no state directory")
	f.DurationVar(&o.killGrace, "kill-grace", stdio.DefaultKillGrace, "after passing on SIGINT, SIGTERM or SIGHUP, kill the server if it has not exited within this time")
	o.redact.register(f)
	o.otlp.register(f)
	root.RunE = func(cmd *cobra.Command, args []string) error {
		return runShim(cmd, args, &o)
	}
}

// shimFail is a usage error of the shim: exit 2, one line on stderr.
func shimFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop: " + fmt.Sprintf(format, args...)}
}

// shimSettings are the flags merged over the config file.
type shimSettings struct {
	label     string
	traceFile string
	noTrace   bool
	redactor  *capture.Redactor
	sink      *otlpsink.Sink // live OTLP streaming, nil when off
}

func runShim(cmd *cobra.Command, args []string, o *shimOptions) error {
	if len(args) == 0 {
		if cmd.Flags().NFlag() == 0 {
			return cmd.Help()
		}
		return shimFail("no server command to run: %s", shimUsage)
	}
	if o.killGrace <= 0 {
		return shimFail("--kill-grace must be positive, got %s", o.killGrace)
	}
	cfg, err := capture.LoadConfig(capture.ConfigFile)
	if err != nil {
		return shimFail("%v", err)
	}
	st, err := mergeShimSettings(cmd, o, cfg, capture.DeriveLabel(args), "server")
	if err != nil {
		return shimFail("%v", err)
	}
	stderr := cmd.ErrOrStderr()
	if st.sink, err = o.otlp.open("mcpsnoop", stderr); err != nil {
		return shimFail("%v", err)
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stdio.ForwardedSignals...)
	defer signal.Stop(sigs)
	// With SIGPIPE caught, a client that went away makes writes to stdout
	// fail (and the shim carry on draining the server) instead of killing
	// the shim outright.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	sh := &stdio.Shim{
		Command: args, Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr,
		Signals: sigs, KillGrace: o.killGrace,
	}
	if !st.noTrace {
		sh.OpenLog = func() *capture.LogWriter { return openShimLog(st, args, stderr) }
	} else if st.sink != nil {
		sh.OpenLog = func() *capture.LogWriter {
			return capture.NewLogWriter(spanOnlyLog(st.sink), capture.LogOptions{
				SessionID: capture.NewSessionID(st.label), Label: st.label, Path: "(no log)", Redactor: st.redactor,
			})
		}
	}
	code, err := sh.Run()
	closeSink(st.sink, stderr, "mcpsnoop")
	if err != nil {
		var se *stdio.StartError
		if errors.As(err, &se) {
			return &exitError{code: se.Code, msg: "mcpsnoop: " + se.Error()}
		}
		return &exitError{code: code, msg: "mcpsnoop: " + err.Error()}
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// mergeShimSettings lays the flags given on the command line over the
// config file: a flag replaces that key's value from the file entirely (a
// --redact-key drops the file's redact-key lines, not its redact-value).
func mergeShimSettings(cmd *cobra.Command, o *shimOptions, cfg *capture.Config, derived, fallback string) (shimSettings, error) {
	if cfg == nil {
		cfg = &capture.Config{}
	}
	flags := cmd.Flags()
	set := func(name string) bool { return flags.Changed(name) }
	var st shimSettings
	explicit := true
	switch {
	case set("label"):
		st.label = o.label
	case cfg.Label != nil:
		st.label = *cfg.Label
	default:
		st.label, explicit = derived, false
	}
	if err := capture.ValidateLabel(st.label); err != nil {
		if explicit {
			return st, err
		}
		st.label = fallback // the command or target names no usable label
	}
	st.traceFile = o.traceFile
	if !set("trace-file") && cfg.TraceFile != nil {
		st.traceFile = *cfg.TraceFile
	}
	st.noTrace = o.noTrace
	if !set("no-trace") && cfg.NoTrace != nil {
		st.noTrace = *cfg.NoTrace
	}
	ro := o.redact.options()
	if !set("redact-secrets") && cfg.RedactSecrets != nil {
		ro.Secrets = *cfg.RedactSecrets
	}
	if !set("redact-key") {
		ro.Keys = cfg.RedactKeys
	}
	if !set("redact-value") {
		ro.Values = cfg.RedactValues
	}
	if !set("redact-path") {
		ro.Paths = cfg.RedactPaths
	}
	red, err := capture.NewRedactor(ro)
	if err != nil {
		return st, err
	}
	st.redactor = red
	return st, nil
}

// openShimLog creates the session's log and says where it goes. A log that
// cannot be opened costs the log, never the session: the shim forwards
// without one.
func openShimLog(st shimSettings, args []string, stderr io.Writer) *capture.LogWriter {
	f, path, sid := openLog(st, stderr, "mcpsnoop")
	if f == nil {
		if st.sink == nil {
			return nil
		}
		return capture.NewLogWriter(spanOnlyLog(st.sink), capture.LogOptions{SessionID: sid, Label: st.label, Path: "(no log)", Redactor: st.redactor})
	}
	fmt.Fprintf(stderr, "mcpsnoop: logging %q to %s (session %s)\n", strings.Join(st.redactor.Command(args), " "), path, sid)
	return capture.NewLogWriter(tapLog(st.sink, f), capture.LogOptions{
		SessionID: sid, Label: st.label, Path: path, Redactor: st.redactor, Warn: stderr,
	})
}

// openLog opens the log a capture writes: --trace-file, or a new session
// log in the state directory. A log that cannot be opened is a warning on
// stderr (prefixed by who) and a nil file: traffic is forwarded without one.
func openLog(st shimSettings, stderr io.Writer, who string) (f *os.File, path, sid string) {
	sid = capture.NewSessionID(st.label)
	var err error
	if st.traceFile != "" {
		f, path, err = capture.OpenLogFile(st.traceFile)
	} else {
		f, path, err = capture.OpenSessionLog(sid)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: warning: cannot write the log %s: %v; forwarding without a log\n", who, path, atomicfile.PlainError(err))
		return nil, path, sid
	}
	return f, path, sid
}
