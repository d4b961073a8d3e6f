//go:build unix

package stdio

import (
	"os"
	"syscall"
)

// The server runs in a process group of its own (with its watcher or
// supervisor, see watcher_unix.go and supervisor_unix.go), so that it
// gets exactly the signals the shim forwards: a Ctrl-C in a terminal reaches the shim's group, and the shim
// passes it on once, not twice.

// serverTree is the started server and what it started: the process group
// whose leader is p (the server, or the Go supervisor). done releases
// what the start holds (the watcher's or supervisor's lifeline).
type serverTree struct {
	p    *os.Process
	done func()
}

// alive reports whether any process of the server's group is left.
func (t *serverTree) alive() bool {
	return syscall.Kill(-t.p.Pid, 0) == nil
}

// signal sends sig to the server's process group (the server and whatever
// it started), or to the server alone if the group is gone.
func (t *serverTree) signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return t.p.Signal(sig)
	}
	if err := syscall.Kill(-t.p.Pid, s); err == nil {
		return nil
	}
	return t.p.Signal(sig)
}

// kill ends the server's process group at once.
func (t *serverTree) kill() error {
	return t.signal(syscall.SIGKILL)
}

// release lets go of the group once the server has exited: the watcher
// (or supervisor) then ends what is left of it.
func (t *serverTree) release() { t.done() }

// note is a warning about the start to say on stderr: none on Unix.
func (t *serverTree) note() string { return "" }

// parentProcess is the process that started the shim, to watch.
type parentProcess struct{ pid int }

// openParent notes the shim's parent, pid ppid.
func openParent(ppid int) *parentProcess { return &parentProcess{pid: ppid} }

// gone reports whether the parent has exited: the shim has been handed to
// another parent. A shim started by pid 1 cannot tell.
func (p *parentProcess) gone() bool {
	return p.pid > 1 && os.Getppid() != p.pid
}

func (p *parentProcess) close() {}
