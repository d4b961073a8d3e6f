// Package wincmd holds how Windows finds and starts a command, written as
// plain string work so that it runs (and is tested) on every platform:
// finding a command through PATH and PATHEXT, quoting arguments the way
// programs parse their command line (CommandLineToArgvW's rules), and the
// command line that runs a batch file (.cmd, .bat) through cmd.exe with
// every argument escaped against cmd's metacharacters.
//
// The shim uses it on Windows (capture/stdio), where MCP client configs
// say "command": "npx" for npx.cmd, and where CreateProcess given a batch
// file would start cmd.exe on a command line cmd re-parses: an argument
// holding & | % ^ or " could then start a second command (the "BatBadBut"
// class of bugs).
package wincmd

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound means no file of that name, with any of PATHEXT's
// extensions, is in the folders searched.
var ErrNotFound = errors.New("not found in PATH (with the extensions of PATHEXT)")

// DefaultPathExt is what cmd.exe uses when PATHEXT is not set.
const DefaultPathExt = ".COM;.EXE;.BAT;.CMD"

// Lookup finds the file that runs for the command name as cmd.exe finds it:
// a name with a folder in it (a \, a / or a drive) is looked for there, any
// other in each folder of path (the PATH variable's value, ; between
// folders) in turn. In each place the name itself is taken when it has an
// extension, else the name with each extension of pathExt (PATHEXT's
// value; DefaultPathExt when empty) in turn, so "npx" finds npx.cmd.
//
// Unlike cmd.exe, the current folder is not searched first: a config file
// in a repository that says "command": "npx" must not run an npx.cmd the
// repository planted (as Go's os/exec refuses too). Name it .\npx.cmd to
// run that one. isFile reports whether a regular file is at a path.
func Lookup(name, path, pathExt string, isFile func(string) bool) (string, error) {
	if name == "" {
		return "", errors.New("empty command name")
	}
	exts := splitPathExt(pathExt)
	if hasFolder(name) {
		if f, ok := withExtension(name, exts, isFile); ok {
			return f, nil
		}
		return "", fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	for _, dir := range strings.Split(path, ";") {
		dir = strings.Trim(dir, `"`) // PATH entries may be quoted
		if dir == "" {
			continue
		}
		if f, ok := withExtension(joinPath(dir, name), exts, isFile); ok {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotFound)
}

// joinPath puts name in folder dir with a backslash between.
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, `\`) || strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + `\` + name
}

// withExtension is the file at base: base itself when it has an extension
// and is a file, else base with the first of exts that is a file.
func withExtension(base string, exts []string, isFile func(string) bool) (string, bool) {
	if HasExtension(base) && isFile(base) {
		return base, true
	}
	for _, e := range exts {
		if isFile(base + e) {
			return base + e, true
		}
	}
	return "", false
}

// splitPathExt is PATHEXT's extensions, each with its dot, in lower case
// (Windows names ignore case), in order.
func splitPathExt(v string) []string {
	if strings.TrimSpace(v) == "" {
		v = DefaultPathExt
	}
	var exts []string
	for _, e := range strings.Split(v, ";") {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		exts = append(exts, e)
	}
	return exts
}

// hasFolder: name says where it is (a path, not a name to search for).
func hasFolder(name string) bool { return strings.ContainsAny(name, `\/:`) }

// HasExtension reports whether the last element of path has an extension.
func HasExtension(path string) bool {
	dot := strings.LastIndex(path, ".")
	return dot >= 0 && strings.LastIndexAny(path, `\/:`) < dot
}

// IsBatch reports whether path is a batch file, which Windows runs
// through cmd.exe.
func IsBatch(path string) bool {
	i := strings.LastIndex(path, ".")
	if i < 0 || strings.LastIndexAny(path, `\/:`) > i {
		return false
	}
	ext := strings.ToLower(path[i:])
	return ext == ".cmd" || ext == ".bat"
}
