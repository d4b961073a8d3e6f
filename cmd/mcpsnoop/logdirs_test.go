package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// TestFollowedFolders: the live view and the hub follow the state
// directory's sessions, $MCPSNOOP_LOG_DIR (missing or not: shims create
// it) and a config's log-dir only once it is a folder, then the folders
// given, each once.
func TestFollowedFolders(t *testing.T) {
	home, envDir, extra := t.TempDir(), filepath.Join(t.TempDir(), "later"), t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	t.Setenv("MCPSNOOP_LOG_DIR", envDir)
	project := t.TempDir()
	t.Chdir(project)
	if err := os.WriteFile(capture.ConfigFile, []byte("log-dir = \"logs\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := capture.SessionsDir()
	if got, want := followedFolders(extra, envDir), []string{state, envDir, extra}; !slices.Equal(got, want) {
		t.Errorf("config log-dir missing: %q, want %q", got, want)
	}
	if err := os.Mkdir(filepath.Join(project, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got, want := followedFolders(), []string{state, envDir, filepath.Join(project, "logs")}; !slices.Equal(got, want) {
		t.Errorf("config log-dir there: %q, want %q", got, want)
	}
}
