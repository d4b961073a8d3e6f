//go:build unix

package stdio

import (
	"os"
	"syscall"
)

// The server runs in a process group of its own (its supervisor's, see
// supervisor_unix.go), so that it gets exactly the signals the shim
// forwards: a Ctrl-C in a terminal reaches the shim's group, and the shim
// passes it on once, not twice.

// groupAlive reports whether any process of the server's group (p is its
// leader) is left.
func groupAlive(p *os.Process) bool {
	return syscall.Kill(-p.Pid, 0) == nil
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
