package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/ghactions"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newExportCmd) }

type exportOptions struct {
	format string
	output string
	run    string
	redact capturecli.RedactFlags
}

// exportNow is the export's timestamp; tests pin it for stable goldens.
var exportNow = time.Now

func newExportCmd() *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [LOG|SESSION-ID|DIR|- ...]",
		Short: "Render session logs as json, text, html, har, otlp or tools",
		Long: `Export renders every session in the logs it is given, for other tools and
for people (-T, case-insensitive):

  json  one document per session (a stream jq reads as it is): counters,
        per-tool statistics, calls with their bodies, interactions,
        elicitations and every frame
  text  one block per frame, for a terminal or a bug report
  html  one self-contained page for all sessions, no network needed
  har   HAR 1.2 for a browser's devtools: a POST to
        mcp://<server>/<method>[/<tool>] per call, a page per session; for a
        multi-round-trip call, wait is the server's time and blocked the
        client's
  otlp  OTLP/JSON traces for an OpenTelemetry collector (/v1/traces): a
        resource per session, a span per call; a valid _meta.traceparent
        joins the client's trace, else the trace id is derived from the
        run (or the session)
  tools one JSON line per session, {session, label, tools, prompts,
        resources}: the definitions its server last listed, as sent, for
        scanners that read tools/list snapshots

Inputs resolve as for check: log paths, session ids, directories (every *.jsonl
directly inside) and - for standard input. Without an argument the newest log
of the log folders is exported. --run exports every session of one agent
run, ordered by their first frames.

The --redact-* flags scrub the export; the logs themselves are never changed.
With -o FILE the output is written to a temporary file beside FILE and renamed
into place when complete, so a failed export leaves FILE as it was; a symbolic
link keeps being one (its target is replaced), a device or a FIFO is written
through, and -, /dev/stdout, /dev/stderr and /dev/fd/N are those descriptors.
A FILE that is one of the inputs (by any path or link) is refused.

Exit codes: 0 done, 2 bad flag or input (nothing written, the reason on
stderr).`,
		Example: `  mcpsnoop export run.jsonl | jq '.calls[] | {id, tool_name, duration_ms}'
  mcpsnoop export -T text run.jsonl
  mcpsnoop export -T html -o report.html logs/
  mcpsnoop export -T html --run latest -o run.html
  mcpsnoop export -T har -o session.har run.jsonl
  mcpsnoop export -T tools logs/ | jq -c '{label: .label, tools: [.tools[].name]}'
  mcpsnoop export -T otlp run.jsonl | curl -H 'Content-Type: application/json' --data-binary @- http://localhost:4318/v1/traces`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.format, "format", "T", "json", "output format: "+strings.Join(exportFormatNames(), ", "))
	f.StringVarP(&o.output, "output", "o", "-", "write to this file instead of standard output (-)")
	f.StringVar(&o.run, "run", "", "export every session of one agent run (a run id, or latest), from the log folders or the logs named")
	o.redact.Register(f)
	return cmd
}

// exportFail is an error that stops export before anything was written.
func exportFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop export: " + fmt.Sprintf(format, args...)}
}

func runExport(cmd *cobra.Command, args []string, o exportOptions) error {
	lowerGCTarget() // the rendered output waits in the spill, not the heap
	newFormat, err := lookupExportFormat(o.format)
	if err != nil {
		return exportFail("%v", err)
	}
	red, err := o.redact.Redactor()
	if err != nil {
		return exportFail("%v", err)
	}
	var inputs []capture.Input
	var run *checker.Run
	var only map[string]bool
	if o.run != "" {
		sel, err := selectRunInputs("export", args, o.run, cmd.InOrStdin(), cmd.ErrOrStderr())
		if err != nil {
			return exportFail("%v", err)
		}
		inputs, run = sel.Inputs, &sel.Run
		if sel.Run.KeyKind == checker.RunKeySession {
			// A session in no run: exported as itself (its own trace).
			run, only = nil, sel.Sessions
		}
	} else if inputs, err = resolveCommandInputs(cmd, "export", args); err != nil {
		return exportFail("%v", err)
	}
	if o.output == "" {
		o.output = "-" // -o "" has always meant standard output
	}
	out, err := atomicfile.Resolve(o.output, true)
	if err != nil {
		return exportFail("-o: %v", err)
	}
	if in := sameAsInput(out, inputs, cmd.InOrStdin()); in != "" {
		return exportFail("input and output refer to the same file: -o %s is the input %s", o.output, in)
	}

	stop := showReading(cmd.ErrOrStderr(), inputs)
	x, err := export.Load(newFormat(), inputs, cmd.InOrStdin(), export.Options{
		GeneratedAt: exportNow(), Version: appVersion(), Redactor: red, Run: run, Sessions: only,
	})
	stop()
	if err != nil {
		return exportFail("%v", err)
	}
	defer x.Close()
	if x.Sessions() == 0 {
		return exportFail("%s: no session in the input (every envelope lacks a session_id)", inputNames(inputs))
	}
	warn := func(msg string) { fmt.Fprintf(cmd.ErrOrStderr(), "mcpsnoop export: warning: %s\n", msg) }
	var w exportWriter = x
	if guardExport(o.format, out) {
		w = guardedExport{x}
	}
	if err := writeExportFile(o.output, w, stdStreams(cmd), warn); err != nil {
		return exportFail("%v", err)
	}
	return nil
}

// guardExport says whether the export goes out in a GitHub Actions guard
// (ghactions.Guard): text, written to a stream (stdout, stderr, a
// descriptor) of a step the runner reads. A server's stderr line
// "::error file=a.go::pwned" is printable, so termsafe leaves it, and the
// runner would obey it. Only text can carry such a line: the other formats
// quote every line break of a payload, and reach a pipe as the bare
// document; a regular file is no stream the runner reads.
func guardExport(format string, out atomicfile.Target) bool {
	return strings.EqualFold(strings.TrimSpace(format), "text") &&
		out.Kind == atomicfile.Descriptor && ghactions.Running(os.Getenv)
}

// inputNames lists the inputs for a message.
func inputNames(inputs []capture.Input) string {
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.Name
	}
	return strings.Join(names, ", ")
}
