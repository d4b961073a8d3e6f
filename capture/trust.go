package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"github.com/mcpsnoop/mcpsnoop/internal/filelock"
)

// TrustFile is where the state directory records the config files the
// user trusts: <state>/trusted.json.
const TrustFile = "trusted.json"

// A TrustedConfig is one config file the user trusts: its absolute path
// (its folder's links resolved) and the SHA-256 of the content trusted.
// A file whose content changed is not trusted any more.
type TrustedConfig struct {
	Path    string    `json:"path"`
	SHA256  string    `json:"sha256"`
	Trusted time.Time `json:"trusted_at"`
}

// trustRecord is trusted.json.
type trustRecord struct {
	Files []TrustedConfig `json:"files"`
}

// ConfigDigest is the SHA-256 of a config's content, in hex, as trust
// records it.
func ConfigDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TrustedConfigs lists the trusted config files. A missing record is an
// empty list; a record mcpsnoop cannot believe (see TrustedStateFile) or
// read is an error.
func TrustedConfigs() ([]TrustedConfig, error) {
	path := filepath.Join(StateDir(), TrustFile)
	f, err := OpenStateFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rec, err := readTrust(f)
	if err != nil {
		return nil, err
	}
	return rec.Files, nil
}

// readTrust reads and checks trusted.json from f.
func readTrust(f *os.File) (trustRecord, error) {
	var rec trustRecord
	info, err := f.Stat()
	if err != nil {
		return rec, err
	}
	if err := TrustedStateFile(f.Name(), info); err != nil {
		return rec, err
	}
	data, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return rec, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if len(data) == 0 {
		return rec, nil // just created by a trust that is writing it
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s: not a record of trusted configs: %v", f.Name(), err)
	}
	return rec, nil
}

// lookupTrust says whether path is trusted with content digest, and
// whether it is trusted with another content (it changed since).
func lookupTrust(path, digest string) (trusted, changed bool, err error) {
	files, err := TrustedConfigs()
	if err != nil {
		return false, false, err
	}
	for _, t := range files {
		if t.Path == path {
			if t.SHA256 == digest {
				return true, false, nil
			}
			changed = true
		}
	}
	return false, changed, nil
}

// Trust records the config file at path (absolute, as LoadProjectConfig
// names it) as trusted with content digest, replacing what was recorded
// for that path. It reports whether the record changed.
func Trust(path, digest string) (bool, error) {
	return editTrust(func(files []TrustedConfig) ([]TrustedConfig, bool) {
		for _, t := range files {
			if t.Path == path && t.SHA256 == digest {
				return files, false
			}
		}
		files = slices.DeleteFunc(files, func(t TrustedConfig) bool { return t.Path == path })
		return append(files, TrustedConfig{Path: path, SHA256: digest, Trusted: time.Now().UTC().Truncate(time.Second)}), true
	})
}

// Revoke removes the record of path. It reports whether there was one.
func Revoke(path string) (bool, error) {
	return editTrust(func(files []TrustedConfig) ([]TrustedConfig, bool) {
		n := len(files)
		files = slices.DeleteFunc(files, func(t TrustedConfig) bool { return t.Path == path })
		return files, len(files) != n
	})
}

// editTrust changes trusted.json under its lock: two trust commands at
// once both land.
func editTrust(edit func([]TrustedConfig) ([]TrustedConfig, bool)) (bool, error) {
	dir, err := MakeStateDir("")
	if err != nil {
		return false, err
	}
	path := filepath.Join(dir, TrustFile)
	f, err := filelock.OpenLocked(path, func(p string) (*os.File, error) {
		return OpenStateFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	})
	if err != nil {
		return false, err
	}
	defer f.Close()
	rec, err := readTrust(f)
	if err != nil {
		return false, err
	}
	files, changed := edit(rec.Files)
	if !changed {
		return false, nil
	}
	slices.SortFunc(files, func(a, b TrustedConfig) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	data, err := json.MarshalIndent(trustRecord{Files: files}, "", "  ")
	if err != nil {
		return false, err
	}
	// Replaced by a rename while the lock is held: the next one in line
	// finds the file replaced and locks the new one (filelock.OpenLocked).
	if err := atomicfile.Write(path, append(data, '\n'), 0o600); err != nil {
		return false, err
	}
	return true, nil
}
