//go:build !linux && !darwin && !windows

package stdio

import "time"

// processStart is not implemented here: the meta frame then leaves out
// ppid_start rather than guess it.
func processStart(pid int) (time.Time, bool) { return time.Time{}, false }
