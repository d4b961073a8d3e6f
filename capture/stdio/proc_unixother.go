//go:build unix && !linux

package stdio

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent-death
// signal (macOS, the BSDs): a server outlives a shim that is killed
// outright until it notices that its stdin has ended or its stdout is gone.
func setParentDeathSignal(attr *syscall.SysProcAttr) {}
