package capturecli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/otlpsink"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Options are a capture's flags as given: the shim's, and those of them
// `mcpsnoop http`, `bridge` and `mock` share.
type Options struct {
	Label      string
	TraceFile  string
	LogDir     string
	MaxLogSize string
	NoTrace    bool
	KillGrace  time.Duration
	Redact     RedactFlags
	OTLP       OTLPFlags
}

// RegisterLogFlags registers the flags that say where the log goes and how
// big it may grow, shared by the shim and `mcpsnoop http`.
func (o *Options) RegisterLogFlags(f *pflag.FlagSet) {
	f.StringVar(&o.TraceFile, "trace-file", "", "write the log to this file, appending, its folder made if missing (default <state>/sessions/<session-id>.jsonl)")
	f.StringVar(&o.LogDir, "log-dir", "", "write the log in this folder (created if missing) as <session-id>.jsonl, instead of <state>/sessions (default $MCPSNOOP_LOG_DIR)")
	f.StringVar(&o.MaxLogSize, "max-log-size", capture.FormatSize(capture.DefaultMaxLogSize), "stop logging past this size: later frames are dropped and counted, traffic is untouched (0: no bound)")
	f.BoolVar(&o.NoTrace, "no-trace", false, "forward only: no log, no state directory")
}

// Settings are the flags merged over the config file.
type Settings struct {
	Label      string
	TraceFile  string
	LogDir     string
	MaxLogSize int64
	NoTrace    bool
	Redactor   *capture.Redactor
	Sink       *otlpsink.Sink // live OTLP streaming, nil when off
}

// MergeSettings lays the flags given on the command line over the
// config file: a flag replaces that key's value from the file entirely (a
// --redact-key drops the file's redact-key lines, not its redact-value).
func MergeSettings(cmd *cobra.Command, o *Options, cfg *capture.Config, derived, fallback string) (Settings, error) {
	if cfg == nil {
		cfg = &capture.Config{}
	}
	flags := cmd.Flags()
	set := func(name string) bool { return flags.Changed(name) }
	var st Settings
	explicit := true
	switch {
	case set("label"):
		st.Label = o.Label
	case cfg.Label != nil:
		st.Label = *cfg.Label
	default:
		st.Label, explicit = derived, false
	}
	if err := capture.ValidateLabel(st.Label); err != nil {
		if explicit {
			return st, err
		}
		st.Label = fallback // the command or target names no usable label
	}
	// Where the log goes is one setting with two forms: a flag for either
	// replaces both keys of the file, and so does $MCPSNOOP_LOG_DIR, the
	// user's own default (a flag still wins over it).
	if set("trace-file") || set("log-dir") {
		st.TraceFile, st.LogDir = o.TraceFile, o.LogDir
	} else if env := os.Getenv(capture.LogDirEnv); env != "" {
		st.LogDir = env
	} else {
		if cfg.TraceFile != nil {
			st.TraceFile = *cfg.TraceFile
		}
		if cfg.LogDir != nil {
			st.LogDir = *cfg.LogDir
		}
	}
	if st.TraceFile != "" && st.LogDir != "" {
		return st, errors.New("--trace-file and --log-dir both say where the log goes; give one")
	}
	if set("log-dir") && o.LogDir == "" {
		return st, errors.New("--log-dir is empty")
	}
	st.MaxLogSize = capture.DefaultMaxLogSize
	switch {
	case set("max-log-size"):
		n, err := capture.ParseSize(o.MaxLogSize)
		if err != nil {
			return st, fmt.Errorf("--max-log-size: %v", err)
		}
		st.MaxLogSize = n
	case cfg.MaxLogSize != nil:
		st.MaxLogSize = *cfg.MaxLogSize
	}
	st.NoTrace = o.NoTrace
	if !set("no-trace") && cfg.NoTrace != nil {
		st.NoTrace = *cfg.NoTrace
	}
	ro := o.Redact.Options()
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
	st.Redactor = red
	// The collector: --otlp-endpoint replaces the file's endpoint and its
	// headers (they may carry a token meant for the file's collector only),
	// and a header on the command line never goes to the file's collector
	// (it may carry the user's token; the file may come with a repository).
	if !set("otlp-endpoint") && cfg.OTLPEndpoint != nil {
		if set("otlp-header") {
			return st, errors.New("--otlp-header goes only to the collector given with --otlp-endpoint on the command line, never to the one " + capture.ConfigFile + " names; give --otlp-endpoint too")
		}
		o.OTLP.endpoint = *cfg.OTLPEndpoint
		o.OTLP.headers = cfg.OTLPHeaders
	} else if cfg.OTLPEndpoint == nil && cfg.OTLPHeaders != nil && !set("otlp-endpoint") {
		return st, errString(capture.ConfigFile + ": otlp-header needs otlp-endpoint")
	}
	return st, nil
}

// OpenLog opens the log a capture writes: --trace-file, a new session log
// in --log-dir (created like mkdir -p, relative to the working directory),
// or one in the state directory. A log that cannot be opened is a warning
// on stderr (prefixed by who) and a nil file: traffic is forwarded without
// one.
func OpenLog(st Settings, stderr io.Writer, who string) (f *capture.LogFile, path, sid string) {
	sid = capture.NewSessionID(st.Label)
	var err error
	switch {
	case st.TraceFile != "":
		f, path, err = capture.OpenLogFile(st.TraceFile)
	case st.LogDir != "":
		path = filepath.Join(st.LogDir, sid+".jsonl")
		if err = os.MkdirAll(st.LogDir, 0o777); err == nil {
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

// SameFile reports whether path names the file w writes to: w is an
// *os.File (a pipe, a terminal, a regular file) and path resolves to the
// same one (/dev/stdout, /dev/fd/1, or the file stdout was redirected to).
func SameFile(path string, w io.Writer) bool {
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
