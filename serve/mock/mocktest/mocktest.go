// Package mocktest is the client session that made the recording
// serve/mock/testdata/everything.jsonl (server-everything 2026.8.31, through
// the stdio shim) and that the mock's tests play again against `mcpsnoop
// mock` of it: the same requests with the same params, so that each one
// matches its recorded one. Raw keeps what a Go SDK client really read.
package mocktest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options are the client's: it can be sampled and elicited (declining), so
// that server-everything offers its tools that ask the client. It offers
// no roots: server-everything asks for them at a time of its own, which
// would put its roots/list wherever it happened to fall in the recording.
//
// Sampling is deprecated as of 2026-07-28, but the recorded server still
// uses it in the revisions it speaks, and the mock must answer what it
// recorded.
func Options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		//lint:ignore SA1019 the recorded server samples the client (see above)
		CreateMessageHandler: sample,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
}

// sample answers the server's sampling request.
//
//lint:ignore SA1019 the recorded server samples the client (see Options)
func sample(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	//lint:ignore SA1019 the recorded server samples the client (see Options)
	return &mcp.CreateMessageResult{Model: "mcpsnoop-test", Role: "assistant", Content: &mcp.TextContent{Text: "hi from the client"}}, nil
}

// Run is the session; every step must succeed.
func Run(ctx context.Context, s *mcp.ClientSession) error {
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if len(tools.Tools) == 0 {
		return fmt.Errorf("tools/list: no tools")
	}
	calls := []*mcp.CallToolParams{
		{Name: "echo", Arguments: map[string]any{"message": "hello from mcpsnoop"}},
		{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}},
		{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.3, "steps": 3}, Meta: mcp.Meta{"progressToken": "tok-1"}},
		{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "Say hi", "maxTokens": 16}},
		{Name: "trigger-elicitation-request", Arguments: map[string]any{}},
		{Name: "get-structured-content", Arguments: map[string]any{"location": "New York"}},
	}
	for _, c := range calls {
		if _, err := s.CallTool(ctx, c); err != nil {
			return fmt.Errorf("tools/call %s: %w", c.Name, err)
		}
	}
	if _, err := s.ListPrompts(ctx, nil); err != nil {
		return fmt.Errorf("prompts/list: %w", err)
	}
	if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "simple-prompt"}); err != nil {
		return fmt.Errorf("prompts/get: %w", err)
	}
	res, err := s.ListResources(ctx, nil)
	if err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}
	if len(res.Resources) == 0 {
		return fmt.Errorf("resources/list: no resources")
	}
	if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: res.Resources[0].URI}); err != nil {
		return fmt.Errorf("resources/read: %w", err)
	}
	return nil
}

// Raw is a transport that keeps every request the client wrote and every
// response it read, as the JSON-RPC layer has them (a response's result is
// the bytes that arrived).
type Raw struct {
	mcp.Transport

	mu        sync.Mutex
	Requests  map[string]*jsonrpc.Request // by id
	Responses map[string]*jsonrpc.Response
	Order     []string // request ids in the order written
}

// Connect wraps the connection.
func (r *Raw) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.Requests, r.Responses = map[string]*jsonrpc.Request{}, map[string]*jsonrpc.Response{}
	r.mu.Unlock()
	return &rawConn{Connection: c, r: r}, nil
}

type rawConn struct {
	mcp.Connection
	r *Raw
}

func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if resp, ok := m.(*jsonrpc.Response); ok && err == nil {
		c.r.mu.Lock()
		c.r.Responses[idKey(resp.ID)] = resp
		c.r.mu.Unlock()
	}
	return m, err
}

func (c *rawConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.r.mu.Lock()
		c.r.Requests[idKey(req.ID)] = req
		c.r.Order = append(c.r.Order, idKey(req.ID))
		c.r.mu.Unlock()
	}
	return c.Connection.Write(ctx, m)
}

// Exchange is one request the client wrote and the response it read.
type Exchange struct {
	Method   string
	Params   json.RawMessage
	Response *jsonrpc.Response // nil when none came
}

// Exchanges are the client's requests in the order written.
func (r *Raw) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Exchange, 0, len(r.Order))
	for _, id := range r.Order {
		q := r.Requests[id]
		out = append(out, Exchange{Method: q.Method, Params: q.Params, Response: r.Responses[id]})
	}
	return out
}
