package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/serve"
	"github.com/tidwall/gjson"
)

// DefaultAnswerTimeout is how long the mock waits for the client's answer
// to a request of the recorded server's.
const DefaultAnswerTimeout = 5 * time.Second

// Options shape how a recording is answered.
type Options struct {
	Mode Mode
	// AnswerTimeout bounds the wait for the client's answer to each server
	// request (DefaultAnswerTimeout when zero).
	AnswerTimeout time.Duration
	// Notices takes the mock's lines for the user (a request that went
	// unmatched, a server request left unanswered); nil drops them.
	Notices *capture.Notices
}

// Engine answers any number of conversations from one recording and
// counts what went unmatched across them.
type Engine struct {
	rec *Recording
	o   Options

	mu         sync.Mutex
	unmatched  []string
	answered   int
	unanswered int // server requests the client never answered
}

// New returns an engine for rec.
func New(rec *Recording, o Options) *Engine {
	if o.AnswerTimeout <= 0 {
		o.AnswerTimeout = DefaultAnswerTimeout
	}
	return &Engine{rec: rec, o: o}
}

// Unmatched describes every request that had no recorded match, in the
// order they came.
func (e *Engine) Unmatched() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.unmatched...)
}

// Answered is how many requests were answered from the recording.
func (e *Engine) Answered() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.answered
}

// Unanswered is how many of the recorded server's requests the client left
// unanswered: past the answer timeout, or when it went away.
func (e *Engine) Unanswered() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.unanswered
}

func (e *Engine) say(msg string) {
	e.o.Notices.Say(termsafe.Clean("mcpsnoop mock: "+msg, false) + "\n")
}

// Conversation is one client's conversation with the recorded server.
type Conversation struct {
	e     *Engine
	m     *matcher
	log   *capture.LogWriter // nil: not recorded
	write func(msg []byte) error
	name  string

	mu      sync.Mutex // one message out at a time, logged as it goes
	pending map[string]chan struct{}
	live    map[string]*liveRequest
	nextID  int64
	turn    chan struct{} // released once the latest request's answer is out (or it waits on the client)
	done    chan struct{}
	closing sync.Once
	running sync.WaitGroup
}

// liveRequest is a client request being answered.
type liveRequest struct {
	id        []byte
	token     gjson.Result // params._meta.progressToken, when it has one
	cancelled bool
	// Requests are answered in the order they came: each waits for the
	// one before it to have sent its answer, or to wait for the client's
	// answer to a server request (which may need this one answered first).
	prev     chan struct{}
	mine     chan struct{}
	released sync.Once
}

func (lr *liveRequest) release() { lr.released.Do(func() { close(lr.mine) }) }

// NewConversation starts a conversation whose messages to the client go
// through write (one message, compact JSON, no newline; calls never
// overlap), recorded in log when it is not nil. name names it in notices.
func (e *Engine) NewConversation(name string, write func(msg []byte) error, log *capture.LogWriter) *Conversation {
	return &Conversation{
		e: e, m: newMatcher(e.rec, e.o.Mode), log: log, write: write, name: name,
		pending: map[string]chan struct{}{}, live: map[string]*liveRequest{}, done: make(chan struct{}),
	}
}

// Receive takes one message of the client's (own: a message the transport
// made for the client, recorded with by_proxy). A request is answered on a
// goroutine of its own; Receive never waits for it.
func (c *Conversation) Receive(msg []byte, own bool) {
	c.record(capture.ClientToServer, msg, own)
	if !gjson.ValidBytes(msg) || firstByte(msg) != '{' {
		c.send(errorResponse(nil, codeParseError, "mcpsnoop mock: the message is not a JSON-RPC object"))
		return
	}
	id := gjson.GetBytes(msg, "id")
	method := gjson.GetBytes(msg, "method")
	switch {
	case method.Type == gjson.String && id.Exists():
		c.request([]byte(id.Raw), method.Str, gjson.GetBytes(msg, "params"))
	case method.Type == gjson.String:
		if method.Str == "notifications/cancelled" {
			c.cancel(gjson.GetBytes(msg, "params.requestId").Raw)
		}
	case id.Exists():
		c.mu.Lock()
		ch := c.pending[id.Raw]
		delete(c.pending, id.Raw)
		c.mu.Unlock()
		if ch != nil {
			close(ch)
		}
	}
}

// request matches a request (here, so that Sequential follows the order
// requests came in) and answers it on a goroutine of its own.
func (c *Conversation) request(id []byte, method string, params gjson.Result) {
	var raw json.RawMessage
	if params.Exists() {
		raw = json.RawMessage(params.Raw)
	}
	x, miss := c.m.match(method, raw)
	lr := &liveRequest{id: bytes.Clone(id), token: params.Get("_meta.progressToken"), mine: make(chan struct{})}
	c.mu.Lock()
	lr.prev, c.turn = c.turn, lr.mine
	if miss == nil {
		c.live[string(id)] = lr
	}
	c.mu.Unlock()
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		defer lr.release()
		if lr.prev != nil {
			<-lr.prev
		}
		if miss != nil {
			c.unmatched(id, method, params, miss)
			return
		}
		c.e.mu.Lock()
		c.e.answered++
		c.e.mu.Unlock()
		c.answer(x, lr)
		c.mu.Lock()
		if c.live[string(id)] == lr {
			delete(c.live, string(id))
		}
		c.mu.Unlock()
	}()
}

// unmatched answers a request with no recorded match and counts it.
func (c *Conversation) unmatched(id []byte, method string, params gjson.Result, miss *Miss) {
	what := method
	if n := operationName(method, params); n != "" {
		what += " " + strconv.Quote(n)
	}
	what += " (id " + string(id) + ")"
	c.e.mu.Lock()
	c.e.unmatched = append(c.e.unmatched, what+": "+miss.Message)
	c.e.mu.Unlock()
	c.e.say(c.name + ": unmatched " + what + ": " + miss.Message)
	c.send(errorResponse(id, miss.Code, "mcpsnoop mock: "+miss.Message))
}

// answer plays one recorded exchange to the client: the server's messages
// before its answer, the answer with the live id, the messages after.
func (c *Conversation) answer(x *Exchange, lr *liveRequest) {
	for _, out := range x.Before {
		c.emit(out, lr, x)
	}
	c.mu.Lock()
	cancelled := lr.cancelled
	c.mu.Unlock()
	if cancelled {
		return // the client cancelled it: no answer, as the protocol asks
	}
	if x.Answer == nil {
		c.send(errorResponse(lr.id, -32603, "mcpsnoop mock: the recorded server never answered "+x.Describe()))
	} else if msg, err := withID(x.Answer, lr.id); err == nil {
		c.send(msg)
	} else {
		c.send(errorResponse(lr.id, -32603, "mcpsnoop mock: cannot re-address the recorded answer of "+x.Describe()+": "+err.Error()))
	}
	lr.release()
	for _, out := range x.After {
		c.emit(out, lr, x)
	}
}

// emit sends one of the server's own messages. A progress notification
// carries the live request's token (and is left out when it asked for no
// progress); a server request goes with an id of the mock's and its answer
// is awaited at most the answer timeout.
func (c *Conversation) emit(out Outgoing, lr *liveRequest, x *Exchange) {
	msg := out.Raw
	method := gjson.GetBytes(msg, "method").Str
	if tok := gjson.GetBytes(msg, "params.progressToken"); method == "notifications/progress" && tok.Exists() {
		if !lr.token.Exists() {
			return
		}
		var err error
		if msg, err = replaceAt(msg, tok, []byte(lr.token.Raw)); err != nil {
			return
		}
	}
	if !out.Request {
		c.send(msg)
		return
	}
	select {
	case <-c.done:
		return // nobody is left to answer it
	default:
	}
	c.mu.Lock()
	c.nextID++
	id := strconv.Quote("mcpsnoop-mock-" + strconv.FormatInt(c.nextID, 10))
	ch := make(chan struct{})
	c.pending[id] = ch
	c.mu.Unlock()
	msg, err := replaceAt(msg, gjson.GetBytes(msg, "id"), []byte(id))
	if err != nil {
		return
	}
	if err := c.send(msg); err != nil {
		return
	}
	lr.release()
	t := time.NewTimer(c.e.o.AnswerTimeout)
	defer t.Stop()
	select {
	case <-ch:
	case <-c.done:
		c.e.mu.Lock()
		c.e.unanswered++
		c.e.mu.Unlock()
	case <-t.C:
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		c.e.mu.Lock()
		c.e.unanswered++
		c.e.mu.Unlock()
		why := fmt.Sprintf("the client did not answer %s %s (recorded for %s) within %s; going on", method, id, x.Describe(), c.e.o.AnswerTimeout)
		c.Note("mcpsnoop mock: " + why)
		c.e.say(c.name + ": " + why)
	}
}

// cancel marks a live request cancelled: it gets no answer.
func (c *Conversation) cancel(id string) {
	c.mu.Lock()
	if lr := c.live[id]; lr != nil {
		lr.cancelled = true
	}
	c.mu.Unlock()
}

// send writes one message to the client, recorded first, so that an
// answer to it is never recorded before it.
func (c *Conversation) send(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record(capture.ServerToClient, msg, false)
	return c.write(msg)
}

// Note records a line about the transport beside the conversation.
func (c *Conversation) Note(text string) {
	if c.log != nil {
		c.log.Add(capture.Stderr, nil, nil, []byte(text), false)
	}
}

func (c *Conversation) record(dir string, msg []byte, own bool) {
	if c.log != nil {
		c.log.Add(dir, nil, frameInfo{byProxy: own}, bytes.Clone(msg), false)
	}
}

// Close says the client is gone: server requests stop waiting for its
// answers. Requests being answered finish (Wait).
func (c *Conversation) Close() {
	c.closing.Do(func() { close(c.done) })
}

// Wait returns once every request received has been answered.
func (c *Conversation) Wait() { c.running.Wait() }

// withID is a recorded message with its id replaced, every other byte as
// recorded.
func withID(msg json.RawMessage, id []byte) ([]byte, error) {
	return replaceAt(msg, gjson.GetBytes(msg, "id"), id)
}

// replaceAt returns raw with the value r (read from raw) replaced by val.
func replaceAt(raw []byte, r gjson.Result, val []byte) ([]byte, error) {
	return serve.ReplaceValue(raw, r, val)
}

// errorResponse is a JSON-RPC error response to id (null when nil).
func errorResponse(id []byte, code int, text string) []byte {
	return serve.ErrorResponse(id, code, text)
}

// firstByte is the first byte of raw that is not JSON whitespace.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}
