package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// OpenStateFile opens a file mcpsnoop names itself under the state
// directory (sessions/<id>.jsonl, replays/<id>.jsonl, trusted.json) with
// os.OpenFile's flag and perm, but never through a symbolic link or any
// other kind of link at its last element, and only when it is a regular
// file. Such names are predictable (a replay log is named after the
// recorded session), so a link planted there must not make mcpsnoop write
// to the file it points at. A file the user names (--trace-file,
// --replay-log) is opened with os.OpenFile and may be a link.
//
// A link is refused with an error that says so (ErrLinkRefused); the
// folders above the file may still be links, which the user chose.
func OpenStateFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, flag, perm)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file (%s)", fileKind(info.Mode()))}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ErrLinkRefused is the reason OpenStateFile refuses a symbolic link.
var ErrLinkRefused = errors.New("is a symbolic link; mcpsnoop does not follow links where it names the file itself")

// fileKind names a file's type for an error.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
