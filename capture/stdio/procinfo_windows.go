package stdio

import (
	"time"

	"golang.org/x/sys/windows"
)

// processStart reads pid's creation time with GetProcessTimes.
func processStart(pid int) (time.Time, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return time.Time{}, false
	}
	defer windows.CloseHandle(h)
	return handleStart(h)
}

// handleStart is the creation time of the process h is a handle to.
func handleStart(h windows.Handle) (time.Time, bool) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return time.Time{}, false
	}
	if created.Nanoseconds() <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, created.Nanoseconds()), true
}
