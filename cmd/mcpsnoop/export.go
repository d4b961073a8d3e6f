package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newExportCmd) }

type exportOptions struct {
	format string
	output string
	run    string
	redact redactFlags
}

// exportNow is the export's timestamp; tests pin it for stable goldens.
var exportNow = time.Now

func newExportCmd() *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [LOG|SESSION-ID|DIR|- ...]",
		Short: "Render session logs as json, text, html, har or otlp",
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

Inputs resolve as for check: log paths, session ids, directories (every *.jsonl
directly inside) and - for standard input. Without an argument the newest log
in the state directory is exported. --run exports every session of one agent
run, ordered by their first frames.

The --redact-* flags scrub the export; the logs themselves are never changed.
With -o FILE the output is written to a temporary file beside FILE and renamed
into place when complete, so a failed export leaves FILE as it was; a FILE
that is one of the inputs (by any path or link) is refused.

Exit codes: 0 done, 2 bad flag or input (nothing written, the reason on
stderr).`,
		Example: `  mcpsnoop export run.jsonl | jq '.calls[] | {id, tool_name, duration_ms}'
  mcpsnoop export -T text run.jsonl
  mcpsnoop export -T html -o report.html logs/
  mcpsnoop export -T html --run latest -o run.html
  mcpsnoop export -T har -o session.har run.jsonl
  mcpsnoop export -T otlp run.jsonl | curl -H 'Content-Type: application/json' --data-binary @- http://localhost:4318/v1/traces`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.format, "format", "T", "json", "output format: "+strings.Join(exportFormatNames(), ", "))
	f.StringVarP(&o.output, "output", "o", "-", "write to this file instead of standard output (-)")
	f.StringVar(&o.run, "run", "", "export every session of one agent run (a run id, or latest), from the state directory or the logs named")
	o.redact.register(f)
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
	red, err := o.redact.redactor()
	if err != nil {
		return exportFail("%v", err)
	}
	var inputs []capture.Input
	var run *checker.Run
	if o.run != "" {
		sel, err := selectRunInputs("export", args, o.run, cmd.InOrStdin(), cmd.ErrOrStderr())
		if err != nil {
			return exportFail("%v", err)
		}
		inputs, run = sel.Inputs, &sel.Run
	} else if inputs, err = resolveInputs(args); err != nil {
		return exportFail("%v", err)
	}
	toFile := o.output != "" && o.output != "-"
	if toFile {
		if in := sameAsInput(o.output, inputs, cmd.InOrStdin()); in != "" {
			return exportFail("input and output refer to the same file: -o %s is the input %s", o.output, in)
		}
	}

	x, err := export.Load(newFormat(), inputs, cmd.InOrStdin(), export.Options{
		GeneratedAt: exportNow(), Version: appVersion(), Redactor: red, Run: run,
	})
	if err != nil {
		return exportFail("%v", err)
	}
	defer x.Close()
	if x.Sessions() == 0 {
		return exportFail("%s: no session in the input (every envelope lacks a session_id)", inputNames(inputs))
	}
	if !toFile {
		bw := bufio.NewWriterSize(cmd.OutOrStdout(), 256<<10)
		err := x.Write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			return exportFail("writing the export: %v", err)
		}
		return nil
	}
	warn := func(msg string) { fmt.Fprintf(cmd.ErrOrStderr(), "mcpsnoop export: warning: %s\n", msg) }
	if err := writeExportFile(o.output, x, warn); err != nil {
		return exportFail("%v", err)
	}
	return nil
}

// writeExportFile writes the export to path (for export -o and the
// viewer's export keys): through a temporary file renamed into place for a
// regular or missing file, directly to anything else (a device, a pipe).
// When the folder takes no temporary file but the file itself is writable,
// it is written in place after warn says so (capture-store-export.md 7.1).
func writeExportFile(path string, x *export.Export, warn func(string)) error {
	perm := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		if !info.Mode().IsRegular() && !info.IsDir() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			return writeExportTo(f, path, x)
		}
		perm = info.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: folder %s: %v", path, dir, atomicfile.PlainError(err))
	}
	p, err := createExportTemp(path, perm)
	if err != nil {
		if info, serr := os.Stat(path); serr == nil && info.Mode().IsRegular() && tempRefused(err) {
			f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			if ferr == nil {
				warn(fmt.Sprintf("no temporary file allowed beside %s (%v); writing it in place, so a failure leaves it incomplete",
					path, atomicfile.PlainError(errors.Unwrap(err))))
				return writeExportTo(f, path, x)
			}
		}
		return err
	}
	bw := bufio.NewWriterSize(p, 256<<10)
	err = x.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = p.Commit()
	}
	if err != nil {
		p.Abort()
		return fmt.Errorf("%v (%s left as it was)", err, path)
	}
	return nil
}

// createExportTemp starts a file written through a temporary file; tests
// replace it to refuse the temporary file.
var createExportTemp = atomicfile.Create

// tempRefused reports whether err says the folder takes no new file (as
// opposed to a full disk, say).
func tempRefused(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// writeExportTo writes the export straight into f, which it closes.
func writeExportTo(f *os.File, path string, x *export.Export) error {
	bw := bufio.NewWriterSize(f, 256<<10)
	err := x.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %v", path, atomicfile.PlainError(err))
	}
	return nil
}

// inputNames lists the inputs for a message.
func inputNames(inputs []capture.Input) string {
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.Name
	}
	return strings.Join(names, ", ")
}
