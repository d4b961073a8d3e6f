// Package bridge serves a stdio MCP server over Streamable HTTP: it is the
// serve.Backend whose peers are server processes, each run by the stdio
// shim (capture/stdio) with its own session log, so that `mcpsnoop check`
// judges the server on the stdio wire it really spoke, and the shim's
// process lifetime (process group, signals, kill grace, the server never
// outliving the bridge) holds for every one of them.
//
// A message the bridge writes to a server itself (the cancellation of a
// request whose HTTP client went away, the answer to a server request that
// cannot be carried) is logged with "by_proxy": true, and a line about the
// transport (why a session ended, why a server request was answered) as a
// stderr frame. Requests the HTTP layer refused itself never reach a
// server; RefusalLog records them in a log of the bridge's own.
package bridge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/serve"
)

// Options configure a Bridge.
type Options struct {
	Command []string // the server's argv
	// KillGrace is how long a server may take to exit once its input has
	// ended before it gets SIGTERM, and after SIGTERM before it is killed
	// (stdio.DefaultKillGrace when zero).
	KillGrace time.Duration
	// OpenLog opens the log of one server process (modern: the shared one
	// of 2026-07-28 requests): where it goes and the writer's options. A
	// nil output is no log. The bridge sets the options' Framer.
	OpenLog func(modern bool) (io.WriteCloser, capture.LogOptions)
	// Notices takes the bridge's lines and the servers' stderr, each line
	// prefixed with the server it came from.
	Notices *capture.Notices
}

// Bridge starts server processes for a serve.Handler.
type Bridge struct {
	o       Options
	running sync.WaitGroup
	n       atomic.Int64
}

// New returns a bridge for o.Command.
func New(o Options) *Bridge {
	if o.KillGrace <= 0 {
		o.KillGrace = stdio.DefaultKillGrace
	}
	return &Bridge{o: o}
}

// Wait returns once every server process started has exited.
func (b *Bridge) Wait() { b.running.Wait() }

// maxMessage bounds one line of a server's output that the bridge holds
// to deliver; a longer line is logged (up to the log's own bound) but
// dropped.
const maxMessage = 64 << 20

// Start runs one server process through the stdio shim; it returns once
// the process has started (the shim opens its log then), or the error
// that kept it from starting.
func (b *Bridge) Start(sp serve.StartParams) (serve.Peer, error) {
	p := &process{b: b, n: b.n.Add(1), own: newFramer(), sigs: make(chan os.Signal, 2), exited: make(chan struct{})}
	p.name = fmt.Sprintf("server %d", p.n)
	pr, pw := io.Pipe()
	p.in = pw
	started := make(chan struct{})
	sh := &stdio.Shim{
		Command: b.o.Command,
		Stdin:   pr,
		Stdout:  &lineWriter{deliver: sp.Deliver},
		Stderr:  &stderrWriter{p: p},
		Notices: b.o.Notices,
		Signals: p.sigs,
		OpenLog: func() *capture.LogWriter {
			defer close(started)
			return p.openLog(sp.Modern)
		},
		KillGrace: b.o.KillGrace,
	}
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	b.running.Add(1)
	go func() {
		code, err := sh.Run()
		done <- result{code, err}
	}()
	finish := func(r result) {
		pw.Close() // the shim's reader of it, which nobody waits for, ends
		close(p.exited)
		why := fmt.Sprintf("exit status %d", r.code)
		if r.err != nil {
			why = r.err.Error()
		}
		sp.Ended(why)
		b.running.Done()
	}
	select {
	case <-started:
		go func() { finish(<-done) }()
		return p, nil
	case r := <-done:
		select {
		case <-started: // it started and has exited already
			go finish(r)
			return p, nil
		default:
		}
		b.running.Done()
		pr.Close()
		var se *stdio.StartError
		if errors.As(r.err, &se) {
			return nil, fmt.Errorf("cannot start the server: %w", se.Err)
		}
		if r.err != nil {
			return nil, r.err
		}
		return nil, fmt.Errorf("the server ended before it started (exit status %d)", r.code)
	}
}

// process is one server process: a serve.Peer.
type process struct {
	b      *Bridge
	n      int64
	name   string
	in     *io.PipeWriter // the shim's stdin: the server's input
	own    *framer
	log    atomic.Pointer[capture.LogWriter]
	sigs   chan os.Signal
	exited chan struct{}
	closed sync.Once
}

// openLog opens the process's log, called by the shim once the server has
// started.
func (p *process) openLog(modern bool) *capture.LogWriter {
	if p.b.o.OpenLog == nil {
		return nil
	}
	out, o := p.b.o.OpenLog(modern)
	if out == nil {
		return nil
	}
	o.Framer = p.own
	w := capture.NewLogWriter(out, o)
	p.name = fmt.Sprintf("server %d (session %s)", p.n, o.SessionID)
	p.log.Store(w)
	return w
}

func (p *process) Name() string { return p.name }

// Send writes msg and its newline in one write: lines of concurrent
// senders never mix.
func (p *process) Send(msg []byte) error {
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, msg...), '\n')
	_, err := p.in.Write(line)
	return err
}

func (p *process) SendOwn(msg []byte, why string) error {
	p.own.expect(msg)
	return p.Send(msg)
}

func (p *process) Note(text string) {
	if w := p.log.Load(); w != nil {
		w.Add(capture.Stderr, nil, nil, []byte(text), false)
	}
}

// Close ends the server as MCP's stdio transport asks a client to: its
// input ends; if it has not exited within the kill grace it gets SIGTERM,
// and the shim kills it a kill grace after that.
func (p *process) Close() {
	p.closed.Do(func() {
		p.in.Close()
		go func() {
			t := time.NewTimer(p.b.o.KillGrace)
			defer t.Stop()
			select {
			case <-p.exited:
			case <-t.C:
				p.sigs <- syscall.SIGTERM
			}
		}()
	})
}
