package capture

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/internal/filelock"
)

// LogFile is a session log opened for appending (OpenLogFile,
// OpenSessionLog). Several processes may append to one file (four shims
// given one --trace-file): each Write goes to the end of the file in one
// write call while this holds the file's advisory lock (package filelock),
// and the log writer hands it whole frames (see logSink.flush), so frames
// of different writers never interleave inside a line. A write that fails
// part-way is cut back, under the same lock, to the last whole line it
// wrote, so that no other writer's frame is ever cut and the next frame
// starts on a line of its own.
//
// Outputs that are not regular files (a FIFO, /dev/null) are written
// through as they are: they take no lock and cannot be cut.
type LogFile struct {
	f       *os.File
	regular bool
	lk      *os.File // what the lock is taken on: f, or a handle of its own (lockHandle)
}

func newLogFile(f *os.File) *LogFile {
	info, err := f.Stat()
	l := &LogFile{f: f, regular: err == nil && info.Mode().IsRegular()}
	if l.regular {
		l.lk = lockHandle(f)
	}
	return l
}

// File is the open file.
func (l *LogFile) File() *os.File { return l.f }

// Name is the file's name as it was opened.
func (l *LogFile) Name() string { return l.f.Name() }

// Write appends p; see LogFile.
func (l *LogFile) Write(p []byte) (int, error) {
	if !l.regular {
		return l.f.Write(p)
	}
	// A file system without locks (some network and FUSE mounts) is
	// written without: one write call per frame still keeps frames whole
	// where appends are atomic.
	if filelock.Lock(l.lk) == nil {
		defer filelock.Unlock(l.lk)
	}
	start, serr := l.f.Seek(0, io.SeekEnd) // where this write lands, under the lock
	n, err := l.f.Write(p)
	if err != nil && n > 0 && serr == nil {
		keep := bytes.LastIndexByte(p[:n], '\n') + 1
		if l.f.Truncate(start+int64(keep)) == nil {
			n = keep
		}
	}
	return n, err
}

// Seek and Truncate are the file's own, for the log writer's cutTail.
func (l *LogFile) Seek(offset int64, whence int) (int64, error) { return l.f.Seek(offset, whence) }

// Truncate cuts the file to size.
func (l *LogFile) Truncate(size int64) error { return l.f.Truncate(size) }

// ReserveRoom sets room aside beside the file (see RoomReserver).
func (l *LogFile) ReserveRoom(n int) (func(), error) {
	return reserveNextTo(l.f, n)
}

// Close closes the file (and so lets go of any lock).
func (l *LogFile) Close() error {
	if l.lk != nil && l.lk != l.f {
		l.lk.Close()
	}
	return l.f.Close()
}

// OpenSessionLog creates the log of a new session under <state>/sessions
// (folders 0700, file 0600) and returns it with its path. The file is new
// (a session id is never reused) and is created without following a link
// (OpenStateFile).
func OpenSessionLog(sessionID string) (*LogFile, string, error) {
	path := SessionLogPath(sessionID)
	dir, err := MakeStateDir("sessions")
	if err != nil {
		return nil, path, err
	}
	path = filepath.Join(dir, PortableName(sessionID)+".jsonl")
	f, err := OpenStateFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, path, err
	}
	if abs, aerr := filepath.Abs(path); aerr == nil {
		path = abs
	}
	return newLogFile(f), path, nil
}

// OpenLogFile opens path for appending frames (creating it with mode 0600),
// so that several runs, or several captures at once, can share one file.
// Its missing folders are made first (MakeLogFolder). A link is followed:
// the user named the file.
func OpenLogFile(path string) (*LogFile, string, error) {
	if err := MakeLogFolder(path); err != nil {
		return nil, path, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, path, err
	}
	l := newLogFile(f)
	l.endLine()
	if abs, aerr := filepath.Abs(path); aerr == nil {
		path = abs
	}
	return l, path, nil
}

// OpenStateLog opens a log mcpsnoop names itself in the state directory
// and appends to (replays/<recorded-session>.jsonl, whose name is
// predictable) as OpenLogFile does, but never through a link and only
// when it is a regular file (OpenStateFile). Its folder must exist.
func OpenStateLog(path string) (*LogFile, string, error) {
	f, err := OpenStateFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, path, err
	}
	l := newLogFile(f)
	l.endLine()
	if abs, aerr := filepath.Abs(path); aerr == nil {
		path = abs
	}
	return l, path, nil
}

// endLine ends a torn last line of an existing log (an earlier writer was
// killed mid-line) before anything is appended, so the new frames start on
// a line of their own and a reader loses only the torn frame. It looks and
// writes under the lock, so two captures opening the file at once end it
// once.
func (l *LogFile) endLine() {
	if !l.regular {
		return
	}
	if filelock.Lock(l.lk) == nil {
		defer filelock.Unlock(l.lk)
	}
	r, err := os.Open(l.f.Name())
	if err != nil {
		return
	}
	defer r.Close()
	info, err := r.Stat()
	if err != nil || info.Size() == 0 {
		return
	}
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, info.Size()-1); err == nil && last[0] != '\n' {
		l.f.Write([]byte{'\n'})
	}
}

// MakeLogFolder makes the missing folders of a log file's path, as mkdir
// -p does (0755 under the umask): a --trace-file recordings/x.jsonl must
// record, not warn on a stderr no MCP client shows. Inside the state
// directory they are made by MakeStateDir instead (0700, and the
// temporary state directory checked as private).
func MakeLogFolder(path string) error {
	dir := filepath.Dir(path)
	if info, err := os.Stat(dir); err == nil && info.IsDir() {
		return nil
	}
	if sub, ok := inStateDir(dir); ok {
		_, err := MakeStateDir(sub)
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// inStateDir says whether dir is the state directory or inside it, and
// where inside it, as the names spell it.
func inStateDir(dir string) (string, bool) {
	root, err := filepath.Abs(StateDir())
	if err != nil {
		return "", false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return rel, true
}
