package capture

import (
	"errors"
	"fmt"
	"github.com/mcpsnoop/mcpsnoop/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// Input is one log to read: a file, or standard input.
type Input struct {
	Path  string // "" for stdin
	Name  string // how errors and reports name it: the path as given, or "stdin"
	Stdin bool
	// Count, when set, is added the bytes read from the input as they are
	// read (a progress line watches it); reading it twice counts twice.
	Count *atomic.Int64
}

// ResolveInputs turns command-line arguments into logs to read, in order.
// No argument means the newest non-empty log in the state directory. An
// argument is "-" (stdin), an existing file or directory (every *.jsonl
// directly inside, sorted by name, empty ones skipped), or else a session id
// under <state>/sessions. A path that exists always wins over an id.
func ResolveInputs(args []string) ([]Input, error) {
	return ResolveInputsNoting(args, nil)
}

// ResolveInputsNoting is ResolveInputs that tells note (when not nil) of
// every *.jsonl entry of a directory it skips for not being a regular file
// (a FIFO, a device, a directory): a log left out is never silent.
func ResolveInputsNoting(args []string, note func(string)) ([]Input, error) {
	if len(args) == 0 {
		in, err := NewestLog([]string{SessionsDir()}, note)
		if err != nil {
			return nil, err
		}
		return []Input{in}, nil
	}
	var out []Input
	stdin := false
	for _, arg := range args {
		if arg == "-" {
			if stdin {
				return nil, errors.New("standard input (-) can be read only once")
			}
			stdin = true
			out = append(out, Input{Name: "stdin", Stdin: true})
			continue
		}
		ins, err := resolveArg(arg, note)
		if err != nil {
			return nil, err
		}
		out = append(out, ins...)
	}
	return readOnce(out), nil
}

// readOnce drops the inputs that are a file an earlier input already
// names: the same path twice, a log named and inside a directory named, a
// glob overlapping either, a symbolic or hard link to it. A log is read
// once however it was named; which file each input is comes from the
// system (os.SameFile), checked within inputs of the same size and time.
func readOnce(inputs []Input) []Input {
	if len(inputs) < 2 {
		return inputs
	}
	type key struct {
		size int64
		mod  int64
	}
	seen := map[key][]fs.FileInfo{}
	out := inputs[:0:0]
next:
	for _, in := range inputs {
		if in.Stdin {
			out = append(out, in)
			continue
		}
		info, err := os.Stat(in.Path)
		if err != nil {
			out = append(out, in) // reading it will say what is wrong
			continue
		}
		k := key{info.Size(), info.ModTime().UnixNano()}
		for _, prev := range seen[k] {
			if os.SameFile(prev, info) {
				continue next
			}
		}
		seen[k] = append(seen[k], info)
		out = append(out, in)
	}
	return out
}

func resolveArg(arg string, note func(string)) ([]Input, error) {
	info, err := os.Stat(arg)
	switch {
	case err == nil && info.IsDir():
		return dirLogs(arg, note)
	case err == nil:
		return []Input{{Path: arg, Name: arg}}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("session log %s: %w", strconv.Quote(arg), atomicfile.PlainError(err))
	}
	if strings.HasSuffix(arg, ".jsonl") || strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator) {
		return nil, fmt.Errorf("session log %q not found", arg)
	}
	// The file of an id is named after its portable form; a log written
	// by another tool may keep the id as it is.
	p := SessionLogPath(arg)
	if _, err := os.Stat(p); err != nil {
		exact := filepath.Join(SessionsDir(), arg+".jsonl")
		if _, xerr := os.Stat(exact); exact == p || xerr != nil {
			return nil, fmt.Errorf("session log %q not found", p)
		}
		p = exact
	}
	return []Input{{Path: p, Name: p}}, nil
}

// dirLogs lists the non-empty *.jsonl files directly inside dir.
func dirLogs(dir string, note func(string)) ([]Input, error) {
	logs, sawEmpty, err := listLogs(dir, note)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, atomicfile.PlainError(err))
	}
	if len(logs) == 0 {
		if sawEmpty {
			return nil, fmt.Errorf("%s: no readable session logs (every *.jsonl file is empty)", dir)
		}
		return nil, fmt.Errorf("%s: no session logs (*.jsonl) in this directory", dir)
	}
	out := make([]Input, len(logs))
	for i, info := range logs {
		p := filepath.Join(dir, info.Name())
		out[i] = Input{Path: p, Name: p}
	}
	return out, nil
}

// NoLogsError is folders that hold no session log, where a command given
// no log looked for one: Missing are the folders that do not exist, Empty
// those whose *.jsonl files are all empty (captures that never started).
type NoLogsError struct {
	Dirs    []string
	Missing []string
	Empty   []string
}

func (e *NoLogsError) Error() string {
	what := "no session logs found in "
	if len(e.Empty) > 0 {
		what = "no readable session logs found in "
	}
	return what + strings.Join(e.Dirs, ", ")
}

// NewestLog picks the most recently modified non-empty log directly inside
// dirs (a folder that does not exist holds none); a *NoLogsError when
// there is none.
func NewestLog(dirs []string, note func(string)) (Input, error) {
	var best fs.FileInfo
	var bestDir string
	none := &NoLogsError{Dirs: dirs}
	for _, dir := range dirs {
		logs, sawEmpty, err := listLogs(dir, note)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			none.Missing = append(none.Missing, dir)
		case err != nil:
			return Input{}, fmt.Errorf("%s: %w", dir, atomicfile.PlainError(err))
		case len(logs) == 0 && sawEmpty:
			none.Empty = append(none.Empty, dir)
		}
		for _, info := range logs {
			if best == nil || info.ModTime().After(best.ModTime()) {
				best, bestDir = info, dir
			}
		}
	}
	if best == nil {
		return Input{}, none
	}
	p := filepath.Join(bestDir, best.Name())
	return Input{Path: p, Name: p}, nil
}

// LogsIn lists every non-empty log directly inside dirs, folder by folder,
// each sorted by name (a folder that does not exist holds none); a
// *NoLogsError when none holds one.
func LogsIn(dirs []string, note func(string)) ([]Input, error) {
	var out []Input
	none := &NoLogsError{Dirs: dirs}
	for _, dir := range dirs {
		logs, sawEmpty, err := listLogs(dir, note)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			none.Missing = append(none.Missing, dir)
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", dir, atomicfile.PlainError(err))
		case len(logs) == 0 && sawEmpty:
			none.Empty = append(none.Empty, dir)
		}
		for _, info := range logs {
			p := filepath.Join(dir, info.Name())
			out = append(out, Input{Path: p, Name: p})
		}
	}
	if len(out) == 0 {
		return nil, none
	}
	return readOnce(out), nil
}

// listLogs returns the regular, non-empty *.jsonl files directly inside dir
// (a symbolic link counts as the file it names), and whether it skipped
// empty ones (a capture that never started leaves an empty log behind).
// Any other *.jsonl entry is skipped, and note (when set) is told why.
func listLogs(dir string, note func(string)) (logs []fs.FileInfo, sawEmpty bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		info, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil || !info.Mode().IsRegular() {
			if note != nil {
				note(fmt.Sprintf("skipping %s: %s", filepath.Join(dir, e.Name()), notALog(info, err)))
			}
			continue
		}
		if info.Size() == 0 {
			sawEmpty = true
			continue
		}
		logs = append(logs, info)
	}
	return logs, sawEmpty, nil
}

// notALog says why a directory entry named *.jsonl is not read as a log.
func notALog(info fs.FileInfo, err error) string {
	switch {
	case err != nil:
		return atomicfile.PlainError(err).Error()
	case info.IsDir():
		return "a directory, not a log file"
	case info.Mode()&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe), not a regular file; name it on the command line to read it"
	case info.Mode()&fs.ModeDevice != 0:
		return "a device, not a regular file"
	case info.Mode()&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	}
	return "not a regular file"
}
