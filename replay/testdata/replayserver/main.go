// Command replayserver is internal/testserver over stdio: the MCP server the
// replay and verify tests record and replay against, as a real process.
// Tests build it twice: as is (v1), and with -ldflags "-X main.variant=v2"
// for the changed build.
//
// Two environment variables make it misbehave the way a real server can,
// for the tests of what a replay does then:
//
//   - REPLAYSERVER_EXIT_ON=TOOL: the process exits (status 3) when TOOL is
//     called, before answering: a crash mid-call.
//   - REPLAYSERVER_LATE_REQUEST=1: once its stdin is closed, it writes one
//     more request of its own (roots/list, 4 MiB long) to stdout before it
//     exits: a message the client reads after it stopped sending.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

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
