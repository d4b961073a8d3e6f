package sysmem

import "golang.org/x/sys/unix"

// Total is the machine's memory.
func Total() (uint64, bool) {
	n, err := unix.SysctlUint64("hw.memsize")
	return n, err == nil && n > 0
}
