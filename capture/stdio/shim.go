// Package stdio is the stdio capture: a shim that runs an MCP server as its
// child, forwards the client's stdin and the server's stdout and stderr
// unchanged, and logs every line as a capture.Frame through a
// capture.LogWriter. It owns the child process (start, signals, exit
// status) and the meta frame that names it.
package stdio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// DefaultKillGrace is how long a server may take to exit after a forwarded
// SIGINT, SIGTERM or SIGHUP before the shim kills it.
const DefaultKillGrace = 5 * time.Second

// drainGrace is how long the shim keeps reading the server's stdout and
// stderr after the server exited, for output a process it started may still
// hold open.
const drainGrace = 2 * time.Second

// ForwardedSignals are the signals the shim passes on to the server.
var ForwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// Shim runs a stdio MCP server as a child process between a client (the
// shim's own stdin and stdout) and the server, forwarding every byte both
// ways unchanged and as soon as it arrives, passing the server's stderr
// through, and logging each line as a frame in wire order.
//
// Forward first, record second: logging never delays, alters or drops a
// forwarded byte. The log sees each chunk just before it is forwarded (to
// number the lines it starts) and does its work on its own goroutine.
type Shim struct {
	Command []string // the server's argv
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// OpenLog is called once the server has started and returns the log to
	// write, or nil for none. The meta frame is written first.
	OpenLog func() *capture.LogWriter
	// Signals are passed on to the server. After the first, the server has
	// KillGrace (DefaultKillGrace when zero) to exit before it is killed.
	Signals   <-chan os.Signal
	KillGrace time.Duration
}

// StartError means the server could not be started; Code is the exit
// status to report (127 not found, 126 otherwise, as shells do).
type StartError struct {
	Code int
	Err  error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Run starts the server, forwards until it has exited and its output is
// drained, closes the log, and returns the server's exit status (128+n
// when signal n ended it).
func (s *Shim) Run() (int, error) {
	if len(s.Command) == 0 {
		return 2, errors.New("no server command given")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return 1, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 1, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return 1, err
	}
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	isolate(cmd)
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		code := 126
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			code = 127
		}
		return code, &StartError{Code: code, Err: fmt.Errorf("cannot start %q: %w", s.Command[0], err)}
	}
	closeAll(inR, outW, errW)

	var log *capture.LogWriter
	if s.OpenLog != nil {
		log = s.OpenLog()
	}
	split := func(dir string) *capture.LineSplitter {
		if log == nil {
			return nil
		}
		return log.Lines(dir)
	}
	if log != nil {
		log.Meta(NewMeta(s.Command))
	}
	// The client's side is not waited for: once the server is gone there
	// is nobody to forward to, whether or not the client has hung up.
	go func() {
		pump(s.Stdin, inW, split(capture.ClientToServer))
		inW.Close()
	}()
	var pumps sync.WaitGroup
	pumps.Add(2)
	go func() { defer pumps.Done(); pump(outR, s.Stdout, split(capture.ServerToClient)) }()
	go func() { defer pumps.Done(); pump(errR, s.Stderr, split(capture.Stderr)) }()

	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the status is read from ProcessState
		close(exited)
	}()
	s.superviseSignals(cmd.Process, exited)

	drained := make(chan struct{})
	go func() { pumps.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainGrace):
		// Something the server started still holds its output open.
		now := time.Now()
		_ = outR.SetReadDeadline(now)
		_ = errR.SetReadDeadline(now)
		<-drained
	}
	closeAll(outR, errR)
	if log != nil {
		if lost := log.Close(); lost > 0 {
			fmt.Fprintf(s.Stderr, "mcpsnoop: %d frame(s) were dropped from the log %s; it is incomplete\n", lost, log.Path())
		}
	}
	return exitStatus(cmd.ProcessState), nil
}

// superviseSignals forwards signals until the server has exited, and kills
// it if it outlives the grace period after the first one.
func (s *Shim) superviseSignals(p *os.Process, exited <-chan struct{}) {
	grace := s.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	var (
		timer   *time.Timer
		expired <-chan time.Time
		first   os.Signal
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-exited:
			return
		case sig := <-s.Signals:
			_ = signalServer(p, sig)
			if timer == nil {
				first = sig
				timer = time.NewTimer(grace)
				expired = timer.C
			}
		case <-expired:
			expired = nil
			fmt.Fprintf(s.Stderr, "mcpsnoop: the server did not exit within %s of %s; killing it\n", grace, SignalName(first))
			_ = killServer(p)
		}
	}
}

// SignalName is the conventional name of sig ("SIGTERM").
func SignalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return sig.String()
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

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
