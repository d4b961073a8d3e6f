package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// How long a stdio server gets to exit once its stdin is closed, and then
// once the shim has passed it a SIGTERM, before it is killed.
var (
	stdioExitWait = 5 * time.Second
	stdioTermWait = 5 * time.Second
)

// stdioConn talks to a server run by the mcpsnoop shim, which logs the
// replay exactly as it logs a client's session: the replay is the client
// on the shim's stdin and stdout.
type stdioConn struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	tail  *tailBuffer

	wmu sync.Mutex // one message at a time on stdin

	mu      sync.Mutex
	waiting map[string]chan json.RawMessage

	gone   chan struct{} // closed when the server's stdout ends
	answer func(id json.RawMessage, method string) []byte
}

// openStdio starts the shim in front of cmd, appending its log to t.Log.
func openStdio(rec *Recording, t Target, cmd []string, dir string, answer func(json.RawMessage, string) []byte) (*stdioConn, error) {
	if t.Shim == "" {
		return nil, errors.New("no mcpsnoop executable to run the server through")
	}
	args := append([]string{"--trace-file", t.Log, "--no-trace=false"}, t.ShimArgs...)
	if rec.Label != "" && capture.ValidateLabel(rec.Label) == nil {
		args = append(args, "--label", rec.Label)
	}
	args = append(append(args, "--"), cmd...)
	c := exec.Command(t.Shim, args...)
	c.Dir = dir
	tail := &tailBuffer{max: 8 << 10}
	var errOut io.Writer = tail
	if t.Stderr != nil {
		errOut = io.MultiWriter(tail, t.Stderr)
	}
	c.Stderr = errOut
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", t.Shim, err)
	}
	s := &stdioConn{cmd: c, stdin: stdin, tail: tail, waiting: map[string]chan json.RawMessage{},
		gone: make(chan struct{}), answer: answer}
	go s.read(stdout)
	return s, nil
}

// read takes the server's messages off stdout: answers go to the call
// waiting for them, the server's requests are answered at once, the rest
// (notifications, stray lines) only reach the log.
func (s *stdioConn) read(stdout io.Reader) {
	defer close(s.gone)
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			s.dispatch(line)
		}
		if err != nil {
			return
		}
	}
}

func (s *stdioConn) dispatch(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || !m.hasID() {
		return
	}
	if m.Method != "" {
		_ = s.write(s.answer(m.ID, m.Method))
		return
	}
	s.mu.Lock()
	ch := s.waiting[string(m.ID)]
	delete(s.waiting, string(m.ID))
	s.mu.Unlock()
	if ch != nil {
		ch <- json.RawMessage(bytes.TrimSpace(line))
	}
}

func (s *stdioConn) write(msg []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.stdin.Write(append(msg, '\n'))
	return err
}

func (s *stdioConn) call(ctx context.Context, x *exchange) (*reply, error) {
	ch := make(chan json.RawMessage, 1)
	s.mu.Lock()
	s.waiting[string(x.id)] = ch
	s.mu.Unlock()
	if err := s.write(x.body); err != nil {
		return nil, &stopError{reason: s.goneReason()}
	}
	select {
	case msg := <-ch:
		return &reply{msg: msg}, nil
	case <-s.gone:
		return nil, &stopError{reason: s.goneReason()}
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.waiting, string(x.id))
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (s *stdioConn) notify(ctx context.Context, x *exchange) error {
	if err := s.write(x.body); err != nil {
		return &stopError{reason: s.goneReason()}
	}
	return nil
}

// cancel tells the server a call that timed out is abandoned.
func (s *stdioConn) cancel(id json.RawMessage) {
	_ = s.write(request(nil, "notifications/cancelled", encode(map[string]any{
		"requestId": id, "reason": "mcpsnoop replay: the call timed out",
	})))
}

func (s *stdioConn) setProtocol(string) {}

// goneReason says that the server is gone, with the end of its stderr.
func (s *stdioConn) goneReason() string {
	msg := "the server closed its stdout (it exited or crashed)"
	if t := strings.TrimSpace(s.tail.String()); t != "" {
		lines := strings.Split(t, "\n")
		msg += "; its stderr ended with: " + lines[len(lines)-1]
	}
	return msg
}

// close ends the session as a client does: stdin closed, then a SIGTERM
// through the shim (which passes it on), then a kill.
func (s *stdioConn) close() error {
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return exitNote(err)
	case <-time.After(stdioExitWait):
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		return exitNote(err)
	case <-time.After(stdioTermWait):
	}
	_ = s.cmd.Process.Kill()
	<-done
	return errors.New("the server did not exit after its stdin closed and a SIGTERM; it was killed")
}

// exitNote reports a server that exited with a failure status.
func exitNote(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("the server exited with status %d", ee.ExitCode())
	}
	return err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
