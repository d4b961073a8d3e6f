package sysmem

import (
	"os"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Total is the memory this process can have: the machine's, or its
// control group's limit when that is lower (a container, a systemd slice).
func Total() (uint64, bool) {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0, false
	}
	total := uint64(si.Totalram) * uint64(si.Unit)
	self, _ := os.ReadFile("/proc/self/cgroup")
	if limit, ok := cgroupLimit("/sys/fs/cgroup", string(self)); ok && limit < total {
		total = limit
	}
	return total, total > 0
}

// cgroupLimit is the lowest memory limit on this process's control group
// and the groups above it, under the cgroup file systems mounted at root;
// self is /proc/self/cgroup. A container with a cgroup namespace sees its
// own group as the root (root's memory.max, v2, or memory.limit_in_bytes,
// v1); a process without one (a systemd service or slice, a group a
// supervisor made) finds its group, and those above it, by the path
// /proc/self/cgroup gives.
func cgroupLimit(root, self string) (uint64, bool) {
	var best uint64
	found := false
	consider := func(file string) {
		if n, ok := readLimit(file); ok && (!found || n < best) {
			best, found = n, true
		}
	}
	var dirs []string
	for _, line := range strings.Split(self, "\n") {
		// hierarchy-ID:controllers:path; v2 is "0::path".
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			dirs = append(dirs, "v2"+parts[2])
		case hasController(parts[1], "memory"):
			dirs = append(dirs, "v1"+parts[2])
		}
	}
	dirs = append(dirs, "v2/", "v1/")
	for _, d := range dirs {
		version, p := d[:2], path.Clean(d[2:])
		for {
			if version == "v2" {
				consider(path.Join(root, p, "memory.max"))
			} else {
				consider(path.Join(root, "memory", p, "memory.limit_in_bytes"))
			}
			if p == "/" {
				break
			}
			p = path.Dir(p)
		}
	}
	return best, found
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readLimit reads one memory limit file: a byte count, or "max" (v2) or a
// huge number (v1) for none.
func readLimit(file string) (uint64, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return n, err == nil && n > 0 && n < 1<<62
}
