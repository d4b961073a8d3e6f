package sysmem

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Total is the memory this process can have: the machine's, or its
// control group's limit when that is lower (a container).
func Total() (uint64, bool) {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0, false
	}
	total := uint64(si.Totalram) * uint64(si.Unit)
	if limit, ok := cgroupLimit(); ok && limit < total {
		total = limit
	}
	return total, total > 0
}

// cgroupLimit is the memory limit of this process's control group (v2,
// else v1), when it has one.
func cgroupLimit() (uint64, bool) {
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(data))
		if v == "max" {
			return 0, false
		}
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && n > 0 && n < 1<<62 {
			return n, true
		}
	}
	return 0, false
}
