package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/hostcheck"
	"github.com/mcpsnoop/mcpsnoop/serve"
)

// The server's identity and its word to the model.
var serverInfo = implementation{Name: "demo-weather", Version: "1.0.0"}

const instructions = "A made-up weather service for the mcpsnoop demo."

// NewServer returns the weather server as an HTTP handler of MCP's
// Streamable HTTP transport at serve.DefaultPath (/mcp), to be served on
// a loopback address: the project's serve.Handler owns the transport
// (sessions, Accept, the DNS-rebinding guard) and each session is a peer
// of its own. slow is how long the history tool takes. Close ends the
// sessions.
func NewServer(slow time.Duration) *serve.Handler {
	guard, _ := hostcheck.New("127.0.0.1:0", nil) // a literal loopback address: no error
	return serve.NewHandler(serve.Options{Name: "demo-weather", Backend: &backend{tools: weatherTools(slow)}, Guard: guard})
}

// backend starts the server's peers.
type backend struct {
	tools []tool
	n     atomic.Int64
}

func (b *backend) Start(sp serve.StartParams) (serve.Peer, error) {
	ctx, cancel := context.WithCancel(context.Background())
	return &peer{
		name: fmt.Sprintf("demo-weather %d", b.n.Add(1)), tools: b.tools, modern: sp.Modern,
		deliver: sp.Deliver, ended: sp.Ended, ctx: ctx, cancel: cancel,
		calls: map[string]context.CancelFunc{},
	}, nil
}

// stage is how far a session's handshake has come.
type stage int

const (
	fresh        stage = iota // nothing yet: initialize comes first
	initializing              // initialize answered, notifications/initialized not yet
	ready                     // initialized: tools may be listed and called
)

// peer is one conversation with the server: an HTTP session, or (modern)
// the shared peer of requests that declare 2026-07-28, which only
// server/discover is for, as the server speaks the session era alone.
type peer struct {
	name    string
	tools   []tool
	modern  bool
	deliver func([]byte)
	ended   func(string)
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup // requests being answered

	outMu sync.Mutex // deliver is called one message at a time

	mu    sync.Mutex
	stage stage
	calls map[string]context.CancelFunc // requests in flight, by id
	done  bool                          // Close was called
}

func (p *peer) Name() string                       { return p.name }
func (p *peer) Note(string)                        {}
func (p *peer) SendOwn(msg []byte, _ string) error { return p.Send(msg) }

// Close ends the conversation: calls in flight are cancelled, and Ended is
// told once they have returned.
func (p *peer) Close() {
	p.mu.Lock()
	done := p.done
	p.done = true
	p.mu.Unlock()
	if done {
		return
	}
	p.cancel()
	go func() {
		p.running.Wait()
		p.ended("the demo server ended the session")
	}()
}

// Send takes one client message. Requests are answered on goroutines of
// their own, so that the slow tool holds up nothing else.
func (p *peer) Send(msg []byte) error {
	var m incoming
	if err := json.Unmarshal(msg, &m); err != nil {
		return fmt.Errorf("%s: not a JSON-RPC message: %w", p.name, err)
	}
	switch {
	case m.Method == "":
		// A response: the server asks its clients nothing.
	case m.ID == nil:
		p.notified(m)
	default:
		ctx, err := p.track(m.ID)
		if err != nil {
			return err
		}
		go func() {
			defer p.running.Done()
			defer p.untrack(m.ID)
			p.answer(ctx, m)
		}()
	}
	return nil
}

// notified takes a notification: initialized ends the handshake,
// cancelled stops a call in flight, the rest are of no concern here.
func (p *peer) notified(m incoming) {
	switch m.Method {
	case "notifications/initialized":
		p.mu.Lock()
		if p.stage == initializing {
			p.stage = ready
		}
		p.mu.Unlock()
	case "notifications/cancelled":
		var c struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &c) == nil {
			p.mu.Lock()
			if stop := p.calls[string(c.RequestID)]; stop != nil {
				stop()
			}
			p.mu.Unlock()
		}
	}
}

// track counts a request in flight, unless the conversation has ended;
// its context ends with the conversation or the client's cancellation.
func (p *peer) track(id json.RawMessage) (context.Context, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil, fmt.Errorf("%s: the session has ended", p.name)
	}
	p.running.Add(1)
	ctx, cancel := context.WithCancel(p.ctx)
	p.calls[string(id)] = cancel
	return ctx, nil
}

func (p *peer) untrack(id json.RawMessage) {
	p.mu.Lock()
	if stop := p.calls[string(id)]; stop != nil {
		stop()
		delete(p.calls, string(id))
	}
	p.mu.Unlock()
}

// answer handles a request and delivers its response, unless it was
// cancelled (MCP sends no response to a cancelled request).
func (p *peer) answer(ctx context.Context, m incoming) {
	result, rerr := p.handle(ctx, m)
	if ctx.Err() != nil {
		return
	}
	out := message{JSONRPC: "2.0", ID: m.ID, Result: result, Error: rerr}
	if rerr != nil {
		out.Result = nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		b, _ = json.Marshal(message{JSONRPC: "2.0", ID: m.ID, Error: rpcError(codeInternalError, "%v", err)})
	}
	p.outMu.Lock()
	defer p.outMu.Unlock()
	p.deliver(b)
}

// handle is a request's result or error.
func (p *peer) handle(ctx context.Context, m incoming) (any, *RPCError) {
	if p.modern {
		return p.handleModern(m)
	}
	if m.Method == "initialize" {
		return p.initialize(m.Params)
	}
	if m.Method == "ping" {
		return struct{}{}, nil
	}
	p.mu.Lock()
	st := p.stage
	p.mu.Unlock()
	if st != ready {
		return nil, rpcError(codeInvalidRequest, "%s before the session is initialized (initialize, then notifications/initialized)", m.Method)
	}
	switch m.Method {
	case "tools/list":
		return p.listTools(), nil
	case "tools/call":
		return p.callTool(ctx, m.Params)
	}
	return nil, rpcError(codeMethodNotFound, "method %q not found", m.Method)
}

// initialize answers the handshake: the client's revision when the server
// speaks it, else the server's newest.
func (p *peer) initialize(params json.RawMessage) (any, *RPCError) {
	var in struct {
		ProtocolVersion string          `json:"protocolVersion"`
		ClientInfo      *implementation `json:"clientInfo"`
		Capabilities    map[string]any  `json:"capabilities"`
	}
	if err := json.Unmarshal(params, &in); err != nil || in.ProtocolVersion == "" || in.ClientInfo == nil || in.Capabilities == nil {
		return nil, rpcError(codeInvalidParams, "initialize needs protocolVersion, capabilities and clientInfo")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stage != fresh {
		return nil, rpcError(codeInvalidRequest, "the session is initialized already")
	}
	p.stage = initializing
	version := legacyVersions[0]
	if slices.Contains(legacyVersions, in.ProtocolVersion) {
		version = in.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      serverInfo,
		"instructions":    instructions,
	}, nil
}

// handleModern answers a request that declares 2026-07-28: discover says
// which revisions the server speaks (so the client initializes a session);
// anything else is refused as a revision the server does not speak.
func (p *peer) handleModern(m incoming) (any, *RPCError) {
	if m.Method == "server/discover" {
		return map[string]any{
			"resultType":        "complete",
			"supportedVersions": legacyVersions,
			"capabilities":      map[string]any{"tools": map[string]any{}},
			"instructions":      instructions,
			"ttlMs":             0,
			"cacheScope":        "public",
			"_meta":             map[string]any{metaServerInfo: serverInfo},
		}, nil
	}
	var in struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &in)
	e := rpcError(codeUnsupportedProtocolVersion, "this server speaks %v: initialize a session", legacyVersions)
	e.Data = map[string]any{"supported": legacyVersions, "requested": in.Meta[metaProtocolVersion]}
	return nil, e
}

func (p *peer) listTools() any {
	list := make([]map[string]any, len(p.tools))
	for i, t := range p.tools {
		list[i] = t.listed()
	}
	return map[string]any{"tools": list}
}

// callTool runs a tool; an unknown one is a protocol error (-32602).
func (p *peer) callTool(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var in struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &in); err != nil || in.Name == "" {
		return nil, rpcError(codeInvalidParams, "tools/call needs a tool name")
	}
	i := slices.IndexFunc(p.tools, func(t tool) bool { return t.name == in.Name })
	if i < 0 {
		return nil, rpcError(codeInvalidParams, "unknown tool %q", in.Name)
	}
	args := in.Arguments
	if args == nil {
		args = json.RawMessage("{}")
	}
	res, err := p.tools[i].call(ctx, args)
	if err != nil {
		return nil, rpcError(codeInvalidRequest, "%v", err) // cancelled: answer dropped
	}
	return res, nil
}
