package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
	"github.com/mcpsnoop/mcpsnoop/replay"
	"github.com/spf13/pflag"
)

// replayFlags are the flags of a replay, shared by verify and open (the
// viewer's r).
type replayFlags struct {
	target  string
	headers []string
	all     bool
	yes     bool
	timeout time.Duration
}

func (r *replayFlags) register(f *pflag.FlagSet) {
	f.StringVar(&r.target, "replay-target", "", "replay HTTP sessions (or any session) against this Streamable HTTP endpoint; never the recorded one")
	f.StringArrayVar(&r.headers, "replay-header", nil, "send this header with every replayed HTTP request, as 'Name: value' (repeatable); the only way a credential reaches the server")
	f.BoolVar(&r.all, "all", false, "replay every recorded call, not only reads and tools annotated readOnlyHint (or idempotentHint and not destructive)")
	f.BoolVar(&r.yes, "yes", false, "replay without asking first (scripts, CI)")
	f.DurationVar(&r.timeout, "call-timeout", replay.DefaultCallTimeout, "how long one replayed call may take; a call that times out is reported and the replay goes on")
}

// check validates the flags and returns the headers to send.
func (r *replayFlags) check() (http.Header, error) {
	if r.timeout <= 0 {
		return nil, fmt.Errorf("--call-timeout must be positive, got %s", r.timeout)
	}
	if r.target != "" {
		if _, err := httpcapture.ParseTarget(r.target); err != nil {
			return nil, fmt.Errorf("--replay-target: %v", err)
		}
	}
	h := http.Header{}
	for _, line := range r.headers {
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("--replay-header %q: want 'Name: value'", line)
		}
		if err := replay.CheckHeader(name); err != nil {
			return nil, fmt.Errorf("--replay-header: %v", err)
		}
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if len(h) > 0 && r.target == "" {
		return nil, errors.New("--replay-header goes with --replay-target (a stdio server gets no headers)")
	}
	return h, nil
}

// shimExecutable is the mcpsnoop that runs a stdio replay's server: this
// very program (a test hook, since a test binary is not mcpsnoop).
var shimExecutable = os.Executable

// replaysDir is where replay logs go by default: <state>/replays, next to
// sessions/ so that replays are not mistaken for clients' sessions.
func replaysDir() string { return filepath.Join(capture.StateDir(), "replays") }

// defaultReplayLog is the replay log of a recorded session: one file per
// session, appended to by each replay of it.
func defaultReplayLog(sessionID string) (string, error) {
	// Made and checked as the state directory's own: the name below is
	// predictable, so the folder must be this user's alone.
	dir, err := capture.MakeStateDir("replays")
	if err != nil {
		return "", fmt.Errorf("replay log folder: %w", err)
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == os.PathSeparator || r < 0x20 {
			return '_'
		}
		return r
	}, sessionID)
	if name == "" || name == "." || name == ".." {
		name = "session"
	}
	return filepath.Join(dir, name+".jsonl"), nil
}
