//go:build unix

package sysmem

import "syscall"

// OpenFiles is how many files this process may have open at once (the
// soft RLIMIT_NOFILE).
func OpenFiles() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	cur := uint64(rl.Cur) // int64 on some systems (FreeBSD)
	return cur, cur > 0 && cur < 1<<62
}
