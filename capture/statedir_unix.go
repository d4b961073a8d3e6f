//go:build unix

package capture

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// userTag names this user in the temporary state directory's name.
func userTag() string { return strconv.Itoa(os.Getuid()) }

// notPrivate says why a file or folder is not this user's alone: another
// owner, or write permission for the group or others. "" when it is.
func notPrivate(_ string, info fs.FileInfo) string {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Sprintf("it belongs to another user (uid %d)", st.Uid)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("others may write in it (mode %04o)", info.Mode().Perm())
	}
	return ""
}

// writableByOthers: anyone on the machine may write in it. A group that
// may write is left alone: with per-user groups (umask 002) that is the
// user's own.
func writableByOthers(info fs.FileInfo) bool { return info.Mode().Perm()&0o002 != 0 }
