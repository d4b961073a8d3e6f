//go:build unix

package stdio

import (
	"os"
	"os/exec"
	"syscall"
)

// isolate starts the server in a process group of its own, so that it gets
// exactly the signals the shim forwards: a Ctrl-C in a terminal reaches the
// shim's group, and the shim passes it on once, not twice. Where the
// platform can (Linux), the server also gets SIGKILL when the shim dies,
// however it dies (see startLocked).
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// signalServer sends sig to the server's process group (the server and
// whatever it started), or to the server alone if the group is gone.
func signalServer(p *os.Process, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return p.Signal(sig)
	}
	if err := syscall.Kill(-p.Pid, s); err == nil {
		return nil
	}
	return p.Signal(sig)
}

// killServer ends the server's process group at once.
func killServer(p *os.Process) error {
	return signalServer(p, syscall.SIGKILL)
}

// parentGone reports whether the process that started the shim (pid ppid)
// has exited: the shim has been handed to another parent. A shim started
// by pid 1 cannot tell.
func parentGone(ppid int) bool {
	return ppid > 1 && os.Getppid() != ppid
}
