package capture

import (
	"os"
	"path/filepath"
)

// StateDir returns mcpsnoop's state directory: $MCPSNOOP_HOME if set, else
// $XDG_STATE_HOME/mcpsnoop, else ~/.local/state/mcpsnoop, else (no home
// directory at all) a folder under the OS temp dir. It does not create it.
func StateDir() string {
	if d := os.Getenv("MCPSNOOP_HOME"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "mcpsnoop")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "mcpsnoop")
	}
	return filepath.Join(os.TempDir(), "mcpsnoop")
}

// SessionsDir is where session logs live: <state>/sessions.
func SessionsDir() string {
	return filepath.Join(StateDir(), "sessions")
}

// SessionLogPath is the log path of a session id:
// <state>/sessions/<id>.jsonl, the id in its portable form (PortableName),
// as mcpsnoop names the files it writes.
func SessionLogPath(id string) string {
	return filepath.Join(SessionsDir(), PortableName(id)+".jsonl")
}
