package stdio

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// atClkTck is the auxiliary-vector entry holding the kernel's clock tick
// rate (what sysconf(_SC_CLK_TCK) reads); x/sys has no constant for it.
const atClkTck = 17

// processStart reads when process pid started: its start time in clock ticks
// since boot from /proc/<pid>/stat, plus the boot time from /proc/stat.
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	ticks, ok := statStartTicks(stat)
	if !ok {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	hz := clockTicks()
	return boot.Add(time.Duration(ticks/hz)*time.Second + time.Duration(ticks%hz)*time.Second/time.Duration(hz)), true
}

// statStartTicks is field 22 (starttime) of a /proc/<pid>/stat line. The
// command name in field 2 may hold spaces and parentheses, so fields are
// counted from the last ')'.
func statStartTicks(stat []byte) (uint64, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	// fields[0] is field 3 (state), so starttime (field 22) is fields[19].
	if len(fields) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(fields[19]), 10, 64)
	return n, err == nil
}

// bootTime is the btime line of /proc/stat.
func bootTime() (time.Time, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("btime ")); ok {
			secs, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil || secs <= 0 {
				return time.Time{}, false
			}
			return time.Unix(secs, 0), true
		}
	}
	return time.Time{}, false
}

// clockTicks is the kernel's USER_HZ from the auxiliary vector, or 100
// (its value on every mainstream Linux architecture) when that is missing.
func clockTicks() uint64 {
	if auxv, err := unix.Auxv(); err == nil {
		for _, kv := range auxv {
			if kv[0] == atClkTck && kv[1] > 0 {
				return uint64(kv[1])
			}
		}
	}
	return 100
}
