package baseline

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A label's baselines are found by reading the folder: a file names its
// label and server name inside (the file name is a hash). This runs only
// when a server has no baseline of its own yet, and for a reset, so the
// cost of reading every file is paid once per new server, not per check.

// header is what a baseline file says of whose it is.
type header struct {
	Server     string `json:"server"`
	ServerName string `json:"server_name"`
}

// labelFile is one baseline file of a label.
type labelFile struct {
	path, name string
}

// scan lists the baseline files that record label, with the server name
// each was recorded for. A file that cannot be read or parsed is not
// anyone's; a folder that does not exist holds nothing.
func (s Store) scan(label string) ([]labelFile, error) {
	entries, err := os.ReadDir(s.dir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []labelFile
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, ".") || filepath.Ext(name) != ".json" {
			continue // temporary files are hidden (atomicfile)
		}
		path := filepath.Join(s.dir(), name)
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var h header
		if json.Unmarshal(data, &h) != nil || h.Server != label {
			continue
		}
		out = append(out, labelFile{path: path, name: h.ServerName})
	}
	return out, nil
}

// namesOf lists, sorted, the server names label has baselines for, on disk
// and held for this check (a baseline without a name is not counted: it is
// found by its own key).
func (s Store) namesOf(label string) ([]string, error) {
	files, err := s.scan(label)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		if f.name != "" && !slices.Contains(names, f.name) {
			names = append(names, f.name)
		}
	}
	for _, n := range s.heldNames(label) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// filesOf lists the paths of every baseline file of label.
func (s Store) filesOf(label string) ([]string, error) {
	files, err := s.scan(label)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.path
	}
	return paths, nil
}
