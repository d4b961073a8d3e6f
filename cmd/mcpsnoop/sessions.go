package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/sessions"
	"github.com/spf13/cobra"
)

func init() { registerCommand(newSessionsCmd) }

// resolveInputs is capture.ResolveInputs after the words naming sessions
// (an id, a label, the start of an id) are resolved in the log folders
// (logFolders): what check, open, export and diff take. No argument is the
// newest log of those folders. note (when not nil) hears of the directory
// entries that were skipped; command names the command in a message that
// says what to do.
func resolveInputs(command string, args []string, note func(string)) ([]capture.Input, error) {
	folders := logFolders()
	if len(args) == 0 {
		in, err := capture.NewestLog(folderPaths(folders), note)
		if err != nil {
			return nil, noLogs(command, folders, err)
		}
		return []capture.Input{in}, nil
	}
	words, err := sessions.ResolveWords(args, folderPaths(folders)...)
	if err != nil {
		return nil, err
	}
	return capture.ResolveInputsNoting(words, note)
}

type sessionsOptions struct {
	json bool
}

func newSessionsCmd() *cobra.Command {
	var o sessionsOptions
	cmd := &cobra.Command{
		Use:     "sessions [DIR|LOG ...]",
		Aliases: []string{"ls"},
		Short:   "List the recorded sessions: id, label, start, frames, calls, errors, run, path",
		Long: `Sessions lists the sessions in the log folders (the state directory's
sessions, the folder $MCPSNOOP_LOG_DIR names and the log-dir of
.mcpsnoop.toml in the working directory), or in the folders (every *.jsonl
directly inside) and logs named, newest first: id, label,
start time (UTC), frames, calls, calls that ended in an error, run ids (see
"check --runs") and the log's path. --json prints the same as a JSON array.

check, open, export and diff take a session as a path, or as a word looked
up in the log folders: an exact session id, else a label (its newest
session), else the start of an id when only one session's id starts so.

Exit codes: 0 listed (an empty listing too); 1 some logs could not be read
(each is named on stderr, the others are listed); 2 bad flag, or a folder
or log named that is missing or unreadable.`,
		Example: `  mcpsnoop sessions
  mcpsnoop ls artifacts/mcp
  mcpsnoop sessions --json | jq -r '.[] | select(.errors > 0) | .path'`,
		RunE: func(cmd *cobra.Command, args []string) error { return runSessions(cmd, args, o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print a JSON array instead of the table")
	return cmd
}

func sessionsFail(format string, args ...any) error {
	return &exitError{code: 2, msg: "mcpsnoop sessions: " + fmt.Sprintf(format, args...)}
}

func runSessions(cmd *cobra.Command, args []string, o sessionsOptions) error {
	lowerGCTarget()
	var inputs []capture.Input
	folders := folderPaths(logFolders())
	where := strings.Join(folders, ", ")
	if len(args) == 0 {
		for _, dir := range folders {
			logs, err := sessions.Logs(dir)
			if err != nil {
				return sessionsFail("%s: %v", dir, atomicfile.PlainError(err))
			}
			inputs = append(inputs, logs...)
		}
	}
	for _, arg := range args {
		info, err := os.Stat(arg)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return sessionsFail("%s: no such folder or log", arg)
		case err != nil:
			return sessionsFail("%s: %v", arg, atomicfile.PlainError(err))
		case info.IsDir():
			logs, err := sessions.Logs(arg)
			if err != nil {
				return sessionsFail("%s: %v", arg, atomicfile.PlainError(err))
			}
			inputs = append(inputs, logs...)
		default:
			inputs = append(inputs, capture.Input{Path: arg, Name: arg})
		}
	}
	if len(args) > 0 {
		where = strings.Join(args, ", ")
	}
	entries, problems := sessions.List(inputs)
	var out bytes.Buffer
	var err error
	if o.json {
		err = sessions.WriteJSON(&out, entries)
	} else if len(entries) > 0 {
		err = sessions.WriteText(&out, entries)
	}
	if err != nil {
		return sessionsFail("%v", err)
	}
	if _, err := cmd.OutOrStdout().Write(out.Bytes()); err != nil {
		return &exitError{code: 1, msg: "mcpsnoop sessions: writing the listing: " + err.Error()}
	}
	stderr := cmd.ErrOrStderr()
	if len(entries) == 0 && len(problems) == 0 && !o.json {
		fmt.Fprintf(stderr, "mcpsnoop sessions: no session logs in %s\n", termsafe.Clean(where, false))
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "mcpsnoop sessions: skipped %s\n", termsafe.Clean(p.Error(), false))
	}
	if len(problems) > 0 {
		return &exitError{code: 1}
	}
	return nil
}
