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
	"runtime"
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
	// Notices is where the shim's own lines go (why it ends the server,
	// what the log lost), never waited for; when nil the shim makes one on
	// Stderr and closes it at its end. A caller that shares one with the
	// log (LogOptions.Warn) closes it itself.
	Notices *capture.Notices
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
//
// The server never outlives its client: once a write to the client fails
// (it has exited, or closed the pipe it reads: it stopped reading), or the
// process that started the shim has exited, the shim stops forwarding,
// says why on stderr and in the log (a stderr frame), and ends the server
// as it does on a forwarded SIGTERM: SIGTERM, then SIGKILL after the kill
// grace. Once the client's input ends, the server has the kill grace to
// exit before it is ended the same way. On Unix a watcher in the server's
// process group (watcher_unix.go, supervisor_unix.go) kills the whole
// group, whatever the server started included, if the shim itself
// is killed; on Windows it runs in a job object that ends with the shim
// (proc_windows.go). What the server started that outlives it is ended
// when the shim ends.
func (s *Shim) Run() (int, error) {
	if len(s.Command) == 0 {
		return 2, errors.New("no server command given")
	}
	// Who started the shim, read before anything else: a client that dies
	// while the server starts must still be seen to be gone.
	parent := openParent(os.Getppid())
	defer parent.close()
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
	exited := make(chan struct{})
	cmd, tree, err := startServer(s.Command, inR, outW, errW, exited)
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		code := startCode(err)
		return code, &StartError{Code: code, Err: fmt.Errorf("cannot start %q: %w", s.Command[0], err)}
	}
	defer tree.release()
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
	gone := make(chan string, 2) // why the client is gone
	clientGone := func(why string) {
		select {
		case gone <- why:
		default:
		}
	}
	// The client's side is not waited for: once the server is gone there
	// is nobody to forward to, whether or not the client has hung up. But
	// a chunk it already forwarded is logged before the log is closed
	// (clientGate): the request a crashing server read last is in the log.
	clientGate := &logGate{}
	inputEnded := make(chan struct{})
	go func() {
		pump(s.Stdin, inW, split(capture.ClientToServer), nil, clientGate)
		inW.Close()
		close(inputEnded)
	}()
	var pumps sync.WaitGroup
	pumps.Add(2)
	go func() {
		defer pumps.Done()
		pump(outR, s.Stdout, split(capture.ServerToClient), func(err error) {
			clientGone("writing to it failed: " + plainError(err))
		}, nil)
	}()
	go func() { defer pumps.Done(); pump(errR, s.Stderr, split(capture.Stderr), nil, nil) }()
	stopWatch := watchParent(parent, clientGone)
	say := s.Notices
	if say == nil {
		say = capture.NewNotices(s.Stderr)
		defer say.Close(capture.NoticeFlush)
	}
	if note := tree.note(); note != "" {
		say.Say(note + "\n")
	}
	s.supervise(tree, exited, inputEnded, gone, log, inW, say)
	stopWatch()
	// What the server started may still run, in its group: it is ended
	// too, gently first (it may hold the output being drained), then at
	// once once the drain gives up on it.
	leftovers := tree.alive()
	if leftovers {
		_ = tree.signal(syscall.SIGTERM)
	}

	drained := make(chan struct{})
	go func() { pumps.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainGrace):
		// Something the server started still holds its output open.
		if leftovers {
			_ = tree.kill()
		}
		now := time.Now()
		_ = outR.SetReadDeadline(now)
		_ = errR.SetReadDeadline(now)
		select {
		case <-drained:
		case <-time.After(drainGrace):
			// A pump is stuck writing to a peer that stopped reading (a
			// full stderr pipe nobody reads, a client that reads no more):
			// what it holds cannot be delivered, and waiting would keep
			// the shim alive for ever. It is left to end with the process;
			// the log's gate below counts its line lost.
		}
	}
	closeAll(outR, errR)
	if log != nil {
		clientGate.close(drainGrace)
		if lost := log.Close(); lost > 0 {
			say.Say(fmt.Sprintf("mcpsnoop: %d frame(s) were dropped from the log %s; it is incomplete\n", lost, log.Path()))
		}
	}
	return exitStatus(cmd.ProcessState), nil
}

// startLocked starts cmd from a goroutine locked to its OS thread, which
// then waits for it and closes exited. The thread is kept for the server's
// whole life because a parent-death signal (Linux) fires when the thread
// that started the child exits, not the process: on any other thread the
// server would die whenever the runtime happened to retire that thread.
func startLocked(cmd *exec.Cmd, exited chan<- struct{}) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			runtime.UnlockOSThread()
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait() // the status is read from ProcessState
		runtime.UnlockOSThread()
		close(exited)
	}()
	return <-started
}

// parentPoll is how often the shim checks that the process that started
// it still runs.
const parentPoll = 500 * time.Millisecond

// watchParent reports to gone when the process that started the shim
// has exited, checking every parentPoll, until stop is called.
func watchParent(parent *parentProcess, gone func(string)) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(parentPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if parent.gone() {
					gone(fmt.Sprintf("its process (pid %d) has exited", parent.pid))
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

// supervise runs until the server has exited: it forwards signals, ends
// the server when the client is gone, and kills it if it outlives the kill
// grace after the first signal passed on (or sent because the client is
// gone). It signals first and says why after, through say, which never
// waits: stderr may be a full pipe.
//
// When the client's input ends (inputEnded: the server's stdin was closed
// after it), the server has the kill grace to exit; then it is ended as on
// a forwarded SIGTERM. This is the shutdown MCP's stdio transport asks of
// a client: close the server's input, wait, SIGTERM, SIGKILL.
func (s *Shim) supervise(tree *serverTree, exited, inputEnded <-chan struct{}, gone <-chan string, log *capture.LogWriter, serverIn *os.File, say *capture.Notices) {
	grace := s.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	var (
		timer   *time.Timer
		expired <-chan time.Time
		first   os.Signal
		eof     *time.Timer // the grace after the end of input
		eofDue  <-chan time.Time
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if eof != nil {
			eof.Stop()
		}
	}()
	term := func(sig os.Signal) {
		_ = tree.signal(sig)
		if timer == nil {
			first = sig
			timer = time.NewTimer(grace)
			expired = timer.C
		}
	}
	for {
		select {
		case <-exited:
			return
		case sig := <-s.Signals:
			term(sig)
		case why := <-gone:
			gone = nil           // once is enough
			_ = serverIn.Close() // nothing more is forwarded to it
			term(syscall.SIGTERM)
			msg := "mcpsnoop: the client is gone (" + why + "); ending the server"
			if log != nil {
				log.Add(capture.Stderr, nil, nil, []byte(msg), false)
			}
			say.Say(msg + "\n")
		case <-inputEnded:
			inputEnded = nil
			if timer == nil {
				eof = time.NewTimer(grace)
				eofDue = eof.C
			}
		case <-eofDue:
			eofDue = nil
			if timer != nil {
				continue // already being ended
			}
			term(syscall.SIGTERM)
			msg := fmt.Sprintf("mcpsnoop: the server did not exit within %s of the end of its input; ending it", grace)
			if log != nil {
				log.Add(capture.Stderr, nil, nil, []byte(msg), false)
			}
			say.Say(msg + "\n")
		case <-expired:
			expired = nil
			_ = tree.kill()
			say.Say(fmt.Sprintf("mcpsnoop: the server did not exit within %s of %s; killing it\n", grace, SignalName(first)))
		}
	}
}

// plainError is err without the operation and path an *os.PathError
// wraps it in ("broken pipe", not "write |1: broken pipe").
func plainError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
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
