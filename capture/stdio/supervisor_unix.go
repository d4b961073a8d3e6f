//go:build unix

package stdio

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpsnoop/mcpsnoop/capture/stdio/internal/supervise"
)

// The server runs under a supervisor in its process group: where there is
// a POSIX shell, the shell's watcher (watcher_unix.go); else this same
// program, started again in a hidden mode, described here. The kernel's parent-death
// signal (Linux only) reaches the shim's direct child alone, so a server
// behind a wrapper (sh -c, npx, uvx, the npm launcher) outlived a shim
// killed with SIGKILL; and macOS has no parent-death signal at all. The
// supervisor holds the reading end of a pipe (the lifeline) whose writing
// end only the shim holds: when the shim is gone, however it went, the
// pipe ends and the supervisor kills the whole group, itself included, at
// once. Otherwise it only starts the server, waits for it, and exits with
// its status, so the shim sees the server's status as before; the signals
// the shim passes on reach the group, the supervisor ignoring those that
// would end it first.
//
// The supervisor is package internal/supervise, which Go initialises
// among the program's first packages, so that a supervisor holds little
// more than the runtime: the hidden mode is chosen there, by
// supervise.Env, which the shim sets for the supervisor alone. Any
// program that imports this package can supervise. The shim resolves the
// server's command on its PATH itself (as exec.Command would in the
// supervisor, with the same environment and folder) and passes the path
// and the argv, so that the supervisor needs no os/exec.

// startErrorCode is the status a server that cannot be started gets: 127
// when it is not found, 126 otherwise, as shells do.
func startErrorCode(err error) int {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

// startServer starts argv with the given stdio: under the shell's watcher
// (watcher_unix.go), else under a supervisor where this program can be
// started again, else directly. It finds argv's program first, as
// exec.Command would, so that one that cannot be started is a start error
// whichever starts it. exited is closed once
// the process cmd waits for (the supervisor, or the server) has exited;
// the tree's release must be called after that.
func startServer(argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (cmd *exec.Cmd, tree *serverTree, err error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, nil, err
	}
	if shell := watcherShell(); shell != "" {
		return startWatched(shell, path, argv, stdin, stdout, stderr, exited)
	}
	self := selfExecutable()
	if self == "" {
		return startDirect(argv, stdin, stdout, stderr, exited)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		closeAll(lifeR, lifeW)
		return nil, nil, err
	}
	cmd = exec.Command(self, append([]string{path}, argv...)...)
	cmd.Args[0] = "mcpsnoop-supervisor"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = []*os.File{lifeR, statW} // supervise.LifelineFD, supervise.StatusFD
	cmd.Env = append(os.Environ(), supervise.Env+"=1")
	// A group of its own, which the server joins; no parent-death signal:
	// the supervisor must outlive the shim to end the group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = startLocked(cmd, exited)
	closeAll(lifeR, statW)
	if err != nil {
		closeAll(lifeW, statR)
		return nil, nil, err
	}
	report, _ := bufio.NewReader(statR).ReadString('\n')
	statR.Close()
	done := func() {
		lifeW.Close()
		runtime.KeepAlive(lifeW)
	}
	switch {
	case report == "ok\n":
		return cmd, &serverTree{p: cmd.Process, done: done}, nil
	case strings.HasPrefix(report, "err "):
		<-exited
		done()
		code, msg, _ := strings.Cut(strings.TrimSuffix(report[4:], "\n"), " ")
		n, _ := strconv.Atoi(code)
		return nil, nil, &supervisedStartError{code: n, msg: msg}
	}
	// The supervisor died before it said anything: what it started, if
	// anything, is in its group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	done()
	return nil, nil, fmt.Errorf("the supervisor (%s) ended before starting the server: %v", self, cmd.ProcessState)
}

// supervisedStartError is a server the supervisor could not start.
type supervisedStartError struct {
	code int
	msg  string
}

func (e *supervisedStartError) Error() string { return e.msg }

// startCode is the status a start error gets.
func startCode(err error) int {
	var se *supervisedStartError
	if errors.As(err, &se) && se.code > 0 {
		return se.code
	}
	return startErrorCode(err)
}

// startDirect starts the server as the shim's own child, in a group of its
// own, with a parent-death signal where the kernel has one.
func startDirect(argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (*exec.Cmd, *serverTree, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
	if err := startLocked(cmd, exited); err != nil {
		return nil, nil, err
	}
	return cmd, &serverTree{p: cmd.Process, done: func() {}}, nil
}

// selfExecutable is this program's file, to start again as the
// supervisor, or "" when it cannot be told. On Linux /proc/self/exe names
// it even when the file was replaced or removed since (an upgrade).
func selfExecutable() string {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe"
		}
	}
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}
