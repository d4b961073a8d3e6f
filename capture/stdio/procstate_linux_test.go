package stdio

import (
	"os"
	"strconv"
	"strings"
)

// procState is the state letter of /proc/<pid>/stat ('Z' for a zombie),
// or 0.
func procState(pid int) byte {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2]
	}
	return 0
}
