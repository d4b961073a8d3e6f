//go:build !unix

package stdio

import (
	"os"
	"os/exec"
)

func isolate(cmd *exec.Cmd) {}

// signalServer passes sig on where the platform can; elsewhere (Windows
// cannot deliver SIGTERM) the server is killed.
func signalServer(p *os.Process, sig os.Signal) error {
	if err := p.Signal(sig); err != nil {
		return p.Kill()
	}
	return nil
}

func killServer(p *os.Process) error { return p.Kill() }

// parentGone cannot tell on Windows, which keeps a process's parent id
// after the parent has exited.
func parentGone(ppid int) bool { return false }
