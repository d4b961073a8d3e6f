package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Where the state directory comes from, which decides how far it is
// trusted: the user's own choice ($MCPSNOOP_HOME, $XDG_STATE_HOME, the
// home folder) is used as it is, with a warning when others may write in
// it; the folder under the shared temporary directory, used when there is
// no home at all, must be this user's own.
type stateSource int

const (
	stateFromEnv  stateSource = iota // $MCPSNOOP_HOME
	stateFromXDG                     // $XDG_STATE_HOME/mcpsnoop
	stateFromHome                    // ~/.local/state/mcpsnoop
	stateFromTemp                    // $TMPDIR/mcpsnoop-<uid>
)

// StateDir returns mcpsnoop's state directory: $MCPSNOOP_HOME if set, else
// $XDG_STATE_HOME/mcpsnoop, else ~/.local/state/mcpsnoop, else (no home
// directory at all) mcpsnoop-<uid> under the OS temp dir (on Windows the
// user's SID stands for the uid). It does not create it: MakeStateDir
// does, and checks it.
func StateDir() string {
	d, _ := stateDir()
	return d
}

func stateDir() (string, stateSource) {
	if d := os.Getenv("MCPSNOOP_HOME"); d != "" {
		return d, stateFromEnv
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "mcpsnoop"), stateFromXDG
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "mcpsnoop"), stateFromHome
	}
	return filepath.Join(os.TempDir(), "mcpsnoop-"+userTag()), stateFromTemp
}

// LogDirEnv names the folder captures write their logs to when no flag
// says where (the shim's and mcpsnoop http's default --log-dir), and where
// the commands that read logs look for them besides the state directory.
const LogDirEnv = "MCPSNOOP_LOG_DIR"

// SessionsDir is where session logs live: <state>/sessions.
func SessionsDir() string {
	return filepath.Join(StateDir(), "sessions")
}

// SessionLogPath is the log path of a session id:
// <state>/sessions/<id>.jsonl, the id in its portable form (PortableName),
// as mcpsnoop names the files it writes.
func SessionLogPath(id string) string {
	return filepath.Join(SessionsDir(), PortableName(id)+".jsonl")
}

// MakeStateDir creates the state directory's folder sub ("" for the state
// directory itself) when missing, with mode 0700, and returns its path.
//
// The folder under the shared temporary directory is refused (an error
// that says why and how to choose another) unless it is a directory of
// this user's own that nobody else may write in: another user of the
// machine could have made it first, to read the logs or to plant links
// in it that make mcpsnoop write to files of the victim's.
func MakeStateDir(sub string) (string, error) {
	root, src := stateDir()
	if src == stateFromTemp {
		if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("state directory %s: %w", root, err)
		}
		if err := checkPrivateDir(root); err != nil {
			return "", err
		}
	}
	dir := root
	if sub != "" {
		dir = filepath.Join(root, sub)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("state directory %s: %w", dir, err)
	}
	return dir, nil
}

// checkPrivateDir refuses the temporary state directory unless it is a
// directory (not a link to one) owned by this user, that only this user
// may write in.
func checkPrivateDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	why := ""
	switch {
	case !info.IsDir():
		why = "it is " + fileKind(info.Mode()) + ", not a directory"
	default:
		why = notPrivate(dir, info)
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("state directory %s: %s, so another user could read the logs or plant files in it; mcpsnoop will not use it (remove it, or set MCPSNOOP_HOME to a folder of your own)", dir, why)
}

// StateDirWarning says, when the state directory is the user's own choice
// ($MCPSNOOP_HOME, $XDG_STATE_HOME, the home folder), exists and other
// users may write in it, that they could plant files in it; "" otherwise.
// The temporary state directory is never warned about: MakeStateDir
// refuses it instead.
func StateDirWarning() string {
	root, src := stateDir()
	if src == stateFromTemp {
		return ""
	}
	info, err := os.Stat(root)
	if err != nil || !info.IsDir() || !writableByOthers(info) {
		return ""
	}
	return fmt.Sprintf("warning: the state directory %s is writable by other users, who could read or plant session logs and records in it; make it yours alone (chmod 700)", root)
}

// TrustedStateFile reports whether a record mcpsnoop keeps in the state
// directory (trusted.json) can be believed: the temporary state directory
// must pass checkPrivateDir, and the file must be this user's and not
// writable by others, wherever the state directory is.
func TrustedStateFile(path string, info fs.FileInfo) error {
	if root, src := stateDir(); src == stateFromTemp {
		if err := checkPrivateDir(root); err != nil {
			return err
		}
	}
	if why := notPrivate(path, info); why != "" {
		return fmt.Errorf("%s: %s, so it is not believed", path, why)
	}
	return nil
}
