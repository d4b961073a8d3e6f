package baseline

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// A log from elsewhere (a colleague's, a bug report's, a fixture) must not
// plant a first-seen baseline in the user's state directory: the next
// session of the user's own server under that label would be judged
// against it. OnlyOwnLogs makes the store write only for the logs in given
// folders (check passes the state directory's sessions and the configured
// log-dir when it was given no --baseline). A session read from anywhere
// else, or from standard input, is compared with an existing baseline as
// usual; when there is none, its listing is held in memory as the
// baseline for the rest of this check (so later sessions of the server in
// the same check are still compared with it), and nothing is written or
// moved.

// ownLogs is what OnlyOwnLogs set, shared by the copies of a Store.
type ownLogs struct {
	dirs []string
	mu   sync.Mutex
	held map[[2]string][]tooldef.Tool // label, server name -> tools
}

// OnlyOwnLogs returns a copy of s that writes baselines only for sessions
// read from a log inside one of dirs (at any depth), or that is one of
// them (a log file); relative paths are taken from the working directory.
// Its held baselines are its own.
func (s Store) OnlyOwnLogs(dirs ...string) Store {
	o := &ownLogs{held: map[[2]string][]tooldef.Tool{}}
	for _, d := range dirs {
		if d != "" {
			o.dirs = append(o.dirs, realPath(d))
		}
	}
	s.own = o
	return s
}

// owns reports whether the store writes baselines for a session read from
// log ("" for standard input).
func (s Store) owns(log string) bool {
	if s.own == nil {
		return true
	}
	if log == "" {
		return false
	}
	p := realPath(log)
	return slices.ContainsFunc(s.own.dirs, func(dir string) bool { return within(dir, p) })
}

// realPath is path made absolute, with symbolic links resolved as far as
// it exists (a state directory under a linked /tmp is the same place
// whichever way it is named).
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(r, filepath.Base(abs))
	}
	return abs
}

// within reports whether path is inside dir, at any depth, or is dir (a
// configured trace file).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// hold makes defs the key's baseline for the rest of this check.
func (s Store) hold(key checker.BaselineKey, defs []tooldef.Tool) checker.BaselineObservation {
	s.own.mu.Lock()
	defer s.own.mu.Unlock()
	k := [2]string{key.Label, key.ServerName}
	if tools, ok := s.own.held[k]; ok { // held meanwhile
		return checker.BaselineObservation{Version: Version, Tools: tools}
	}
	s.own.held[k] = defs
	return checker.BaselineObservation{Created: true, Held: true, Version: Version}
}

// heldBaseline is the baseline held for name under label, if any.
func (s Store) heldBaseline(label, name string) (checker.BaselineObservation, bool) {
	if s.own == nil {
		return checker.BaselineObservation{}, false
	}
	s.own.mu.Lock()
	defer s.own.mu.Unlock()
	tools, ok := s.own.held[[2]string{label, name}]
	return checker.BaselineObservation{Version: Version, Tools: tools}, ok
}

// heldNames lists the server names label has held baselines for.
func (s Store) heldNames(label string) []string {
	if s.own == nil {
		return nil
	}
	s.own.mu.Lock()
	defer s.own.mu.Unlock()
	var names []string
	for k := range s.own.held {
		if k[0] == label {
			names = append(names, k[1])
		}
	}
	return names
}
