//go:build unix

package stdio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// The server runs under a supervisor: this same program, started again in
// a hidden mode, in the server's process group. The kernel's parent-death
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
// The hidden mode is chosen by supervisorEnv, which the shim sets for the
// supervisor alone and the supervisor removes before it starts the
// server. Any program that imports this package can supervise: the check
// runs when the package is initialised, before main (or a test's TestMain).

// supervisorEnv marks a process started as a supervisor.
const supervisorEnv = "MCPSNOOP_STDIO_SUPERVISOR"

// The supervisor's extra descriptors: the lifeline, and the pipe on which
// it says whether the server started.
const (
	lifelineFD = 3
	statusFD   = 4
)

func init() {
	if os.Getenv(supervisorEnv) == "1" {
		os.Exit(supervise())
	}
}

// supervise is the supervisor's whole life: it starts the server (its own
// arguments) with its own stdin, stdout and stderr, reports the start on
// the status pipe, and returns the server's exit status, or ends the
// process group when the lifeline does.
func supervise() int {
	os.Unsetenv(supervisorEnv)
	lifeline := os.NewFile(lifelineFD, "lifeline")
	status := os.NewFile(statusFD, "status")
	syscall.CloseOnExec(lifelineFD)
	syscall.CloseOnExec(statusFD)
	// SIGINT, SIGTERM and SIGHUP sent to the group are the server's to
	// act on; the supervisor stays to report how the server ended. They
	// are caught, not ignored: an ignored signal would stay ignored in the
	// server.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, ForwardedSignals...)
	go func() {
		for range sigs {
		}
	}()
	if len(os.Args) < 2 {
		fmt.Fprintf(status, "err 2 no server command given\n")
		return 2
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setParentDeathSignal(cmd.SysProcAttr) // should the supervisor itself be killed
	exited := make(chan struct{})
	if err := startLocked(cmd, exited); err != nil {
		code := startErrorCode(err)
		fmt.Fprintf(status, "err %d %s\n", code, strings.ReplaceAll(err.Error(), "\n", " "))
		return code
	}
	fmt.Fprintf(status, "ok\n")
	status.Close()
	go func() {
		_, _ = io.Copy(io.Discard, lifeline) // ends when the shim is gone
		_ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL)
	}()
	<-exited
	return exitStatus(cmd.ProcessState)
}

// startErrorCode is the status a server that cannot be started gets: 127
// when it is not found, 126 otherwise, as shells do.
func startErrorCode(err error) int {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

// startServer starts argv with the given stdio: under a supervisor where
// this program can be started again, else directly. exited is closed once
// the process cmd waits for (the supervisor, or the server) has exited;
// done releases what the start holds and must be called after that.
func startServer(argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (cmd *exec.Cmd, done func(), err error) {
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
	cmd = exec.Command(self, argv...)
	cmd.Args[0] = "mcpsnoop-supervisor"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = []*os.File{lifeR, statW}
	cmd.Env = append(os.Environ(), supervisorEnv+"=1")
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
	done = func() {
		lifeW.Close()
		runtime.KeepAlive(lifeW)
	}
	switch {
	case report == "ok\n":
		return cmd, done, nil
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
func startDirect(argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (*exec.Cmd, func(), error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
	if err := startLocked(cmd, exited); err != nil {
		return nil, nil, err
	}
	return cmd, func() {}, nil
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
