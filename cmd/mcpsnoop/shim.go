package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/otlpsink"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// shimOptions are the root command's flags: how to run the stdio shim.
type shimOptions struct {
	label      string
	traceFile  string
	logDir     string
	maxLogSize string
	noTrace    bool
	killGrace  time.Duration
	redact     redactFlags
	otlp       otlpFlags
}

// registerLogFlags registers the flags that say where the log goes and how
// big it may grow, shared by the shim and `mcpsnoop http`.
func (o *shimOptions) registerLogFlags(f *pflag.FlagSet) {
	f.StringVar(&o.traceFile, "trace-file", "", "write the log to this file, appending, its folder made if missing (default <state>/sessions/<session-id>.jsonl)")
	f.StringVar(&o.logDir, "log-dir", "", "write the log in this folder (created if missing) as <session-id>.jsonl, instead of <state>/sessions (default $MCPSNOOP_LOG_DIR)")
	f.StringVar(&o.maxLogSize, "max-log-size", capture.FormatSize(capture.DefaultMaxLogSize), "stop logging past this size: later frames are dropped and counted, traffic is untouched (0: no bound)")
	f.BoolVar(&o.noTrace, "no-trace", false, "forward only: no log, no state directory")
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
	f.StringVar(&o.label, "label", "", "server label in the log and its file name (default: named after the server: its package, module or project folder, from the command)")
	o.registerLogFlags(f)
	f.DurationVar(&o.killGrace, "kill-grace", stdio.DefaultKillGrace, "after passing on SIGINT, SIGTERM or SIGHUP, kill the server if it has not exited within this time; and after the client's input ends, end the server (SIGTERM, then SIGKILL after as long again) if it has not exited within this time")
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
	label      string
	traceFile  string
	logDir     string
	maxLogSize int64
	noTrace    bool
	redactor   *capture.Redactor
	sink       *otlpsink.Sink // live OTLP streaming, nil when off
}

func runShim(cmd *cobra.Command, args []string, o *shimOptions) error {
	capture.BoundMemory() // the heap near what is live, whatever the traffic
	if len(args) == 0 {
		if cmd.Flags().NFlag() == 0 {
			return cmd.Help()
		}
		return shimFail("no server command to run: %s", shimUsage)
	}
	if o.killGrace <= 0 {
		return shimFail("--kill-grace must be positive, got %s", o.killGrace)
	}
	cfg, notice, err := loadProjectConfig("mcpsnoop")
	if err != nil {
		return shimFail("%v", err)
	}
	st, err := mergeShimSettings(cmd, o, cfg, capture.DeriveLabel(args), "server")
	if err != nil {
		return shimFail("%v", err)
	}
	if !st.noTrace && st.traceFile != "" && sameFile(st.traceFile, cmd.OutOrStdout()) {
		return shimFail("--trace-file %s is the shim's own stdout, which carries the server's messages to the client; name another file", st.traceFile)
	}

	stderr := cmd.ErrOrStderr()
	// The shim's own lines (the span sink's and the log's included) go
	// through one queue that never waits: stderr may be a full pipe the
	// client never reads. The server's stderr is forwarded as it comes.
	notes := capture.NewNotices(stderr)
	if notice != "" {
		notes.Say(notice)
	}
	if st.sink, err = o.otlp.open("mcpsnoop", notes); err != nil {
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
		Notices: notes, Signals: sigs, KillGrace: o.killGrace,
	}
	if !st.noTrace {
		sh.OpenLog = func() *capture.LogWriter { return openShimLog(st, args, notes, notes) }
	} else if st.sink != nil {
		sh.OpenLog = func() *capture.LogWriter {
			return capture.NewLogWriter(spanOnlyLog(st.sink), capture.LogOptions{
				SessionID: capture.NewSessionID(st.label), Label: st.label, Path: "(no log)", Redactor: st.redactor,
			})
		}
	}
	code, err := sh.Run()
	closeSink(st.sink, notes, "mcpsnoop")
	notes.Close(capture.NoticeFlush)
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
	// Where the log goes is one setting with two forms: a flag for either
	// replaces both keys of the file, and so does $MCPSNOOP_LOG_DIR, the
	// user's own default (a flag still wins over it).
	if set("trace-file") || set("log-dir") {
		st.traceFile, st.logDir = o.traceFile, o.logDir
	} else if env := os.Getenv(capture.LogDirEnv); env != "" {
		st.logDir = env
	} else {
		if cfg.TraceFile != nil {
			st.traceFile = *cfg.TraceFile
		}
		if cfg.LogDir != nil {
			st.logDir = *cfg.LogDir
		}
	}
	if st.traceFile != "" && st.logDir != "" {
		return st, errors.New("--trace-file and --log-dir both say where the log goes; give one")
	}
	if set("log-dir") && o.logDir == "" {
		return st, errors.New("--log-dir is empty")
	}
	st.maxLogSize = capture.DefaultMaxLogSize
	switch {
	case set("max-log-size"):
		n, err := capture.ParseSize(o.maxLogSize)
		if err != nil {
			return st, fmt.Errorf("--max-log-size: %v", err)
		}
		st.maxLogSize = n
	case cfg.MaxLogSize != nil:
		st.maxLogSize = *cfg.MaxLogSize
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
	// The collector: --otlp-endpoint replaces the file's endpoint and its
	// headers (they may carry a token meant for the file's collector only),
	// and a header on the command line never goes to the file's collector
	// (it may carry the user's token; the file may come with a repository).
	if !set("otlp-endpoint") && cfg.OTLPEndpoint != nil {
		if set("otlp-header") {
			return st, errors.New("--otlp-header goes only to the collector given with --otlp-endpoint on the command line, never to the one " + capture.ConfigFile + " names; give --otlp-endpoint too")
		}
		o.otlp.endpoint = *cfg.OTLPEndpoint
		o.otlp.headers = cfg.OTLPHeaders
	} else if cfg.OTLPEndpoint == nil && cfg.OTLPHeaders != nil && !set("otlp-endpoint") {
		return st, errString(capture.ConfigFile + ": otlp-header needs otlp-endpoint")
	}
	return st, nil
}

// openShimLog creates the session's log and says where it goes. A log that
// cannot be opened costs the log, never the session: the shim forwards
// without one.
func openShimLog(st shimSettings, args []string, stderr io.Writer, warn *capture.Notices) *capture.LogWriter {
	f, path, sid := openLog(st, stderr, "mcpsnoop")
	if f == nil {
		if st.sink == nil {
			return nil
		}
		return capture.NewLogWriter(spanOnlyLog(st.sink), capture.LogOptions{SessionID: sid, Label: st.label, Path: "(no log)", Redactor: st.redactor})
	}
	fmt.Fprintf(stderr, "mcpsnoop: logging %q to %s (session %s)\n", strings.Join(st.redactor.Command(args), " "), path, sid)
	return capture.NewLogWriter(tapLog(st.sink, f), capture.LogOptions{
		SessionID: sid, Label: st.label, Path: path, Redactor: st.redactor, Warn: warn, MaxSize: st.maxLogSize,
	})
}

// openLog opens the log a capture writes: --trace-file, a new session log
// in --log-dir (created like mkdir -p, relative to the working directory),
// or one in the state directory. A log that cannot be opened is a warning
// on stderr (prefixed by who) and a nil file: traffic is forwarded without
// one.
func openLog(st shimSettings, stderr io.Writer, who string) (f *capture.LogFile, path, sid string) {
	sid = capture.NewSessionID(st.label)
	var err error
	switch {
	case st.traceFile != "":
		f, path, err = capture.OpenLogFile(st.traceFile)
	case st.logDir != "":
		path = filepath.Join(st.logDir, sid+".jsonl")
		if err = os.MkdirAll(st.logDir, 0o777); err == nil {
			f, path, err = capture.OpenLogFile(path)
		}
	default:
		f, path, err = capture.OpenSessionLog(sid)
		if w := capture.StateDirWarning(); w != "" && err == nil {
			fmt.Fprintf(stderr, "%s: %s\n", who, w)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: warning: cannot write the log %s: %v; forwarding without a log\n", who, path, atomicfile.PlainError(err))
		return nil, path, sid
	}
	return f, path, sid
}

// sameFile reports whether path names the file w writes to: w is an
// *os.File (a pipe, a terminal, a regular file) and path resolves to the
// same one (/dev/stdout, /dev/fd/1, or the file stdout was redirected to).
func sameFile(path string, w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
