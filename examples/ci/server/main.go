// Command server is the example's MCP server: a small Go SDK server over
// stdio that the example agent talks to through mcpsnoop. -kind picks its
// tools, so one binary stands for two servers:
//
//	server -kind notes   add_note(text), list_notes()
//	server -kind math    add(a, b), divide(a, b) (an isError result on 0)
//
// In your project, your own servers take its place.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noteArgs struct {
	Text string `json:"text" jsonschema:"the note"`
}

type pair struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

func main() {
	kind := flag.String("kind", "notes", "the tools to serve: notes or math")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "example-" + *kind, Version: "1.0.0"}, nil)
	switch *kind {
	case "notes":
		addNotes(s)
	case "math":
		addMath(s)
	default:
		fmt.Fprintf(os.Stderr, "server: unknown -kind %q (notes or math)\n", *kind)
		os.Exit(2)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func addNotes(s *mcp.Server) {
	var mu sync.Mutex
	var notes []string
	mcp.AddTool(s, &mcp.Tool{Name: "add_note", Description: "Keep a note"},
		func(ctx context.Context, req *mcp.CallToolRequest, args noteArgs) (*mcp.CallToolResult, any, error) {
			if strings.TrimSpace(args.Text) == "" {
				return errorResult("a note needs some text"), nil, nil
			}
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, args.Text)
			return text(fmt.Sprintf("note %d kept", len(notes))), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "list_notes", Description: "List the notes kept so far"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			return text(strings.Join(notes, "\n")), nil, nil
		})
}

func addMath(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "a + b"},
		func(ctx context.Context, req *mcp.CallToolRequest, p pair) (*mcp.CallToolResult, any, error) {
			return text(strconv.FormatFloat(p.A+p.B, 'g', -1, 64)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "divide", Description: "a / b"},
		func(ctx context.Context, req *mcp.CallToolRequest, p pair) (*mcp.CallToolResult, any, error) {
			if p.B == 0 {
				return errorResult("division by zero"), nil, nil
			}
			return text(strconv.FormatFloat(p.A/p.B, 'g', -1, 64)), nil, nil
		})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func errorResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
