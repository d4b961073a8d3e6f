//go:build unix

package clientconfig

import (
	"os"
	"syscall"
)

// linkCount is how many names the open file f has (hard links); 1 when
// that cannot be told.
func linkCount(f *os.File) uint64 {
	if f == nil {
		return 1
	}
	info, err := f.Stat()
	if err != nil {
		return 1
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
