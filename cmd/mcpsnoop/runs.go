package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// runInputs are the logs --run and --runs look through: the ones named, or
// every log in the state directory.
func runInputs(args []string) ([]capture.Input, error) {
	if len(args) > 0 {
		return capture.ResolveInputs(args)
	}
	return capture.ResolveInputs([]string{capture.SessionsDir()})
}

// scanRuns reads the inputs once to find the runs in them. It judges
// nothing and records no baseline. When the state directory is implied
// (skipBad), a log that cannot be read (a capture killed before its first
// line, a full disk) is skipped with a warning rather than hiding every run.
func scanRuns(inputs []capture.Input, stdin io.Reader, stderr io.Writer, skipBad bool) ([]checker.Run, error) {
	runs, _, err := scanRunsAs("check", inputs, stdin, stderr, skipBad)
	return runs, err
}

// scanRunsAs is scanRuns for the named command; it also returns the inputs
// it could read.
func scanRunsAs(command string, inputs []capture.Input, stdin io.Reader, stderr io.Writer, skipBad bool) ([]checker.Run, []capture.Input, error) {
	eng := checker.New(checker.Config{})
	read := make([]capture.Input, 0, len(inputs))
	for _, in := range inputs {
		if err := ingestInput(eng, in, stdin); err != nil {
			if !skipBad {
				return nil, nil, err
			}
			fmt.Fprintf(stderr, "mcpsnoop %s: skipping %v\n", command, err)
			continue
		}
		read = append(read, in)
	}
	return eng.Report().Runs, read, nil
}

// writeRuns prints one line per run, newest first:
// id  key_kind  label  sessions  requests  errors.
func writeRuns(w io.Writer, runs []checker.Run) {
	for _, r := range runs {
		fmt.Fprintf(w, "%s  %s  %s  %d  %d  %d\n", r.ID, r.KeyKind, r.Label, len(r.SessionIDs), r.Requests, r.Errors)
	}
}

// selectRun finds the run id names ("latest" for the newest) and returns
// the set of its sessions.
func selectRun(id string, runs []checker.Run, where string) (map[string]bool, error) {
	r, ok := checker.FindRun(runs, id)
	if !ok {
		known := make([]string, 0, len(runs))
		for _, r := range runs {
			known = append(known, r.ID)
		}
		if len(known) == 0 {
			return nil, fmt.Errorf("run %q not found: no session in %s carries a trace id or a client process", id, where)
		}
		return nil, fmt.Errorf("run %q not found in %s (runs there: %s)", id, where, strings.Join(known, ", "))
	}
	sessions := map[string]bool{}
	for _, sid := range r.SessionIDs {
		sessions[sid] = true
	}
	return sessions, nil
}
