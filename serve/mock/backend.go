package mock

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/serve"
)

// Backend is the serve.Backend that answers from a recording: each peer it
// starts (an HTTP session, or the shared peer of 2026-07-28 requests) is a
// conversation of its own, with its own place in the recording and its own
// session log.
type Backend struct {
	e *Engine
	// openLog opens the log of one peer (modern: the shared one); nil
	// for none.
	openLog func(modern bool) *capture.LogWriter
	n       atomic.Int64
	running sync.WaitGroup
}

// NewBackend returns a backend answering from e; openLog (may be nil)
// opens each peer's log, which the backend closes when the peer ends.
func NewBackend(e *Engine, openLog func(modern bool) *capture.LogWriter) *Backend {
	return &Backend{e: e, openLog: openLog}
}

// Wait returns once every peer started has ended and its log is closed.
func (b *Backend) Wait() { b.running.Wait() }

// Start starts one conversation.
func (b *Backend) Start(sp serve.StartParams) (serve.Peer, error) {
	p := &peer{n: b.n.Add(1), ended: sp.Ended}
	p.name = fmt.Sprintf("mock %d", p.n)
	if b.openLog != nil {
		p.log = b.openLog(sp.Modern)
		if p.log != nil {
			p.name = fmt.Sprintf("mock %d (session %s)", p.n, p.log.SessionID())
		}
	}
	p.conv = b.e.NewConversation(p.name, func(msg []byte) error { sp.Deliver(msg); return nil }, p.log)
	p.b = b
	b.running.Add(1)
	return p, nil
}

// peer is one conversation: a serve.Peer.
type peer struct {
	b      *Backend
	n      int64
	name   string
	conv   *Conversation
	log    *capture.LogWriter
	ended  func(why string)
	closed sync.Once
}

func (p *peer) Name() string { return p.name }

func (p *peer) Send(msg []byte) error { p.conv.Receive(msg, false); return nil }

func (p *peer) SendOwn(msg []byte, why string) error {
	p.conv.Receive(msg, true)
	return nil
}

func (p *peer) Note(text string) { p.conv.Note(text) }

// Close ends the conversation: what is being answered finishes, the log
// closes, and then the handler is told.
func (p *peer) Close() {
	p.closed.Do(func() {
		p.conv.Close()
		go func() {
			p.conv.Wait()
			if p.log != nil {
				if lost := p.log.Close(); lost > 0 {
					p.b.e.say(fmt.Sprintf("%s: %d frame(s) were dropped from the log %s; it is incomplete", p.name, lost, p.log.Path()))
				}
			}
			p.ended("the mock session ended")
			p.b.running.Done()
		}()
	})
}
