//go:build windows

package capture

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// userTag names this user in the temporary state directory's name: the
// SID of the process's user ("S-1-5-21-..."), which is unique and safe in
// a file name; "user" should the token not tell.
func userTag() string {
	if sid := currentUserSID(); sid != nil {
		return sid.String()
	}
	return "user"
}

func currentUserSID() *windows.SID {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil
	}
	return u.User.Sid
}

// notPrivate checks the owner only: a folder under the user's own %TEMP%
// is not shared, and reading Windows ACLs for "writable by others" is left
// to the system's defaults. The owner may be the user, or the
// Administrators group when the user is an elevated member of it (Windows
// gives new files to that group then).
func notPrivate(path string, _ fs.FileInfo) string {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return "its owner cannot be read (" + err.Error() + ")"
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return "its owner cannot be read"
	}
	if me := currentUserSID(); me != nil && owner.Equals(me) {
		return ""
	}
	if owner.IsWellKnown(windows.WinBuiltinAdministratorsSid) {
		if member, err := windows.Token(0).IsMember(owner); err == nil && member { // 0: this thread's own token
			return ""
		}
	}
	return "it belongs to another user (" + owner.String() + ")"
}

// writableByOthers is not judged on Windows (see notPrivate).
func writableByOthers(fs.FileInfo) bool { return false }
