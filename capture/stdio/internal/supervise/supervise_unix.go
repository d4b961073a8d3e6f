//go:build unix

package supervise

import (
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

// Env marks a process started as a supervisor; the shim sets it for the
// supervisor alone, which removes it before it starts the server.
const Env = "MCPSNOOP_STDIO_SUPERVISOR"

// The supervisor's extra descriptors: the lifeline, whose writing end
// only the shim holds, and the pipe on which it says whether the server
// started ("ok\n", or "err CODE MESSAGE\n").
const (
	LifelineFD = 3
	StatusFD   = 4
)

func init() {
	if os.Getenv(Env) == "1" {
		os.Exit(run(os.Args[1:]))
	}
}

// run is the supervisor's whole life. args are the server's path, as the
// shim resolved it, and its argv: it starts the server with the
// supervisor's stdin, stdout and stderr, reports the start on the status
// pipe, and returns the server's exit status, or ends the process group
// when the lifeline does.
func run(args []string) int {
	os.Unsetenv(Env)
	lifeline := os.NewFile(LifelineFD, "lifeline")
	status := os.NewFile(StatusFD, "status")
	syscall.CloseOnExec(LifelineFD)
	syscall.CloseOnExec(StatusFD)
	// SIGINT, SIGTERM and SIGHUP sent to the group are the server's to
	// act on; the supervisor stays to report how the server ended. They
	// are caught, not ignored: an ignored signal would stay ignored in the
	// server.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for range sigs {
		}
	}()
	if len(args) < 2 {
		report(status, "err 2 no server command given\n")
		return 2
	}
	_, exited, err := startLocked(args[0], args[1:])
	if err != nil {
		code := 126
		if errors.Is(err, fs.ErrNotExist) {
			code = 127
		}
		report(status, "err "+itoa(code)+" "+oneLine(err.Error())+"\n")
		return code
	}
	report(status, "ok\n")
	status.Close()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := lifeline.Read(buf); err != nil {
				break // the shim is gone
			}
		}
		_ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL)
	}()
	return exitStatus(<-exited)
}

// itoa and oneLine stand in for strconv.Itoa and strings.ReplaceAll: both
// packages sort after "github.com" and strings imports unicode, so either
// would have Go initialise dozens of the program's packages first.
func itoa(n int) string {
	if n < 0 || n > 999 {
		return "1"
	}
	s := string(rune('0' + n%10))
	for n /= 10; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

func report(status *os.File, line string) { _, _ = status.WriteString(line) }

// startLocked starts the server from a goroutine locked to its OS thread
// and keeps that thread until the server has exited: the server's
// parent-death signal (Linux) fires when the thread that started it
// exits, should the supervisor itself be killed.
func startLocked(path string, argv []string) (*os.Process, <-chan *os.ProcessState, error) {
	type started struct {
		p   *os.Process
		err error
	}
	start := make(chan started, 1)
	exited := make(chan *os.ProcessState, 1)
	go func() {
		runtime.LockOSThread()
		sys := &syscall.SysProcAttr{}
		setParentDeathSignal(sys)
		p, err := os.StartProcess(path, argv, &os.ProcAttr{
			Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Sys:   sys,
		})
		start <- started{p, err}
		if err != nil {
			runtime.UnlockOSThread()
			return
		}
		ps, _ := p.Wait()
		runtime.UnlockOSThread()
		exited <- ps
	}()
	s := <-start
	return s.p, exited, s.err
}

// exitStatus is a finished server's status as a shell reports it.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
