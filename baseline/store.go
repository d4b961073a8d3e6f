// Package baseline keeps the trusted tool definitions of each MCP server, one
// file per server label, so that check can report tool-definition drift
// between sessions (check.md section 4). Store is the checker.BaselineStore
// that check and the baseline command use.
//
// The first complete tools/list seen for a label is recorded as its baseline
// (trust on first use). That first write is atomic and race-safe: the file is
// written under a temporary name and hard-linked into place, so concurrent
// runs never see half a file and exactly one of them records it; the others
// load the winner's and compare against it. An accepted baseline replaces
// the old one by rename.
package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// Path is the label's baseline file: the first 16 bytes of the label's
// SHA-256 as 32 lowercase hex digits, plus ".json". Hashing keeps any label
// (a command line, a URL) a safe file name.
func (s Store) Path(label string) string {
	sum := sha256.Sum256([]byte(label))
	return filepath.Join(s.dir(), hex.EncodeToString(sum[:16])+".json")
}

// Observe returns the label's baseline. When there is none yet, defs are
// recorded as the baseline and Created is set; when another writer records
// one between the look and the write, theirs is loaded and returned instead.
func (s Store) Observe(label string, defs []tooldef.Tool) (checker.BaselineObservation, error) {
	version, _, tools, err := s.Load(label)
	if err == nil {
		return checker.BaselineObservation{Version: version, Tools: tools}, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return checker.BaselineObservation{}, err
	}
	created, err := s.record(label, defs)
	if err != nil {
		return checker.BaselineObservation{}, err
	}
	if created {
		return checker.BaselineObservation{Created: true, Version: Version}, nil
	}
	version, _, tools, err = s.Load(label)
	if err != nil {
		return checker.BaselineObservation{}, err
	}
	return checker.BaselineObservation{Version: version, Tools: tools}, nil
}

// record writes defs as the label's first-seen baseline unless one exists.
// created is false, with no error, when another writer got there first: a
// baseline is never replaced by a first-seen write (atomicfile.WriteNew).
func (s Store) record(label string, defs []tooldef.Tool) (created bool, err error) {
	if label == "" {
		return false, ErrNoLabel
	}
	data, err := encodeFile(label, defs)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(s.dir(), dirMode); err != nil {
		return false, err
	}
	return atomicfile.WriteNew(s.Path(label), data, fileMode)
}

// Accept records tools as the label's baseline (version 2), replacing any
// baseline it had, readable or not.
func (s Store) Accept(label string, tools []tooldef.Tool) error {
	if label == "" {
		return ErrNoLabel
	}
	data, err := encodeFile(label, tools)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir(), dirMode); err != nil {
		return err
	}
	return atomicfile.Write(s.Path(label), data, fileMode)
}

// Reset deletes the label's baseline, so that the next complete tools/list
// is trusted. A label without one is not an error.
func (s Store) Reset(label string) error {
	if label == "" {
		return ErrNoLabel
	}
	if err := os.Remove(s.Path(label)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
