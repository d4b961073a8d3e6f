package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// logFolder is a folder where the commands that read logs look for them,
// and what named it, in the user's words.
type logFolder struct {
	path string
	from string
}

// The names of the folders logFolders gives.
const (
	fromState  = "the state directory's sessions folder"
	fromEnv    = capture.LogDirEnv
	fromConfig = capture.ConfigFile + "'s log-dir"
)

// logFolders are where check, open, export, diff, baseline and sessions
// look for logs when given none, or given a word that names a session: the
// state directory's sessions folder, the folder $MCPSNOOP_LOG_DIR names,
// and the log-dir of the working directory's .mcpsnoop.toml, each once.
// The config may be a repository's and untrusted: reading the logs of its
// log-dir asks no trust (a log is untrusted input wherever it is), and a
// config that cannot be read names no folder.
func logFolders() []logFolder {
	out := []logFolder{{capture.SessionsDir(), fromState}}
	seen := map[string]bool{absClean(out[0].path): true}
	add := func(path, from string) {
		if path == "" || seen[absClean(path)] {
			return
		}
		seen[absClean(path)] = true
		out = append(out, logFolder{path, from})
	}
	add(os.Getenv(capture.LogDirEnv), fromEnv)
	if p, err := capture.LoadProjectConfig("."); err == nil && p != nil && p.Config.LogDir != nil && *p.Config.LogDir != "" {
		dir := *p.Config.LogDir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(p.Dir, dir)
		}
		add(dir, fromConfig)
	}
	return out
}

// followedFolders are the folders the live view and the metrics hub
// follow: the log folders, and then extra, each once. The state
// directory's and $MCPSNOOP_LOG_DIR's are created when missing (shims
// write there); a config's log-dir is followed only if it is already a
// folder, since a repository's config names no folder for us to create.
func followedFolders(extra ...string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(path string) {
		if !seen[absClean(path)] {
			seen[absClean(path)] = true
			out = append(out, path)
		}
	}
	for _, f := range logFolders() {
		if f.from == fromConfig {
			if info, err := os.Stat(f.path); err != nil || !info.IsDir() {
				continue
			}
		}
		add(f.path)
	}
	for _, path := range extra {
		add(path)
	}
	return out
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// folderPaths are the folders' paths.
func folderPaths(fs []logFolder) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.path
	}
	return out
}

// noLogsError is a command given no log that found none in the log
// folders, said in the user's terms: which folders were looked in, what
// named each, what was wrong with it, and what to set.
type noLogsError struct {
	command string
	folders []logFolder
	none    *capture.NoLogsError
}

// noLogs turns capture's *NoLogsError into a noLogsError; other errors
// pass as they are.
func noLogs(command string, folders []logFolder, err error) error {
	var none *capture.NoLogsError
	if errors.As(err, &none) {
		return &noLogsError{command: command, folders: folders, none: none}
	}
	return err
}

func (e *noLogsError) Error() string {
	return "no session logs to read: none were named, and " + e.looked() + ". " +
		fmt.Sprintf("Name the logs or their folder (mcpsnoop %s DIR), or set %s to the folder your captures write to (the shim's --log-dir)", e.command, capture.LogDirEnv)
}

// inGitHub says the same for a job summary: there the logs are named by
// the action's session and log-dir inputs.
func (e *noLogsError) inGitHub() string {
	return "no session logs: none were named (the action's session and log-dir inputs are empty, as were check's arguments), and " + e.looked() + ". " +
		"Set log-dir to the folder the recording step's shims wrote to (mcpsnoop --log-dir DIR, or " + capture.LogDirEnv + "), or session to the logs"
}

// looked lists the folders looked in and why each held nothing.
func (e *noLogsError) looked() string {
	var parts []string
	for _, f := range e.folders {
		var why string
		switch {
		case slices.Contains(e.none.Missing, f.path) && f.from == fromState:
			why = "which does not exist: nothing was recorded with the default settings on this machine"
		case slices.Contains(e.none.Missing, f.path):
			why = "which does not exist"
		case slices.Contains(e.none.Empty, f.path):
			why = "whose logs are all empty: captures that never started"
		default:
			why = "which holds no *.jsonl log"
		}
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", termsafe.Clean(f.path, false), f.from, why))
	}
	if len(parts) == 1 {
		return "there are none in " + parts[0]
	}
	return "there are none in " + strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
