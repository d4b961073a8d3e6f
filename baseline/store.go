// Package baseline keeps the trusted tool definitions of each MCP server, one
// file per server (its label and the serverInfo.name it gives), so that
// check can report tool-definition drift between sessions (check.md
// section 4). Store is the checker.BaselineStore that check and the
// baseline command use.
//
// The first complete tools/list seen for a server is recorded as its
// baseline (trust on first use). That first write is atomic and race-safe:
// the file is written under a temporary name and hard-linked into place, so
// concurrent runs never see half a file and exactly one of them records it;
// the others load the winner's and compare against it. An accepted baseline
// replaces the old one by rename.
//
// Two servers under one label keep two baselines, but a server never gets
// a fresh one by calling itself something else: a name the label has no
// baseline for, while it has baselines for other names, is reported
// (BaselineObservation.OtherNames) until the user accepts it. Baselines
// written before they were keyed by server name, or under the label a
// server had before labels named the server, are moved to the server's key
// on first use (upgrade.go). A check can be limited to writing baselines
// for this machine's own captures (OnlyOwnLogs, own.go).
package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
)

// Directory and file modes: baselines describe what a user trusts, so they
// are private to the user like the rest of the state directory.
const (
	dirMode  = 0o700
	fileMode = 0o600
)

// DefaultDir is where baselines live without --baseline:
// <state dir>/tool-baselines.
func DefaultDir() string {
	return filepath.Join(capture.StateDir(), "tool-baselines")
}

// Store keeps baselines as files in Dir; an empty Dir means DefaultDir().
// The directory is created on first write.
type Store struct {
	Dir string
	own *ownLogs // set by OnlyOwnLogs
}

var _ checker.BaselineStore = Store{}

func (s Store) dir() string {
	if s.Dir == "" {
		return DefaultDir()
	}
	return s.Dir
}

// Location is the directory baselines are kept in.
func (s Store) Location() string {
	return s.dir()
}

// Path is the baseline file of a label whose server gave no name; see
// PathFor.
func (s Store) Path(label string) string {
	return s.PathFor(label, "")
}

// PathFor is the baseline file of server name under label: the first 16
// bytes of the SHA-256 of the label (and, when name is not empty, a NUL and
// the name) as 32 lowercase hex digits, plus ".json". Hashing keeps any
// label (a command line, a URL) a safe file name, and a baseline of a
// server that gave no name stays where the reference keeps it.
func (s Store) PathFor(label, name string) string {
	key := label
	if name != "" {
		key += "\x00" + name
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(s.dir(), hex.EncodeToString(sum[:16])+".json")
}

// Observe returns the baseline of the key's server. When it has none, in
// this order: a baseline of the label without a server name, or of the old
// label, is moved to the key and returned (upgrade.go); a label with
// baselines for other names only gives those names (OtherNames), or, for a
// server that gave no name, the one baseline the label has; else defs are
// recorded as the baseline and Created is set (held for this check only
// when the log is not the store's to record, own.go). When another writer
// records one between the look and the write, theirs is loaded and
// returned instead.
func (s Store) Observe(key checker.BaselineKey, defs []tooldef.Tool) (checker.BaselineObservation, error) {
	if key.Label == "" {
		return checker.BaselineObservation{}, ErrNoLabel
	}
	obs, err := s.observation(key.Label, key.ServerName)
	if !errors.Is(err, ErrNotFound) {
		return obs, err // found, or unusable
	}
	own := s.owns(key.Log)
	if obs, ok := s.heldBaseline(key.Label, key.ServerName); ok {
		return obs, nil
	}
	if obs, ok, err := s.upgrade(key, own); ok || err != nil {
		return obs, err
	}
	if obs, ok, err := s.otherNames(key); ok || err != nil {
		return obs, err
	}
	if !own {
		return s.hold(key, defs), nil
	}
	created, err := s.record(key.Label, key.ServerName, defs)
	if err != nil {
		return checker.BaselineObservation{}, err
	}
	if created {
		return checker.BaselineObservation{Created: true, Version: Version}, nil
	}
	return s.observation(key.Label, key.ServerName)
}

// observation loads the baseline of name under label.
func (s Store) observation(label, name string) (checker.BaselineObservation, error) {
	version, tools, err := s.Load(label, name)
	if err != nil {
		return checker.BaselineObservation{}, err
	}
	return checker.BaselineObservation{Version: version, Tools: tools}, nil
}

// otherNames answers for a server the label has no baseline of, when the
// label has baselines of other names: a named server is told their names;
// a server that gave none is compared with the label's only baseline (it
// cannot say it is another server), and is an error when there are several.
func (s Store) otherNames(key checker.BaselineKey) (checker.BaselineObservation, bool, error) {
	names, err := s.namesOf(key.Label)
	if err != nil {
		return checker.BaselineObservation{}, false, err
	}
	switch {
	case len(names) == 0:
		return checker.BaselineObservation{}, false, nil
	case key.ServerName != "":
		return checker.BaselineObservation{OtherNames: names}, true, nil
	case len(names) > 1:
		return checker.BaselineObservation{}, false, fmt.Errorf("the server gave no serverInfo.name, and label %q has tool baselines for servers %q; give each server a label of its own (--label)", key.Label, names)
	}
	if obs, ok := s.heldBaseline(key.Label, names[0]); ok {
		return obs, true, nil
	}
	obs, err := s.observation(key.Label, names[0])
	return obs, true, err
}

// record writes defs as the first-seen baseline of name under label unless
// one exists. created is false, with no error, when another writer got
// there first: a baseline is never replaced by a first-seen write
// (atomicfile.WriteNew).
func (s Store) record(label, name string, defs []tooldef.Tool) (created bool, err error) {
	if label == "" {
		return false, ErrNoLabel
	}
	data, err := encodeFile(Version, label, name, defs)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(s.dir(), dirMode); err != nil {
		return false, err
	}
	return atomicfile.WriteNew(s.PathFor(label, name), data, fileMode)
}

// Accept records tools as the baseline (version 2) of server name under
// label, replacing any baseline it had, readable or not. The label's
// baselines of other names stay: they may be other servers'.
func (s Store) Accept(label, name string, tools []tooldef.Tool) error {
	if label == "" {
		return ErrNoLabel
	}
	data, err := encodeFile(Version, label, name, tools)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir(), dirMode); err != nil {
		return err
	}
	return atomicfile.Write(s.PathFor(label, name), data, fileMode)
}

// Reset deletes every baseline of the label, whatever server name it was
// recorded for, so that the next complete tools/list is trusted. A label
// without one is not an error.
func (s Store) Reset(label string) error {
	if label == "" {
		return ErrNoLabel
	}
	paths, err := s.filesOf(label)
	if err != nil {
		return err
	}
	for _, p := range append(paths, s.Path(label)) {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
