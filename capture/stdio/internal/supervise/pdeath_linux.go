package supervise

import "syscall"

// setParentDeathSignal has the kernel kill the server should the
// supervisor die (it holds the server's starting thread until the server
// exits).
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
