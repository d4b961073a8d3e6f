package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/diff"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newDiffCmd) }

type diffOptions struct {
	exitCode  bool
	threshold time.Duration
	ratio     float64
}

func newDiffCmd() *cobra.Command {
	o := diffOptions{threshold: diff.DefaultOptions.Threshold, ratio: diff.DefaultOptions.Ratio}
	cmd := &cobra.Command{
		Use:   "diff BEFORE AFTER",
		Short: "Compare two recorded sessions: tool definitions, call outcomes, latency",
		Long: `Diff compares the first session of two logs, for example a run before and after
a server upgrade. It lists the tools added or removed and every tool whose
definition changed (description, title, schemas, annotations, icons), the
calls whose status changed, and the calls that got notably slower or faster.

A call is matched by its tool name and its arguments (key order and spacing
do not matter): the first such call before is compared with the first such
call after, the second with the second, and so on. A duration shift is
reported when it is at least --duration-threshold and the longer time is at
least --duration-ratio times the shorter.

BEFORE and AFTER are log paths, or session ids or labels from the log folders
(the state directory's sessions, $MCPSNOOP_LOG_DIR, .mcpsnoop.toml's log-dir).

Exit codes: 0 no regression (or no --exit-code), 1 with --exit-code, a
regression: a tool removed, a definition changed (icons aside), a call whose
status got worse, or a call that got slower; 2 bad flag or input.`,
		Example: `  mcpsnoop diff before.jsonl after.jsonl
  mcpsnoop diff --exit-code --duration-threshold 250ms main.jsonl pr.jsonl`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.exitCode, "exit-code", false, "exit 1 when something got worse (CI gate)")
	f.DurationVar(&o.threshold, "duration-threshold", o.threshold, "smallest duration change to report")
	f.Float64Var(&o.ratio, "duration-ratio", o.ratio, "smallest ratio between the longer and the shorter duration to report (at least 1)")
	return cmd
}

func diffFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop diff: " + fmt.Sprintf(format, args...)}
}

func runDiff(cmd *cobra.Command, args []string, o diffOptions) error {
	if o.threshold < 0 {
		return diffFail("--duration-threshold must not be negative")
	}
	if math.IsNaN(o.ratio) || math.IsInf(o.ratio, 0) || o.ratio < 1 {
		return diffFail("--duration-ratio must be finite and at least 1")
	}
	var sides [2]diff.Side
	for i, arg := range args {
		s, err := loadDiffSide(arg)
		if err != nil {
			return diffFail("%v", err)
		}
		sides[i] = s
	}
	res := diff.Compare(sides[0], sides[1], diff.Options{Threshold: o.threshold, Ratio: o.ratio})
	if err := res.WriteText(cmd.OutOrStdout()); err != nil {
		return diffFail("writing the report: %v", err)
	}
	if o.exitCode && res.Regressed() {
		return &exitError{code: 1}
	}
	return nil
}

// loadDiffSide reads the first session of one log. The argument resolves
// as check's do, except that standard input and directories are refused:
// diff compares exactly two logs.
func loadDiffSide(arg string) (diff.Side, error) {
	if arg == "-" {
		return diff.Side{}, fmt.Errorf("diff reads two logs from files or session ids, not standard input (-)")
	}
	if info, err := os.Stat(arg); err == nil && info.IsDir() {
		return diff.Side{}, fmt.Errorf("%s: is a directory; diff compares two logs, name a file or a session id", arg)
	}
	inputs, err := resolveInputs("diff", []string{arg}, nil)
	if err != nil {
		return diff.Side{}, err
	}
	var col diff.Collector
	eng := checker.New(checker.Config{OnCall: col.OnCall})
	if err := ingestInput(eng, inputs[0], nil); err != nil {
		return diff.Side{}, err
	}
	rep := eng.Report()
	return col.Side(rep.Sessions[0]), nil
}
