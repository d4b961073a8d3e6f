package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/prune"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newPruneCmd) }

type pruneOptions struct {
	olderThan string
	dryRun    bool
	yes       bool
}

func newPruneCmd() *cobra.Command {
	var o pruneOptions
	cmd := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Delete session logs older than an age from the state directory",
		Long: `Prune deletes the session logs in <state>/sessions, and the replay logs
verify leaves in <state>/replays, that were last written before the given
age, to keep the disk they use bounded. It never runs without
--older-than, and it asks before deleting unless --yes is given; when
standard input is not a terminal it refuses to ask and deletes nothing.
Only *.jsonl files directly in those folders are considered: tool
baselines and anything else are never touched.

AGE is a number of whole days (30d) or a Go duration (72h, 90m).

Exit codes: 0 done, nothing to do, or declined; 1 a log could not be
removed, or no --yes and no terminal to ask on; 2 bad flag.`,
		Example: `  mcpsnoop prune --older-than 30d --dry-run
  mcpsnoop prune --older-than 72h --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPrune(cmd, o, time.Now())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.olderThan, "older-than", "", "delete logs last written longer ago than this: whole days (30d) or a Go duration (72h)")
	f.BoolVar(&o.dryRun, "dry-run", false, "list what would be deleted, delete nothing")
	f.BoolVarP(&o.yes, "yes", "y", false, "delete without asking")
	return cmd
}

func pruneFail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: "mcpsnoop prune: " + fmt.Sprintf(format, args...)}
}

func runPrune(cmd *cobra.Command, o pruneOptions, now time.Time) error {
	age, err := prune.ParseAge(o.olderThan)
	if err != nil {
		return pruneFail(2, "%v", err)
	}
	var logs []prune.Log
	for _, dir := range []string{capture.SessionsDir(), replaysDir()} {
		found, err := prune.Find(dir, now.Add(-age))
		if err != nil {
			return pruneFail(1, "%v", err)
		}
		logs = append(logs, found...)
	}
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if len(logs) == 0 {
		fmt.Fprintf(out, "nothing to prune: no session logs older than %s\n", strings.TrimSpace(o.olderThan))
		return nil
	}
	what := fmt.Sprintf("%d session log(s), %s", len(logs), prune.FormatSize(prune.TotalSize(logs)))
	if o.dryRun {
		fmt.Fprintf(out, "would remove %s:\n", what)
		for _, l := range logs {
			// A file name is anyone's to choose, so it is escaped: one
			// named "x\n::error::…" or holding an escape sequence can
			// neither add a line nor drive the terminal.
			fmt.Fprintf(out, "  %s\n", termsafe.Clean(l.Path, false))
		}
		return nil
	}
	if !o.yes {
		stdin := cmd.InOrStdin()
		if !stdinIsTerminal(stdin) {
			return pruneFail(1, "standard input is not a terminal, so there is no one to ask before removing %s; pass --yes to remove them, or --dry-run to list them", what)
		}
		// The question goes to stderr, as rm -i does, so stdout keeps
		// only the outcome.
		fmt.Fprintf(errOut, "remove %s? [y/N] ", what)
		if !confirmed(stdin) {
			fmt.Fprintln(out, "aborted")
			return nil
		}
	}
	removed, size, errs := prune.Remove(logs)
	for _, e := range errs {
		fmt.Fprintf(errOut, "mcpsnoop prune: %s\n", termsafe.Clean(e.Error(), false)) // it names the file
	}
	fmt.Fprintf(out, "removed %d session log(s), %s\n", removed, prune.FormatSize(size))
	if len(errs) > 0 {
		return pruneFail(1, "%d session log(s) could not be removed", len(errs))
	}
	return nil
}

// confirmed reads one answer line: y or yes, in any case, agrees.
func confirmed(r io.Reader) bool {
	line, _ := bufio.NewReader(r).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// stdinIsTerminal says whether prune may ask on r. It is a variable so
// tests can stand in for a terminal.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd()) // false for /dev/null, a character device nobody answers on
}
