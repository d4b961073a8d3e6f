//go:build !unix && !windows

package stdio

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
)

// startServer starts the server as the shim's own child: these platforms
// have no process groups or job objects to end its tree with.
func startServer(argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (*exec.Cmd, *serverTree, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := startLocked(cmd, exited); err != nil {
		return nil, nil, err
	}
	return cmd, &serverTree{p: cmd.Process}, nil
}

// startCode is the status a start error gets: 127 when the server is not
// found, 126 otherwise, as shells do.
func startCode(err error) int {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

// serverTree is the server alone.
type serverTree struct{ p *os.Process }

// alive cannot tell without process groups: the server alone is waited for.
func (t *serverTree) alive() bool { return false }

// signal passes sig on where the platform can, else kills the server.
func (t *serverTree) signal(sig os.Signal) error {
	if err := t.p.Signal(sig); err != nil {
		return t.p.Kill()
	}
	return nil
}

func (t *serverTree) kill() error  { return t.p.Kill() }
func (t *serverTree) release()     {}
func (t *serverTree) note() string { return "" }

// parentProcess cannot be watched here.
type parentProcess struct{ pid int }

func openParent(ppid int) *parentProcess { return &parentProcess{pid: ppid} }
func (p *parentProcess) gone() bool      { return false }
func (p *parentProcess) close()          {}
