// The stdio MCP server of the bridge's tests. By default it is a Go SDK
// server with tools that exercise what the bridge routes: echo, progress
// (a progress notification on the request's stream), ask (an elicitation,
// a server request), wait (until its request is cancelled), crash (the
// process exits in the middle of the call). With -raw it is a server that
// breaks 2026-07-28 on purpose: on tools/call it sends the client an
// elicitation/create request, which that revision forbids on HTTP, and
// answers with the error code the request got back. With -script it is
// the scripted peer of the routing tests (script.go).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArgs struct {
	Text string `json:"text"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	raw := flag.Bool("raw", false, "send a server request on tools/call (a 2026-07-28 violation)")
	script := flag.Bool("script", false, "hold tools/call requests and send a message tied to none of them (script.go)")
	flag.Parse()
	if *raw {
		runRaw()
		return
	}
	if *script {
		runScript()
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "bridgetest", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			return text(a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Report progress, then answer"},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half"})
			}
			return text("done " + a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the user for a name"},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			})
			if err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprintf("%s %v", res.Action, res.Content["name"])), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Wait until cancelled"},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "wait: started "+a.Text)
			<-ctx.Done()
			fmt.Fprintln(os.Stderr, "wait: cancelled "+a.Text)
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit in the middle of the call"},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crash: exiting")
			os.Exit(3)
			return nil, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// runRaw answers line by line, by hand.
func runRaw() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil || m.Method == "" {
			continue // a notification or a response: nothing to answer
		}
		if m.Method != "tools/call" {
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			continue
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create",
			"params": map[string]any{"message": "Your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}})
		var answer struct {
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		for in.Scan() {
			var r struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(in.Bytes(), &r) == nil && string(r.ID) == `"ask-1"` {
				_ = json.Unmarshal(in.Bytes(), &answer)
				break
			}
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"resultType": "complete",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("answered %d", answer.Error.Code)}}}})
	}
}
