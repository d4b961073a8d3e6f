package demo

import (
	"context"
	"errors"
	"time"
)

// Call is one tool call of the demo's script and what came of it: a
// result (which may say isError) or a JSON-RPC error.
type Call struct {
	Tool   string
	Args   map[string]any
	Result *CallResult
	Err    *RPCError
}

// Script is the demo client's tool calls, in order: two quick ones that
// work, one the tool fails (isError), one of a tool that does not exist (a
// JSON-RPC error), the slow one, and the first again.
func Script() []Call {
	return []Call{
		{Tool: "forecast", Args: map[string]any{"city": "Lisbon"}},
		{Tool: "convert", Args: map[string]any{"celsius": 21}},
		{Tool: "alerts", Args: map[string]any{"region": "XX"}},
		{Tool: "radar", Args: map[string]any{"city": "Lisbon"}},
		{Tool: "history", Args: map[string]any{"city": "Lisbon"}},
		{Tool: "forecast", Args: map[string]any{"city": "Reykjavík"}},
	}
}

// Play runs the demo client against the MCP server at endpoint (a
// Streamable HTTP URL): server/discover, initialize and
// notifications/initialized, tools/list, the Script's calls with wait
// before each, and DELETE to end the session. It returns the tools listed
// and the calls made. A failing call is what the script is for; a
// transport failure ends it with an error.
func Play(ctx context.Context, endpoint string, wait func(context.Context) error) (tools []string, calls []Call, err error) {
	c := newClient(endpoint)
	if err := c.connect(ctx); err != nil {
		return nil, nil, err
	}
	defer func() {
		// The session ends even when ctx has: a bounded DELETE.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = c.close(ctx)
	}()
	if tools, err = c.listTools(ctx); err != nil {
		return nil, nil, err
	}
	for _, call := range Script() {
		if err := wait(ctx); err != nil {
			return tools, calls, err
		}
		res, err := c.callTool(ctx, call.Tool, call.Args)
		var rerr *RPCError
		switch {
		case errors.As(err, &rerr):
			call.Err = rerr
		case err != nil:
			return tools, calls, err
		}
		call.Result = res
		calls = append(calls, call)
	}
	return tools, calls, nil
}
