package stdio

import (
	"time"

	"golang.org/x/sys/unix"
)

// processStart asks the kernel (sysctl kern.proc.pid) when pid started.
func processStart(pid int) (time.Time, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || kp.Proc.P_pid != int32(pid) {
		return time.Time{}, false
	}
	tv := kp.Proc.P_starttime
	if tv.Sec <= 0 {
		return time.Time{}, false
	}
	return time.Unix(int64(tv.Sec), int64(tv.Usec)*1000), true
}
