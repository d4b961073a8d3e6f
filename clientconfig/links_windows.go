//go:build windows

package clientconfig

import (
	"os"

	"golang.org/x/sys/windows"
)

// linkCount is how many names the open file f has (hard links); 1 when
// that cannot be told.
func linkCount(f *os.File) uint64 {
	if f == nil {
		return 1
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 1
	}
	return uint64(info.NumberOfLinks)
}
