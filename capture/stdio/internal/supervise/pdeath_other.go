//go:build unix && !linux

package supervise

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent-death
// signal: the lifeline alone ends the group.
func setParentDeathSignal(attr *syscall.SysProcAttr) {}
