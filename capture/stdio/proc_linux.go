package stdio

import "syscall"

// setParentDeathSignal has the kernel send the server SIGKILL when the
// thread that started it exits: the shim keeps that thread for as long as
// the server runs (startLocked), so this fires when the shim dies, even of
// a SIGKILL that leaves it no time to pass anything on.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
