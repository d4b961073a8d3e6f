package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/codeclimate"
	"github.com/mcpsnoop/mcpsnoop/ingest"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/junit"
	"github.com/mcpsnoop/mcpsnoop/known"
	"github.com/mcpsnoop/mcpsnoop/report"
	"github.com/mcpsnoop/mcpsnoop/sarif"
	"github.com/spf13/cobra"
)

type checkOptions struct {
	failOn      string
	blame       string
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
	redact      capturecli.RedactFlags
	github      githubOptions
	wire        bool
	security    bool
	explain     string
	known       string
	writeKnown  string
	jobs        int
}

func newCheckCmd() *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check [LOG|SESSION-ID|DIR|- ...]",
		Short: "Check session logs and fail on protocol faults (the CI gate)",
		Long: `Check reads one or more session logs, rebuilds every session in them, and
fails when a gated signal fires or an assertion does not hold.

Inputs: log paths, session ids or labels (looked up in the log folders: the
state directory's sessions, $MCPSNOOP_LOG_DIR and the log-dir of
.mcpsnoop.toml here), directories (every *.jsonl directly inside, by name)
and - for standard input. Without an argument the newest log of the log
folders is checked. A file named
twice (by two paths, a directory and a path, a link) is read once, and a
session two logs hold (a copied log) is merged, its frames counted once.
Log files are read several at once, one per core as memory and the
open-file limit allow (--jobs); the report is the one reading them in
order gives.

The text report lists, under each session's counters, the findings that
fail the gate (LOG:LINE: SIGNAL/RULE: message; every finding with -v), and
ends with one verdict line. --expect-tool and --forbid-tool are judged per
agent run (see --runs); SERVER:TOOL narrows one to a server label.
--known FILE accepts the findings listed in FILE (by SARIF fingerprint, as
--write-known FILE writes them): they are reported as notes and fail
nothing, and an accepted finding of a checked server that no longer occurs
fails the check until the file is rewritten.

Signals for --fail-on: error, invalid, warn, mismatch, pending, late-result,
drift, deprecated, incomplete, schema, wire, security; or none, to gate on the
assertions only. Every signal is counted; only the gated ones fail the run.

Every finding names who is at fault: server, client, transport, or run (an
assertion, or the gate's own input). --blame server gates on the server's
findings only: a test client that sends malformed requests on purpose does
not fail a server that rightly refuses them. Findings of other parties stay
in every report, marked as not gated; assertions are judged whatever
--blame says. --explain signals lists each signal's party.
wire (every frame validated against the MCP JSON schema of its session's
protocol revision) runs only when gated or asked for with --wire, as it
costs time. security (rules S1-S9: hidden instructions, private-file
requests, exfiltration destinations, tool shadowing, hidden text and prompt
injection in what servers told the model, credentials in traffic either
way, rug pulls; offline pattern rules, no model judging) runs only when
gated or asked for with --security. --explain RULE says what a rule checks and
which section of the specification it enforces.

Exit codes: 0 passed, 1 a gated signal or an assertion failed, 2 nothing was
checked (bad flag or unreadable input; the reason goes to stderr and nothing to
stdout). With --write-known, 0 once the file is written.`,
		Example: `  mcpsnoop check run.jsonl
  mcpsnoop check --fail-on error,invalid,warn,pending --max-duration 5s logs/
  mcpsnoop check --format sarif --junit report.xml run.jsonl > results.sarif
  mcpsnoop check --format json logs/ | jq '.findings[] | select(.level == "error")'
  mcpsnoop check --run latest --expect-tool github:search_issues --forbid-tool delete_repo
  mcpsnoop check --write-known .mcpsnoop/known.txt logs/ && mcpsnoop check --known .mcpsnoop/known.txt logs/
  mcpsnoop check --fail-on error,invalid,warn,wire run.jsonl
  mcpsnoop check --fail-on error,invalid,warn,security --format sarif logs/ > security.sarif
  mcpsnoop check --blame server --format junit conformance-run/ > results.xml
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
	f.StringVar(&o.blame, "blame", "all", "comma-separated parties whose findings fail the run: server, client, transport (assertions fail it whatever this says)")
	f.StringVar(&o.format, "format", "text", "report on stdout: text, json, junit, sarif or codeclimate (GitLab Code Quality)")
	f.DurationVar(&o.maxDuration, "max-duration", 0, "fail when a finished tools/call took longer than this, wall clock (e.g. 5s; 0 disables)")
	f.DurationVar(&o.maxServer, "max-server-duration", 0, "fail when the server's share of a finished tools/call is longer than this, the user's time between MRTR round trips left out (0 disables)")
	f.IntVar(&o.maxRounds, "max-round-trips", 0, "fail when a tools/call takes more requests than this, MRTR retries included (0 disables)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "text report: list every finding, not only those that fail the gate, and each multi-round-trip interaction")
	f.StringArrayVar(&o.expectTools, "expect-tool", nil, "fail unless every run called this tool, SERVER:TOOL for one server's sessions (repeatable, or comma-separated)")
	f.StringArrayVar(&o.forbidTools, "forbid-tool", nil, "fail if a run called this tool, SERVER:TOOL for one server's sessions (repeatable, or comma-separated)")
	f.StringVar(&o.sarifPath, "sarif", "", "also write a SARIF report to this file (- for standard output)")
	f.StringVar(&o.junitPath, "junit", "", "also write a JUnit report to this file (- for standard output)")
	f.StringVar(&o.jsonPath, "json", "", "also write the JSON report to this file (- for standard output, in place of the text report)")
	f.StringVar(&o.logName, "log-name", "", "file name to give SARIF results read from standard input")
	f.StringVar(&o.baselineDir, "baseline", "", "tool-baseline folder for drift (default <state>/tool-baselines, written only for the logs in <state>/sessions, $MCPSNOOP_LOG_DIR and .mcpsnoop.toml's log-dir)")
	f.StringVar(&o.run, "run", "", "check every session of one agent run (a run id, or latest), from the log folders or the logs named")
	f.BoolVar(&o.listRuns, "runs", false, "list the agent runs found, newest first, and exit")
	o.redact.Register(f)
	o.github.addFlags(f)
	f.BoolVar(&o.wire, "wire", false, "validate every frame against the JSON schema of its protocol revision and count the wire signal, without gating on it")
	f.BoolVar(&o.security, "security", false, "run the security rules (S1-S9) and count the security signal, without gating on it")
	f.StringVar(&o.explain, "explain", "", "print what a rule checks (W1-W49, M1, wire, S1-S9; all lists them) and the spec section it enforces, and exit")
	f.StringVar(&o.known, "known", "", "accept the findings this file lists (SARIF fingerprints, as --write-known writes them): notes that fail nothing; a listed finding of a checked server that no longer occurs fails the check")
	f.StringVar(&o.writeKnown, "write-known", "", "write every finding of this check to this file as accepted (- for standard output), keeping the entries of servers it did not check; exits 0 once written")
	f.IntVar(&o.jobs, "jobs", 0, "read at most this many log files at once (0: decided once per check: one per core, at most one per log, and no more than half the memory budget (GOMEMLIMIT, else half the memory) holds for the largest log (three times its longest possible line, plus 32 MiB); 1: one after another); never more than the open-file limit allows, and all share the budget; the report is the same either way")
	return cmd
}

// checkStats, when set, is told how check read its inputs (tests set it).
var checkStats *ingest.Stats

// checkFail is an error that stops check before anything was judged.
func checkFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop check: " + fmt.Sprintf(format, args...)}
}

// checkFailErr is checkFail for err, kept for GitHub mode to read.
func checkFailErr(err error) error {
	return &exitError{code: 2, msg: "mcpsnoop check: " + err.Error(), err: err}
}

func runCheck(cmd *cobra.Command, args []string, o checkOptions) error {
	lowerGCTarget()
	if o.maxRounds < 0 {
		return checkFail("--max-round-trips must be 0 (off) or more, got %d", o.maxRounds)
	}
	if o.jobs < 0 {
		return checkFail("--jobs must be 0 (one per core) or more, got %d", o.jobs)
	}
	red, err := o.redact.Redactor()
	if err != nil {
		return checkFail("%v", err)
	}
	failOn, err := checker.ParseFailOn(o.failOn)
	if err != nil {
		return checkFail("%v", err)
	}
	blame, err := checker.ParseBlame(o.blame)
	if err != nil {
		return checkFail("%v", err)
	}
	format := strings.ToLower(strings.TrimSpace(o.format))
	if format != "text" && format != "junit" && format != "sarif" && format != "codeclimate" && format != "json" {
		return checkFail("--format must be text, json, junit, sarif, or codeclimate, got %q", o.format)
	}
	expect, err := toolSpecs("--expect-tool", o.expectTools)
	if err != nil {
		return checkFail("%v", err)
	}
	forbid, err := toolSpecs("--forbid-tool", o.forbidTools)
	if err != nil {
		return checkFail("%v", err)
	}
	knownSet, err := loadKnown(o.known)
	if err != nil {
		return checkFail("%v", err)
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
			return checkFailErr(err)
		}
		if o.listRuns {
			if err := writeRuns(cmd.OutOrStdout(), sel.Runs); err != nil {
				return checkFail("writing the runs: %v", err)
			}
			return nil
		}
		inputs, sessions = sel.Inputs, sel.Sessions
	} else if inputs, err = resolveCommandInputs(cmd, "check", args); err != nil {
		return checkFailErr(err)
	}
	plan, err := planReports(cmd, o, format, inputs)
	if err != nil {
		return checkFail("%v", err)
	}

	validate := o.wire || slices.Contains(failOn, checker.SignalWire)
	if validate {
		wireGCTarget()
	}
	cfg := checker.Config{
		FailOn: failOn, Blame: blame, MaxDuration: o.maxDuration, MaxServerDuration: o.maxServer, MaxRoundTrips: o.maxRounds,
		ExpectTools: expect, ForbidTools: forbid,
		Baseline: checkBaselines(o.baselineDir),
		Sessions: sessions,
		Wire:     validate,
		Security: o.security || slices.Contains(failOn, checker.SignalSecurity),
		Known:    knownSet, Fingerprints: o.writeKnown != "",
	}
	if red != nil {
		cfg.RedactText = red.Quote // what reports quote, beyond the frames
	}
	stop := showReading(cmd.ErrOrStderr(), inputs)
	eng, err := ingest.Check(cfg, inputs, ingest.Options{Stdin: cmd.InOrStdin(), Redactor: red, Workers: o.jobs, Stats: checkStats})
	stop()
	if err != nil {
		return checkFail("%v", err)
	}
	rep := eng.Report()

	sarifOpts := sarif.Options{Version: appVersion(), LogName: o.logName, WorkDir: o.github.workDir()}
	var oldKnown []checker.KnownFinding
	if knownSet != nil {
		oldKnown = knownSet.Entries
	}
	render := map[string]func(io.Writer) error{
		"text": func(w io.Writer) error {
			return report.WriteText(w, rep, report.TextOptions{Verbose: o.verbose, LogName: o.logName})
		},
		"known": func(w io.Writer) error { return known.Write(w, rep, oldKnown) },
		"junit": func(w io.Writer) error { return junit.Write(w, rep, junit.Options{LogName: o.logName}) },
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
		if out.target.Kind == atomicfile.Descriptor && out.format == "text" {
			data = o.github.guard(data) // a stream the runner may read
		}
		writes = append(writes, atomicfile.File{Path: out.target.Name, Data: data, Perm: 0o644})
	}
	if err := atomicfile.WriteAll(writes, reportStreams(cmd)); err != nil {
		return checkFail("%v", err)
	}
	if err := o.github.publish(rep, o, plan.listed()); err != nil {
		return checkFail("%v", err)
	}
	out := stdout.Bytes()
	if plan.stdoutFormat == "text" {
		// Only text can carry a line the runner would obey: the other
		// formats escape every line break of what they quote, and must
		// reach a pipe as the bare document.
		out = o.github.guard(out)
	}
	if _, err := cmd.OutOrStdout().Write(out); err != nil {
		return checkFail("writing the report: %v", err)
	}
	// --write-known is how a team accepts today's findings: the file was
	// written, and that is what the run was for.
	if rep.Verdict != checker.Passed && o.writeKnown == "" {
		return &exitError{code: 1}
	}
	return nil
}

// checkBaselines is check's tool-baseline store. Without --baseline it
// writes baselines only for this machine's own captures: the logs in the
// state directory's sessions and in the log-dir (or the trace-file) that
// .mcpsnoop.toml in the working directory names. A log from anywhere else
// is compared with a baseline that exists, and its first-seen one is held
// for this check only (package baseline).
func checkBaselines(dir string) baseline.Store {
	store := baseline.Store{Dir: dir}
	if dir != "" {
		return store
	}
	own := []string{capture.SessionsDir()}
	if env := os.Getenv(capture.LogDirEnv); env != "" {
		own = append(own, env) // where this user's captures write by default
	}
	// A config that cannot be read names no folder: its logs are then
	// treated as foreign, which writes less, never more.
	if cfg, err := capture.LoadConfig(capture.ConfigFile); err == nil && cfg != nil {
		if cfg.LogDir != nil {
			own = append(own, *cfg.LogDir)
		}
		if cfg.TraceFile != nil {
			own = append(own, *cfg.TraceFile)
		}
	}
	return store.OnlyOwnLogs(own...)
}

// toolSpecs splits the values of --expect-tool or --forbid-tool on commas
// (as the action does) and checks each is TOOL or SERVER:TOOL.
func toolSpecs(flag string, values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		parts := 0
		for part := range strings.SplitSeq(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if _, err := checker.ParseToolSpec(part); err != nil {
				return nil, fmt.Errorf("%s: %v", flag, err)
			}
			out = append(out, part)
			parts++
		}
		if parts == 0 {
			return nil, fmt.Errorf("%s %q names no tool", flag, v)
		}
	}
	return out, nil
}

// loadKnown reads --known's file; nil when none was given.
func loadKnown(path string) (*checker.KnownFindings, error) {
	if path == "" {
		return nil, nil
	}
	if path == "-" {
		return nil, fmt.Errorf("--known takes a file, not standard input")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--known: %s: %v", path, atomicfile.PlainError(err))
	}
	entries, err := known.Parse(data, path)
	if err != nil {
		return nil, fmt.Errorf("--known: %v", err)
	}
	return &checker.KnownFindings{Entries: entries}, nil
}

// ingestInput streams one log into the engine.
func ingestInput(eng *checker.Engine, in capture.Input, stdin io.Reader) error {
	return ingestRedacted(eng, in, stdin, nil)
}

// ingestRedacted is ingestInput with red applied to every frame first (the
// log itself is never changed).
func ingestRedacted(eng *checker.Engine, in capture.Input, stdin io.Reader, red *capture.Redactor) error {
	src, err := in.Open(stdin)
	if err != nil {
		return err
	}
	defer src.Close()
	return ingest.ReadInto(eng, src, in, red)
}
