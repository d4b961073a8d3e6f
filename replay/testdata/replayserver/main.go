// Command replayserver is internal/testserver over stdio: the MCP server the
// replay and verify tests record and replay against, as a real process.
// Tests build it twice: as is (v1), and with -ldflags "-X main.variant=v2"
// for the changed build.
//
// Environment variables make it misbehave the way a real server can, for
// the tests of what a replay does then:
//
//   - REPLAYSERVER_EXIT_ON=TOOL: the process exits (status 3) when TOOL is
//     called, before answering: a crash mid-call.
//   - REPLAYSERVER_LATE_REQUEST=1: once its stdin is closed, it writes one
//     more request of its own (roots/list, 4 MiB long) to stdout before it
//     exits: a message the client reads after it stopped sending.
//   - REPLAYSERVER_DELAY=[TOOL=]DURATION: every tools/call (of TOOL only,
//     when named) takes that much longer before it is answered: a build
//     that got slower, and nothing else.
//   - REPLAYSERVER_PIPELINE=N: no tools/call is answered before N of them
//     have arrived, so a client that sends N calls at once records them
//     pipelined (every request before any answer), whatever the machine.
//   - REPLAYSERVER_CHANGE_AT=N: the N-th character (from 1) of every text
//     content a tool answers becomes '#': a long result changed deep
//     inside.
//   - REPLAYSERVER_ANNOTATE=TOOL=JSON: tools/list gives TOOL the
//     annotations JSON (ToolAnnotations) in place of its own: a build that
//     now calls a tool destructive, say.
//   - REPLAYSERVER_LIST_FAILS=1: tools/list is answered with an error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// variant is the build: v1, or v2 (set by the linker).
var variant = testserver.V1

func main() {
	fmt.Fprintln(os.Stderr, "replayserver: starting", variant)
	s := testserver.New(variant)
	if tool := os.Getenv("REPLAYSERVER_EXIT_ON"); tool != "" {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if call, ok := req.(*mcp.CallToolRequest); ok && call.Params.Name == tool {
					fmt.Fprintln(os.Stderr, "replayserver: exiting on", tool)
					os.Exit(3)
				}
				return next(ctx, method, req)
			}
		})
	}
	if v := os.Getenv("REPLAYSERVER_DELAY"); v != "" {
		tool, v, named := strings.Cut(v, "=")
		if !named {
			tool, v = "", tool
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "replayserver: REPLAYSERVER_DELAY:", err)
			os.Exit(2)
		}
		s.AddReceivingMiddleware(onToolCalls(func(ctx context.Context, name string) error {
			if tool != "" && name != tool {
				return nil
			}
			select {
			case <-time.After(d):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}))
	}
	if v := os.Getenv("REPLAYSERVER_PIPELINE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "replayserver: REPLAYSERVER_PIPELINE: want a count, got", v)
			os.Exit(2)
		}
		s.AddReceivingMiddleware(onToolCalls(barrier(n)))
	}
	if v := os.Getenv("REPLAYSERVER_CHANGE_AT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "replayserver: REPLAYSERVER_CHANGE_AT: want a position, got", v)
			os.Exit(2)
		}
		s.AddReceivingMiddleware(changeAt(n))
	}
	if v := os.Getenv("REPLAYSERVER_ANNOTATE"); v != "" {
		tool, raw, _ := strings.Cut(v, "=")
		var a mcp.ToolAnnotations
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			fmt.Fprintln(os.Stderr, "replayserver: REPLAYSERVER_ANNOTATE: want TOOL=JSON:", err)
			os.Exit(2)
		}
		s.AddReceivingMiddleware(annotate(tool, &a))
	}
	if os.Getenv("REPLAYSERVER_LIST_FAILS") == "1" {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					return nil, errors.New("replayserver: listing is broken")
				}
				return next(ctx, method, req)
			}
		})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "replayserver:", err)
	}
	if os.Getenv("REPLAYSERVER_LATE_REQUEST") == "1" {
		// Large, so that the client is still reading and parsing it when
		// the process exits.
		pad := strings.Repeat("x", 4<<20)
		fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","id":"late-1","method":"roots/list","params":{"_meta":{"pad":%q}}}`+"\n", pad)
	}
}

// onToolCalls runs wait before each tools/call is handled, with the tool's
// name; an error ends the call (its context was cancelled).
func onToolCalls(wait func(ctx context.Context, tool string) error) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok {
				if err := wait(ctx, call.Params.Name); err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	}
}

// barrier holds the first n calls until the n-th has arrived; later calls
// pass at once.
func barrier(n int) func(context.Context, string) error {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return func(ctx context.Context, _ string) error {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// annotate gives tool the annotations a in every tools/list result, on a
// copy (the server's own definition stays as it is).
func annotate(tool string, a *mcp.ToolAnnotations) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				tools := make([]*mcp.Tool, len(r.Tools))
				for i, t := range r.Tools {
					if t.Name == tool {
						c := *t
						c.Annotations = a
						t = &c
					}
					tools[i] = t
				}
				r.Tools = tools
			}
			return res, err
		}
	}
}

// changeAt replaces the n-th character of each text content of a tool's
// result with '#'.
func changeAt(n int) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
				for _, c := range r.Content {
					if t, ok := c.(*mcp.TextContent); ok {
						if runes := []rune(t.Text); len(runes) >= n {
							runes[n-1] = '#'
							t.Text = string(runes)
						}
					}
				}
			}
			return res, err
		}
	}
}
