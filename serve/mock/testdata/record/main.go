// Command record made serve/mock/testdata/everything.jsonl: it runs the
// command after -- (the stdio shim in front of server-everything) and plays
// the session of package mocktest against it with the Go SDK's client:
//
//	go build -o /tmp/mcpsnoop ./cmd/mcpsnoop
//	npm install --prefix /tmp/se @modelcontextprotocol/server-everything@2026.8.31
//	go run ./serve/mock/testdata/record -- /tmp/mcpsnoop --trace-file serve/mock/testdata/everything.jsonl \
//	    --label everything -- node /tmp/se/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: record -- <server command>")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpsnoop-record", Version: "1"}, mocktest.Options())
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	err = mocktest.Run(ctx, s)
	s.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
