package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/spf13/cobra"
)

// runInputs are the logs --run and --runs look through: the ones named, or
// every log in the log folders (the state directory's sessions,
// MCPSNOOP_LOG_DIR, .mcpsnoop.toml's log-dir).
func runInputs(command string, args []string, note func(string)) ([]capture.Input, error) {
	if len(args) == 0 {
		folders := logFolders()
		ins, err := capture.LogsIn(folderPaths(folders), note)
		return ins, noLogs(command, folders, err)
	}
	return capture.ResolveInputsNoting(args, note)
}

// resolveCommandInputs resolves a command's log arguments (resolveInputs);
// a *.jsonl entry of a directory that is skipped (a FIFO, a device) is said
// on stderr, one line each.
func resolveCommandInputs(cmd *cobra.Command, command string, args []string) ([]capture.Input, error) {
	return resolveInputs(command, args, skipNote(cmd.ErrOrStderr(), command))
}

// skipNote writes what input resolution skipped to w.
func skipNote(w io.Writer, command string) func(string) {
	return func(msg string) { fmt.Fprintf(w, "mcpsnoop %s: note: %s\n", command, termsafe.Clean(msg, false)) }
}

// runSelection is what --run (and check's --runs) found: the logs read,
// every run in them and, when a run was named, that run and its sessions.
type runSelection struct {
	Inputs   []capture.Input
	Runs     []checker.Run
	Run      checker.Run
	Sessions map[string]bool // nil when no run was named
}

// selectRunInputs reads the logs of args (or the whole state directory)
// once to find the runs in them, for command, and picks the run id names
// ("" picks none, for a listing). It judges nothing and records no
// baseline. Standard input cannot be read twice, so it is refused. When
// the state directory is implied, a log that cannot be read (a capture
// killed before its first line, a full disk) is skipped with a warning
// rather than hiding every run.
func selectRunInputs(command string, args []string, id string, stdin io.Reader, stderr io.Writer) (runSelection, error) {
	var sel runSelection
	for _, a := range args {
		if a == "-" {
			if command == "check" {
				return sel, fmt.Errorf("--run and --runs read the logs twice, so they cannot take standard input (-); save it to a file first")
			}
			return sel, fmt.Errorf("--run reads the logs twice, so it cannot take standard input (-); save it to a file first")
		}
	}
	inputs, err := runInputs(command, args, skipNote(stderr, command))
	if err != nil {
		return sel, err
	}
	skipBad := len(args) == 0
	eng := checker.New(checker.Config{})
	// This pass only finds the runs; the command reads the logs again for
	// what it does, with a progress line of its own.
	r := startReading(stderr, inputs, "finding runs: ")
	defer r.stop()
	for _, in := range inputs {
		if err := ingestInput(eng, in, stdin); err != nil {
			if !skipBad {
				return sel, err
			}
			r.say(fmt.Sprintf("mcpsnoop %s: skipping %s\n", command, termsafe.Clean(err.Error(), false)))
			continue
		}
		in.Count = nil // the next pass counts for a line of its own
		sel.Inputs = append(sel.Inputs, in)
	}
	r.stop()
	// A session in no run is a run of its own: --runs lists it and
	// "latest" may pick it (checker.AllRuns).
	sel.Runs = checker.AllRuns(eng.Report())
	if id == "" {
		return sel, nil
	}
	where := strings.Join(folderPaths(logFolders()), ", ")
	if len(args) > 0 {
		where = strings.Join(args, ", ")
	}
	sel.Run, sel.Sessions, err = selectRun(id, sel.Runs, where)
	return sel, err
}

// lowerGCTarget makes the garbage collector run sooner, unless GOGC is set.
// A pass over a log (check, export) keeps little alive and makes
// short-lived garbage per frame, so a tighter target keeps peak memory near
// the live set at a small CPU cost.
func lowerGCTarget() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// writeRuns prints the runs as a table under a header line, newest
// first: run id, key kind, label, sessions, requests, errors. The label
// comes from logs: escaped, and never empty, so that the columns stay put
// for a reader splitting on spaces.
func writeRuns(w io.Writer, runs []checker.Run) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tKEY\tLABEL\tSESSIONS\tREQUESTS\tERRORS")
	for _, r := range runs {
		label := strings.ReplaceAll(termsafe.Clean(r.Label, false), "\t", " ")
		if label == "" {
			label = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\n", termsafe.Clean(r.ID, false), r.KeyKind, label, len(r.SessionIDs), r.Requests, r.Errors)
	}
	return tw.Flush()
}

// selectRun finds the run id names ("latest" for the newest, which is a
// session of no run when none of several sessions is newer) and the set of
// its sessions.
func selectRun(id string, runs []checker.Run, where string) (checker.Run, map[string]bool, error) {
	r, ok := checker.FindRun(runs, id)
	if !ok {
		known := make([]string, 0, len(runs))
		for _, r := range runs {
			known = append(known, r.ID)
		}
		if len(known) == 0 {
			return r, nil, fmt.Errorf("run %q not found: no session in %s", id, where)
		}
		return r, nil, fmt.Errorf("run %q not found in %s (runs there: %s)", id, where, strings.Join(known, ", "))
	}
	sessions := map[string]bool{}
	for _, sid := range r.SessionIDs {
		sessions[sid] = true
	}
	return r, sessions, nil
}
