package capture

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxProjectFile is the largest package.json or pyproject.toml read for a
// label: a bigger one is not a project file anyone wrote by hand, and the
// shim must not stall reading it before the server starts.
const maxProjectFile = 1 << 20

// projectName is the name of the project a script in folder belongs to:
// from folder upward, the first folder holding a package.json or a
// pyproject.toml decides (a Python script looks at pyproject.toml first,
// anything else at package.json), and the walk stops at the folder holding
// .git. "" when that file names no usable label, or there is none.
func projectName(folder string, python bool) string {
	readers := []func(string) (string, bool){readPackageJSON, readPyproject}
	if python {
		readers[0], readers[1] = readers[1], readers[0]
	}
	for {
		for _, read := range readers {
			if name, found := read(folder); found {
				if ValidateLabel(name) != nil {
					return ""
				}
				return name
			}
		}
		if exists(filepath.Join(folder, ".git")) { // a folder, or a file in a worktree
			return ""
		}
		parent := filepath.Dir(folder)
		if parent == folder {
			return ""
		}
		folder = parent
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// readProjectFile reads a regular file of at most maxProjectFile bytes.
// found is whether the file is there at all (a project file that is too
// big or unreadable still ends the walk, with no name).
func readProjectFile(path string) (data []byte, found bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, !errors.Is(err, os.ErrNotExist)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxProjectFile {
		return nil, true
	}
	data, err = io.ReadAll(io.LimitReader(f, maxProjectFile+1))
	if err != nil || len(data) > maxProjectFile {
		return nil, true
	}
	return data, true
}

// readPackageJSON is the "name" of folder/package.json without its npm
// scope (`@scope/server-x` is `server-x`).
func readPackageJSON(folder string) (string, bool) {
	data, found := readProjectFile(filepath.Join(folder, "package.json"))
	if data == nil {
		return "", found
	}
	var pkg struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return "", true
	}
	name, _ := pkg.Name.(string)
	if strings.HasPrefix(name, "@") {
		if _, rest, ok := strings.Cut(name, "/"); ok {
			name = rest
		}
	}
	return name, true
}

// readPyproject is the [project] name of folder/pyproject.toml.
func readPyproject(folder string) (string, bool) {
	data, found := readProjectFile(filepath.Join(folder, "pyproject.toml"))
	if data == nil {
		return "", found
	}
	return PyprojectName(data), true
}
