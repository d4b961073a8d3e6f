package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/diff"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/junit"
	"github.com/mcpsnoop/mcpsnoop/replay"
	"github.com/mcpsnoop/mcpsnoop/sarif"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newVerifyCmd) }

type verifyOptions struct {
	replay       replayFlags
	session      string
	ignore       []string
	noDefaults   bool
	ignoreOrder  bool
	threshold    time.Duration
	ratio        float64
	failOnSlower bool
	format       string
	jsonPath     string
	junitPath    string
	sarifPath    string
	replayLog    string
	update       bool
	redact       capturecli.RedactFlags
}

func newVerifyCmd() *cobra.Command {
	o := verifyOptions{threshold: diff.DefaultOptions.Threshold, ratio: diff.DefaultOptions.Ratio}
	cmd := &cobra.Command{
		Use:   "verify RECORDING [-- SERVER-COMMAND [args...] | --replay-target URL]",
		Short: "Replay a recorded session against a server build and fail on what changed",
		Long: `verify replays every replayable call of a recorded session, in order, against
a live server, and compares each answer with the recorded one.

The server is the command after -- (your new build), or a Streamable HTTP
endpoint named with --replay-target; a stdio recording without either runs
its recorded command in its recorded directory. An HTTP recording is never
replayed against the endpoint it names. The replay goes through mcpsnoop's
own capture, so it is a session log too, appended to
<state>/replays/<session-id>.jsonl (--replay-log).

Only safe calls are replayed unless --all says otherwise: reads (tools/list,
resources/read, prompts/get, ...) and tools the recorded tools/list annotates
readOnlyHint: true, or idempotentHint: true with destructiveHint: false.
Nothing the recording redacted is sent: a redacted request is skipped, a
redacted initialize stops the replay. The server's questions (an
elicitation, a sampling request, roots; an MRTR round) are answered with the
recorded answers; one without, or whose recorded answer was redacted, is
declined and reported.

Answers are compared after removing what changes on every run: the id,
_meta.progressToken, serverInfo in _meta, requestState, taskId, createdAt,
lastUpdatedAt and lastModified (--no-default-ignores keeps them), plus every
--ignore JSONPATH; --ignore-order compares arrays as sets. A changed value
is shown around its first difference (40 characters either side, … where
cut). Statuses and the tool listing are judged as mcpsnoop diff judges
them.

Per call the report says: same, changed (with the JSON paths), error now
(quoting the new error), ok now, timed out, failed (no answer for another
reason: the server exited, the exchange failed), not offered (the new
build does not list the tool) or not replayed (and why).

A tool is slower when the median of its replayed calls exceeds the median
of its recorded calls by both --duration-threshold and --duration-ratio.
Slower tools are always reported; they fail the verify only with
--fail-on-slower, since a busy CI machine can make any call slow.

The replay speaks the revision the recording negotiated: its initialize, or
without one, the revision its requests declare. A request whose recorded
_meta declares a revision is sent with that _meta (only clientInfo is the
replay's); no other request gets one.

--update accepts the new build's answers into the recording, as a VCR
re-records: every recorded frame stays (calls not replayed as recorded),
the answers of the replayed calls and of initialize become the new build's,
timed as the replay timed them and never before the frame logged before
them, and calls to tools it no longer offers are taken out. It is refused
when the replay stopped or a replayed call timed out or got no usable
answer.

Exit codes: 0 nothing regressed (with --update: the recording is updated);
1 a regression: an answer changed, a call fails, gets no answer or times
out now, or its tool is gone, or the tool listing lost a tool or changed a
definition, or (with --fail-on-slower) a tool got slower; 2 nothing was
verified (bad flag or input, no replayable call, the replay could not
start or was not confirmed, --update refused; nothing on stdout).`,
		Example: `  mcpsnoop verify --yes recordings/session.jsonl -- ./bin/server --stdio
  mcpsnoop verify --yes --format junit recordings/session.jsonl -- node build/index.js > verify.xml
  mcpsnoop verify --replay-target http://127.0.0.1:8080/mcp --replay-header 'Authorization: Bearer dev' rec.jsonl
  mcpsnoop verify --ignore '$.result.structuredContent.generatedAt' --ignore-order rec.jsonl -- ./server
  mcpsnoop verify --update --yes rec.jsonl -- ./server     # accept what the new build answers`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd, args, o) },
	}
	f := cmd.Flags()
	o.replay.register(f)
	f.StringVar(&o.session, "session", "", "which session of the log to verify (default: the first)")
	f.StringArrayVar(&o.ignore, "ignore", nil, "leave out what this JSONPath selects in both answers, e.g. '$.result.structuredContent.now' (repeatable)")
	f.BoolVar(&o.noDefaults, "no-default-ignores", false, "compare the fields ignored by default too (ids, progress tokens, timestamps, ...)")
	f.BoolVar(&o.ignoreOrder, "ignore-order", false, "compare arrays without regard to order")
	f.DurationVar(&o.threshold, "duration-threshold", o.threshold, "smallest change of a tool's median duration reported as slower or faster (as in diff)")
	f.Float64Var(&o.ratio, "duration-ratio", o.ratio, "smallest ratio between the longer and the shorter median duration reported (as in diff, at least 1)")
	f.BoolVar(&o.failOnSlower, "fail-on-slower", false, "fail (exit 1) when a tool got slower; without it slower tools are only reported")
	f.StringVar(&o.format, "format", "text", "report on stdout: text, json, junit or sarif")
	f.StringVar(&o.jsonPath, "json", "", "also write the JSON report to this file")
	f.StringVar(&o.junitPath, "junit", "", "also write a JUnit report to this file (one test case per call)")
	f.StringVar(&o.sarifPath, "sarif", "", "also write a SARIF report to this file (results on the recording's lines)")
	f.StringVar(&o.replayLog, "replay-log", "", "append the replay's session log here (default <state>/replays/<session-id>.jsonl)")
	f.BoolVar(&o.update, "update", false, "accept the new build's answers into the recording (calls not replayed stay as recorded); refused when the replay stopped or a call got no answer; exits 0 once written")
	o.redact.Register(f)
	return cmd
}

func verifyFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop verify: " + fmt.Sprintf(format, args...)}
}

func runVerify(cmd *cobra.Command, args []string, o verifyOptions) error {
	switch err := verify(cmd, args, o); {
	case err == nil:
		return nil
	case errors.Is(err, errRegressed):
		return &exitError{code: 1}
	default:
		return verifyFail("%v", err)
	}
}

// errRegressed is verify's verdict that the new build regressed (exit 1).
var errRegressed = errors.New("regressed")

// verify is runVerify's steps; an error it returns other than errRegressed
// is one that leaves nothing verified (exit 2).
func verify(cmd *cobra.Command, args []string, o verifyOptions) error {
	recArg, command, err := verifyArgs(cmd, args)
	if err != nil {
		return err
	}
	setup, err := o.setUp(command)
	if err != nil {
		return err
	}
	in, err := verifyInput(recArg)
	if err != nil {
		return err
	}
	if err := checkVerifyOutputs(o, in); err != nil {
		return err
	}
	counted := []capture.Input{in}
	stop := showReading(cmd.ErrOrStderr(), counted)
	rec, err := replay.Load(counted[0], nil, o.session)
	stop()
	if err != nil {
		return err
	}
	if o.update && rec.Path == "" {
		return errors.New("--update rewrites the recording, so it must be a file")
	}
	logPath, err := replayLogPath(o, rec, in)
	if err != nil {
		return err
	}
	shim, err := shimExecutable()
	if err != nil {
		return fmt.Errorf("cannot find the mcpsnoop executable to run the server through: %v", err)
	}
	stderr := cmd.ErrOrStderr()
	target := replay.Target{Command: command, Shim: shim, ShimArgs: o.redact.Args(), URL: o.replay.target, Header: setup.header,
		Redactor: setup.red, Log: logPath, LogInState: o.replayLog == "", Stderr: stderr}
	where, err := replay.Describe(rec, target)
	if err != nil {
		return fmt.Errorf("%s: %v", rec.Source, err)
	}
	planned, err := plannedCalls(rec, o.replay.all)
	if err != nil {
		return err
	}
	if err := confirmReplay(cmd, o, rec, planned, where); err != nil {
		return err
	}
	if o.replay.all {
		fmt.Fprintln(stderr, "mcpsnoop verify: --all: replaying every recorded call, including tools not annotated read-only")
	}
	res, err := replay.Run(context.Background(), rec, target, replay.Options{
		All: o.replay.all, CallTimeout: o.replay.timeout, ClientName: "mcpsnoop-verify", ClientVersion: appVersion(),
	})
	if err != nil {
		return err
	}
	return verdict(cmd, o, setup, rec, res)
}

// verifySetup is what verify's flags give once checked.
type verifySetup struct {
	header   http.Header
	format   string
	comparer *replay.Comparer
	red      *capture.Redactor
}

// verifyArgs splits the arguments into the recording and the server
// command after --.
func verifyArgs(cmd *cobra.Command, args []string) (string, []string, error) {
	recArgs, command := args, []string(nil)
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		recArgs, command = args[:dash], args[dash:]
		if len(command) == 0 {
			return "", nil, errors.New("nothing after --: give the server command to replay against")
		}
	}
	if len(recArgs) != 1 {
		return "", nil, fmt.Errorf("want one recording (a log path or a session id), got %d", len(recArgs))
	}
	return recArgs[0], command, nil
}

// setUp checks the flags and builds what they describe.
func (o verifyOptions) setUp(command []string) (verifySetup, error) {
	var st verifySetup
	header, err := o.replay.check()
	if err != nil {
		return st, err
	}
	switch {
	case o.replay.target != "" && command != nil:
		return st, errors.New("give a server command after -- or --replay-target, not both")
	case o.threshold < 0:
		return st, errors.New("--duration-threshold must not be negative")
	case math.IsNaN(o.ratio) || math.IsInf(o.ratio, 0) || o.ratio < 1:
		return st, errors.New("--duration-ratio must be finite and at least 1")
	}
	format := strings.ToLower(strings.TrimSpace(o.format))
	if format != "text" && format != "json" && format != "junit" && format != "sarif" {
		return st, fmt.Errorf("--format must be text, json, junit or sarif, got %q", o.format)
	}
	comparer, err := replay.NewComparer(o.ignore, o.noDefaults, o.ignoreOrder)
	if err != nil {
		return st, err
	}
	red, err := o.redact.Redactor()
	if err != nil {
		return st, err
	}
	return verifySetup{header: header, format: format, comparer: comparer, red: red}, nil
}

// replayLogPath is where the replay's session log goes, absolute (the
// shim runs in the server's directory, not this one), and never the
// recording itself.
func replayLogPath(o verifyOptions, rec *replay.Recording, in capture.Input) (string, error) {
	logPath := o.replayLog
	var err error
	if logPath == "" {
		if logPath, err = defaultReplayLog(rec.SessionID); err != nil {
			return "", err
		}
	}
	if logPath, err = filepath.Abs(logPath); err != nil {
		return "", fmt.Errorf("replay log: %v", err)
	}
	logTarget, err := atomicfile.Resolve(logPath, true) // the replay makes its folder (capture.OpenLogFile)
	if err != nil {
		return "", fmt.Errorf("replay log: %v", err)
	}
	if same := sameAsInput(logTarget, []capture.Input{in}, nil); same != "" {
		if o.replayLog == "" {
			return "", fmt.Errorf("the default replay log %s is the recording itself; name another with --replay-log", logPath)
		}
		return "", fmt.Errorf("--replay-log %s would write into the recording", o.replayLog)
	}
	return logPath, nil
}

// plannedCalls counts the recorded calls the replay will send, and says
// why there are none when there are none.
func plannedCalls(rec *replay.Recording, all bool) (int, error) {
	if why := rec.InitSkipReason(); why != "" {
		return 0, fmt.Errorf("%s: nothing to replay: %s", rec.Source, termsafe.Clean(why, false))
	}
	planned, firstSkip := 0, ""
	for _, r := range rec.Steps {
		if r.Notification() {
			continue
		}
		if why := rec.SkipReason(r, all, nil); why == "" {
			planned++
		} else if firstSkip == "" {
			firstSkip = why
		}
	}
	switch {
	case planned > 0:
		return planned, nil
	case firstSkip == "":
		return 0, fmt.Errorf("%s: session %s has no recorded call to replay", rec.Source, rec.SessionID)
	}
	return 0, fmt.Errorf("%s: nothing to replay: no recorded call may be sent (%s)", rec.Source, termsafe.Clean(firstSkip, false))
}

// confirmReplay asks on the terminal before calls are sent, unless --yes.
func confirmReplay(cmd *cobra.Command, o verifyOptions, rec *replay.Recording, planned int, where string) error {
	if o.replay.yes {
		return nil
	}
	stdin := cmd.InOrStdin()
	if !stdinIsTerminal(stdin) {
		return fmt.Errorf("replaying sends %d recorded call(s) to %s; there is no terminal to ask first, so pass --yes", planned, termsafe.Clean(where, false))
	}
	// The command and the session id come from the log: escaped.
	fmt.Fprintf(cmd.ErrOrStderr(), "replay %d recorded call(s) of %s against %s? [y/N] ", planned, termsafe.Clean(rec.SessionID, false), termsafe.Clean(where, false))
	if !confirmed(stdin) {
		return errors.New("not confirmed; nothing was replayed")
	}
	return nil
}

// verdict compares the replay with the recording, writes the reports,
// and with --update takes the new answers into the recording.
func verdict(cmd *cobra.Command, o verifyOptions, setup verifySetup, rec *replay.Recording, res *replay.Result) error {
	v, err := replay.Verify(rec, res, replay.VerifyOptions{Comparer: setup.comparer,
		Durations: diff.Options{Threshold: o.threshold, Ratio: o.ratio}, FailOnSlower: o.failOnSlower})
	if err != nil {
		return err
	}
	if v.Verified() == 0 {
		why := res.Stopped
		if why == "" && len(v.Calls) > 0 {
			why = v.Calls[0].Reason
		}
		return fmt.Errorf("%s: nothing was verified: %s (replay log %s)", rec.Source, termsafe.Clean(why, false), res.Log)
	}
	if o.update {
		// Refused before any report: exit 2 leaves stdout empty.
		if err := replay.CheckUpdate(rec, res); err != nil {
			return fmt.Errorf("--update: %s; %s is left as it was (the replay is in %s)", termsafe.Clean(err.Error(), false), rec.Source, res.Log)
		}
	}
	if err := writeVerifyReports(cmd.OutOrStdout(), reportStreams(cmd), setup.format, o, v); err != nil {
		return err
	}
	if o.update {
		up, err := replay.Update(rec, res)
		if err != nil {
			return fmt.Errorf("--update: %s", termsafe.Clean(err.Error(), false))
		}
		writeUpdated(cmd.ErrOrStderr(), rec.Source, up)
		return nil
	}
	if v.Regressed() {
		return errRegressed
	}
	return nil
}

// writeUpdated says what --update changed in the recording.
func writeUpdated(w io.Writer, source string, up *replay.Updated) {
	fmt.Fprintf(w, "mcpsnoop verify: updated %s: %d answer(s) are now the new build's", source, up.Answers)
	if up.Kept > 0 {
		fmt.Fprintf(w, "; %d call(s) not replayed are kept as recorded", up.Kept)
	}
	if len(up.Dropped) > 0 {
		fmt.Fprintf(w, "; %d call(s) to tools the new build no longer offers were taken out: %s", len(up.Dropped), termsafe.Clean(strings.Join(up.Dropped, ", "), false))
	}
	fmt.Fprintln(w)
	if up.Redacted {
		fmt.Fprintln(w, "mcpsnoop verify: note: the recording holds frames redacted at capture; the new answers were redacted only by the replay's own rules (--redact-* given to verify, .mcpsnoop.toml in the server's folder): review the change before you commit it")
	}
}

// verifyInput resolves the recording as diff resolves a log (a path, or a
// session id, label or id prefix from the state directory), but one
// file only: not standard input (a replay asks on it) nor a directory.
func verifyInput(arg string) (capture.Input, error) {
	if arg == "-" {
		return capture.Input{}, fmt.Errorf("verify reads the recording from a file or a session id, not standard input (-)")
	}
	if info, err := os.Stat(arg); err == nil && info.IsDir() {
		return capture.Input{}, fmt.Errorf("%s: is a directory; name one recording", arg)
	}
	ins, err := resolveInputs("verify", []string{arg}, nil)
	if err != nil {
		return capture.Input{}, err
	}
	return ins[0], nil
}

// checkVerifyOutputs refuses a report file that is the recording, or two
// reports in one file.
func checkVerifyOutputs(o verifyOptions, in capture.Input) error {
	type seenFile struct {
		flag string
		t    atomicfile.Target
	}
	var seen []seenFile
	for _, out := range []struct{ flag, path string }{{"--json", o.jsonPath}, {"--junit", o.junitPath}, {"--sarif", o.sarifPath}} {
		if out.path == "" {
			continue
		}
		t, err := atomicfile.Resolve(out.path, true) // its folder is made when missing
		if err != nil {
			return fmt.Errorf("%s: %w", out.flag, err)
		}
		if same := sameAsInput(t, []capture.Input{in}, nil); same != "" {
			return fmt.Errorf("%s %s would overwrite the recording %s", out.flag, out.path, same)
		}
		for _, other := range seen {
			if atomicfile.Same(other.t, t) {
				return fmt.Errorf("%s and %s both name %s; give each report its own file", other.flag, out.flag, out.path)
			}
		}
		seen = append(seen, seenFile{out.flag, t})
	}
	return nil
}

// writeVerifyReports renders every report before writing any, so a
// failure leaves neither a partial file nor anything on stdout.
func writeVerifyReports(stdout io.Writer, std atomicfile.Options, format string, o verifyOptions, v *replay.Verification) error {
	sarifOpts := sarif.Options{Version: appVersion()}
	render := map[string]func(io.Writer) error{
		"text":  v.WriteText,
		"json":  v.WriteJSON,
		"junit": func(w io.Writer) error { return junit.WriteVerify(w, v) },
		"sarif": func(w io.Writer) error { return sarif.WriteVerify(w, v, sarifOpts) },
	}
	var out bytes.Buffer
	if err := render[format](&out); err != nil {
		return fmt.Errorf("rendering the %s report: %v", format, err)
	}
	var files []atomicfile.File
	for _, f := range []struct{ path, format string }{{o.jsonPath, "json"}, {o.junitPath, "junit"}, {o.sarifPath, "sarif"}} {
		if f.path == "" {
			continue
		}
		var buf bytes.Buffer
		if err := render[f.format](&buf); err != nil {
			return fmt.Errorf("rendering the %s report: %v", f.format, err)
		}
		files = append(files, atomicfile.File{Path: f.path, Data: buf.Bytes(), Perm: 0o644})
	}
	if err := atomicfile.WriteAll(files, std); err != nil {
		return err
	}
	_, err := stdout.Write(out.Bytes())
	return err
}
