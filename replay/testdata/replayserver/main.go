// Command replayserver is internal/testserver over stdio: the MCP server the
// replay and verify tests record and replay against, as a real process.
// Tests build it twice: as is (v1), and with -ldflags "-X main.variant=v2"
// for the changed build.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpsnoop/mcpsnoop/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// variant is the build: v1, or v2 (set by the linker).
var variant = testserver.V1

func main() {
	fmt.Fprintln(os.Stderr, "replayserver: starting", variant)
	if err := testserver.New(variant).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "replayserver:", err)
	}
}
