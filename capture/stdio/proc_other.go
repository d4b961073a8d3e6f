//go:build !unix

package stdio

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
)

// startServer starts the server as the shim's own child. Windows has no
// process groups to end and no supervisor here: a job object that ends
// the server's tree with the shim is another change's.
func startServer(argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (*exec.Cmd, func(), error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := startLocked(cmd, exited); err != nil {
		return nil, nil, err
	}
	return cmd, func() {}, nil
}

// startCode is the status a start error gets: 127 when the server is not
// found, 126 otherwise, as shells do.
func startCode(err error) int {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

// groupAlive cannot tell without process groups: the server alone is
// waited for.
func groupAlive(p *os.Process) bool { return false }

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
