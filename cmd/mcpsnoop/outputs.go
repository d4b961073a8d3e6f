package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/ghactions"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/spf13/cobra"
)

// Every file a command writes goes through internal/atomicfile, whose one
// rule (README "Output files") decides how: replaced through a temporary
// file, written through, or written to a descriptor. This file holds what
// the commands add to it: outputs checked against the inputs and against
// each other, and check's report files.

// stdStreams are the command's own streams, what -, /dev/stdout and
// /dev/stderr name.
func stdStreams(cmd *cobra.Command) atomicfile.Options {
	return atomicfile.Options{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
}

// reportDirPerm is the mode of the folders a report file is written into
// when they are missing (reports/, artifacts/ of a CI job): like mkdir -p,
// others may read them, as they may the reports.
const reportDirPerm = 0o755

// reportStreams are stdStreams for report files (check's and verify's
// --sarif, --junit, --json and --write-known): a missing folder is made,
// so that a report never fails for want of the folder it names.
func reportStreams(cmd *cobra.Command) atomicfile.Options {
	o := stdStreams(cmd)
	o.MkdirAll, o.DirPerm = true, reportDirPerm
	return o
}

// sameAsInput returns the input that output t would overwrite, if any: by
// path, by file identity (symlinks, hard links), or standard input
// redirected from that file (stdin is the command's; a reader that is not a
// file never matches). A descriptor is written to as it is and never
// replaces a file, so it matches nothing.
func sameAsInput(t atomicfile.Target, inputs []capture.Input, stdin io.Reader) string {
	if t.Kind == atomicfile.Descriptor {
		return ""
	}
	out, outErr := os.Stat(t.File)
	abs, _ := filepath.Abs(t.File)
	for _, in := range inputs {
		if in.Stdin {
			if f, ok := stdin.(*os.File); ok && outErr == nil {
				if info, err := f.Stat(); err == nil && os.SameFile(out, info) {
					return in.Name
				}
			}
			continue
		}
		if inAbs, _ := filepath.Abs(in.Path); inAbs == abs {
			return in.Name
		}
		if outErr == nil {
			if info, err := os.Stat(in.Path); err == nil && os.SameFile(out, info) {
				return in.Name
			}
		}
	}
	return ""
}

// reportFile is one of check's --sarif, --junit, --json and --write-known.
type reportFile struct {
	flag, format string
	target       atomicfile.Target
}

// reportPlan is where check's reports go: stdoutFormat to standard output,
// files to theirs.
type reportPlan struct {
	stdoutFormat string
	files        []reportFile
	// sideFiles are the GitHub step's output and summary files, appended
	// to, never an input nor a report.
	sideFiles []string
}

// planReports resolves check's report files and refuses the ones that
// would harm something: a report that names an input, two reports (or a
// report and a GitHub step file) naming one file. A report file that is
// standard output takes the place of the --format report there, unless
// --format was given too: two documents on one stream is refused.
func planReports(cmd *cobra.Command, o checkOptions, format string, inputs []capture.Input) (reportPlan, error) {
	plan := reportPlan{stdoutFormat: format}
	stdoutOwner := ""
	if cmd.Flags().Changed("format") {
		stdoutOwner = "--format " + format
	}
	for _, rf := range []struct{ flag, path, format string }{
		{"--sarif", o.sarifPath, "sarif"}, {"--junit", o.junitPath, "junit"}, {"--json", o.jsonPath, "json"},
		{"--write-known", o.writeKnown, "known"},
	} {
		if rf.path == "" {
			continue
		}
		t, err := atomicfile.Resolve(rf.path, true) // its folder is made when missing
		if err != nil {
			return plan, fmt.Errorf("%s: %w", rf.flag, err)
		}
		if in := sameAsInput(t, inputs, cmd.InOrStdin()); in != "" {
			return plan, fmt.Errorf("%s %s would overwrite the input %s", rf.flag, rf.path, in)
		}
		for _, other := range plan.files {
			if atomicfile.Same(other.target, t) {
				return plan, fmt.Errorf("%s and %s both name %s; give each report its own file", other.flag, rf.flag, rf.path)
			}
		}
		if t.Kind == atomicfile.Descriptor && t.FD == 1 {
			if stdoutOwner != "" {
				return plan, fmt.Errorf("%s and %s %s both write to standard output; give the report a file of its own", stdoutOwner, rf.flag, rf.path)
			}
			stdoutOwner = rf.flag + " " + rf.path
			plan.stdoutFormat = rf.format
		}
		plan.files = append(plan.files, reportFile{flag: rf.flag, format: rf.format, target: t})
	}
	if o.github.mode != nil {
		for _, side := range o.github.mode.Files() {
			t, err := atomicfile.Resolve(side, false)
			if err != nil {
				continue // ghactions says what is wrong with it, when it writes
			}
			if in := sameAsInput(t, inputs, cmd.InOrStdin()); in != "" {
				*o.github.untouchable = true
				return plan, fmt.Errorf("the GitHub step file %s is the input %s", side, in)
			}
			for _, rf := range plan.files {
				if atomicfile.Same(rf.target, t) {
					*o.github.untouchable = true
					return plan, fmt.Errorf("%s %s is the GitHub step file %s; give the report a file of its own", rf.flag, rf.target.Name, side)
				}
			}
		}
	}
	return plan, nil
}

// listed names the reports of the plan that list findings (SARIF, JUnit,
// JSON, Code Quality), on stdout or in a file: what GitHub mode may point
// to for the findings its annotations leave out.
func (p reportPlan) listed() []string {
	names := map[string]string{"sarif": "SARIF", "junit": "JUnit", "json": "JSON", "codeclimate": "Code Quality"}
	var out []string
	add := func(format string) {
		if n := names[format]; n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	add(p.stdoutFormat)
	for _, f := range p.files {
		add(f.format)
	}
	return out
}

// exportWriter is what writeExportFile writes: an *export.Export, or one
// in a guard (guardedExport).
type exportWriter interface{ Write(w io.Writer) error }

// guardedExport is an export written between a GitHub Actions guard's
// lines (ghactions.Guard).
type guardedExport struct{ x *export.Export }

func (g guardedExport) Write(w io.Writer) error {
	guard := ghactions.NewGuard(w)
	if err := g.x.Write(guard); err != nil {
		return err
	}
	return guard.Close()
}

// writeExportFile writes the export to path (export -o, the viewer's export
// keys) by atomicfile's rule. A regular file's folder is made (0700) when
// missing; when it takes no temporary file but the file itself is writable,
// the file is written in place after warn says so (capture-store-export.md
// 7.1).
func writeExportFile(path string, x exportWriter, std atomicfile.Options, warn func(string)) error {
	std.MkdirAll, std.InPlace = true, warn
	out, err := atomicfile.Open(path, 0o644, std)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	err = x.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = out.Commit()
	}
	if err != nil {
		out.Abort()
		if out.Atomic() {
			return fmt.Errorf("%v (%s left as it was)", err, path)
		}
		return err
	}
	return nil
}
