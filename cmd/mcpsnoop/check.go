package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/codeclimate"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/junit"
	"github.com/mcpsnoop/mcpsnoop/report"
	"github.com/mcpsnoop/mcpsnoop/sarif"
	"github.com/spf13/cobra"
)

type checkOptions struct {
	failOn      string
	format      string
	maxDuration time.Duration
	maxServer   time.Duration
	maxRounds   int
	verbose     bool
	expectTools []string
	forbidTools []string
	sarifPath   string
	junitPath   string
	jsonPath    string
	logName     string
	baselineDir string
	run         string
	listRuns    bool
	redact      redactFlags
	github      githubOptions
	wire        bool
	explain     string
}

func newCheckCmd() *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check [LOG|SESSION-ID|DIR|- ...]",
		Short: "Check session logs and fail on protocol faults (the CI gate)",
		Long: `Check reads one or more session logs, rebuilds every session in them, and
fails when a gated signal fires or an assertion does not hold.

Inputs: log paths, session ids (looked up in the state directory), directories
(every *.jsonl directly inside, by name) and - for standard input. Without an
argument the newest log in the state directory is checked.

Signals for --fail-on: error, invalid, warn, mismatch, pending, late-result,
drift, deprecated, incomplete, schema, wire. Every signal is counted; only the
gated ones fail the run. wire (every frame validated against the MCP JSON
schema of its session's protocol revision) runs only when gated or asked for
with --wire, as it costs time. --explain RULE says what a rule checks and
which section of the specification it enforces.

Exit codes: 0 passed, 1 a gated signal or an assertion failed, 2 nothing was
checked (bad flag or unreadable input; the reason goes to stderr and nothing to
stdout).`,
		Example: `  mcpsnoop check run.jsonl
  mcpsnoop check --fail-on error,invalid,warn,pending --max-duration 5s logs/
  mcpsnoop check --format sarif --junit report.xml run.jsonl > results.sarif
  mcpsnoop check --fail-on error,invalid,warn,wire run.jsonl
  mcpsnoop check --explain W24`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("explain") {
				return runExplain(cmd, args, o.explain)
			}
			return runCheckCmd(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.failOn, "fail-on", "error,invalid,warn", "comma-separated signals that fail the run")
	f.StringVar(&o.format, "format", "text", "report on stdout: text, junit, sarif or codeclimate (GitLab Code Quality)")
	f.DurationVar(&o.maxDuration, "max-duration", 0, "fail when a finished tools/call took longer than this, wall clock (e.g. 5s; 0 disables)")
	f.DurationVar(&o.maxServer, "max-server-duration", 0, "fail when the server's share of a finished tools/call is longer than this, the user's time between MRTR round trips left out (0 disables)")
	f.IntVar(&o.maxRounds, "max-round-trips", 0, "fail when a tools/call takes more requests than this, MRTR retries included (0 disables)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "text report: also list each multi-round-trip interaction")
	f.StringArrayVar(&o.expectTools, "expect-tool", nil, "fail unless this tool was called (repeatable)")
	f.StringArrayVar(&o.forbidTools, "forbid-tool", nil, "fail if this tool was called (repeatable)")
	f.StringVar(&o.sarifPath, "sarif", "", "also write a SARIF report to this file")
	f.StringVar(&o.junitPath, "junit", "", "also write a JUnit report to this file")
	f.StringVar(&o.jsonPath, "json", "", "also write the JSON report to this file (- for standard output, in place of the text report)")
	f.StringVar(&o.logName, "log-name", "", "file name to give SARIF results read from standard input")
	f.StringVar(&o.baselineDir, "baseline", "", "tool-baseline folder for drift (default <state>/tool-baselines)")
	f.StringVar(&o.run, "run", "", "check every session of one agent run (a run id, or latest), from the state directory or the logs named")
	f.BoolVar(&o.listRuns, "runs", false, "list the agent runs found, newest first, and exit")
	o.redact.register(f)
	o.github.addFlags(f)
	f.BoolVar(&o.wire, "wire", false, "validate every frame against the JSON schema of its protocol revision and count the wire signal, without gating on it")
	f.StringVar(&o.explain, "explain", "", "print what a rule checks (W1-W49, M1, wire; all lists them) and the spec section it enforces, and exit")
	return cmd
}

// checkFail is an error that stops check before anything was judged.
func checkFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop check: " + fmt.Sprintf(format, args...)}
}

func runCheck(cmd *cobra.Command, args []string, o checkOptions) error {
	lowerGCTarget()
	if o.maxRounds < 0 {
		return checkFail("--max-round-trips must be 0 (off) or more, got %d", o.maxRounds)
	}
	red, err := o.redact.redactor()
	if err != nil {
		return checkFail("%v", err)
	}
	failOn, err := checker.ParseFailOn(o.failOn)
	if err != nil {
		return checkFail("%v", err)
	}
	format := strings.ToLower(strings.TrimSpace(o.format))
	if format != "text" && format != "junit" && format != "sarif" && format != "codeclimate" {
		return checkFail("--format must be text, junit, sarif, or codeclimate, got %q", o.format)
	}
	var sessions map[string]bool
	var inputs []capture.Input
	if o.listRuns || o.run != "" {
		id := o.run
		if o.listRuns {
			id = ""
		}
		sel, err := selectRunInputs("check", args, id, cmd.InOrStdin(), cmd.ErrOrStderr())
		if err != nil {
			return checkFail("%v", err)
		}
		if o.listRuns {
			writeRuns(cmd.OutOrStdout(), sel.Runs)
			return nil
		}
		inputs, sessions = sel.Inputs, sel.Sessions
	} else if inputs, err = resolveCommandInputs(cmd, "check", args); err != nil {
		return checkFail("%v", err)
	}
	plan, err := planReports(cmd, o, format, inputs)
	if err != nil {
		return checkFail("%v", err)
	}

	validate := o.wire || slices.Contains(failOn, checker.SignalWire)
	if validate {
		wireGCTarget()
	}
	eng := checker.New(checker.Config{
		FailOn: failOn, MaxDuration: o.maxDuration, MaxServerDuration: o.maxServer, MaxRoundTrips: o.maxRounds,
		ExpectTools: o.expectTools, ForbidTools: o.forbidTools,
		Baseline: baseline.Store{Dir: o.baselineDir},
		Sessions: sessions,
		Wire:     validate,
	})
	for _, in := range inputs {
		if err := ingestRedacted(eng, in, cmd.InOrStdin(), red); err != nil {
			return checkFail("%v", err)
		}
	}
	rep := eng.Report()

	sarifOpts := sarif.Options{Version: appVersion(), LogName: o.logName, WorkDir: o.github.workDir()}
	render := map[string]func(io.Writer) error{
		"text":  func(w io.Writer) error { return report.WriteText(w, rep, report.TextOptions{Verbose: o.verbose}) },
		"junit": func(w io.Writer) error { return junit.Write(w, rep) },
		"sarif": func(w io.Writer) error { return sarif.Write(w, rep, sarifOpts) },
		"json":  func(w io.Writer) error { return report.WriteJSON(w, rep) },
		"codeclimate": func(w io.Writer) error {
			return codeclimate.Write(w, rep, codeclimate.Options{LogName: o.logName})
		},
	}
	// Render everything before writing anything, so a failure leaves no
	// partial report behind and nothing on stdout.
	var stdout bytes.Buffer
	if err := render[plan.stdoutFormat](&stdout); err != nil {
		return checkFail("rendering the %s report: %v", plan.stdoutFormat, err)
	}
	var writes []atomicfile.File
	for _, out := range plan.files {
		if out.target.Kind == atomicfile.Descriptor && out.target.FD == 1 {
			continue // it is the stdout report
		}
		var buf bytes.Buffer
		if err := render[out.format](&buf); err != nil {
			return checkFail("rendering the %s report: %v", out.format, err)
		}
		data := buf.Bytes()
		if out.target.Kind == atomicfile.Descriptor {
			data = o.github.guard(data) // a stream the runner may read
		}
		writes = append(writes, atomicfile.File{Path: out.target.Name, Data: data, Perm: 0o644})
	}
	if err := atomicfile.WriteAll(writes, stdStreams(cmd)); err != nil {
		return checkFail("%v", err)
	}
	if err := o.github.publish(rep, o); err != nil {
		return checkFail("%v", err)
	}
	if _, err := cmd.OutOrStdout().Write(o.github.guard(stdout.Bytes())); err != nil {
		return checkFail("writing the report: %v", err)
	}
	if rep.Verdict != checker.Passed {
		return &exitError{code: 1}
	}
	return nil
}

// ingestInput streams one log into the engine.
func ingestInput(eng *checker.Engine, in capture.Input, stdin io.Reader) error {
	return ingestRedacted(eng, in, stdin, nil)
}

// ingestRedacted is ingestInput with red applied to every frame first (the
// log itself is never changed).
func ingestRedacted(eng *checker.Engine, in capture.Input, stdin io.Reader, red *capture.Redactor) error {
	return in.Read(stdin, red, func(fr *capture.Frame, line int) bool {
		return eng.Ingest(fr, checker.Position{Path: in.Path, Name: in.Name, Line: line})
	}, eng.TornTail)
}
