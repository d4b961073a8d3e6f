// Command sdkclient is the MCP client the shim's process tests run as a
// real process, so that a test can kill it: a go-sdk client that starts
// its server (the shim) itself, the way agents do.
//
//	sdkclient COMMAND [ARGS...]
//
// It starts COMMAND with an empty environment, connects, prints "server
// PID" (the pid of the process it started), calls the server's flood tool
// (which reports progress forever), prints "progress" at the first
// progress notification, and waits to be killed.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sdkclient COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = []string{}
	cmd.Stderr = os.Stderr
	var once sync.Once
	client := mcp.NewClient(&mcp.Implementation{Name: "sdkclient", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			once.Do(func() { fmt.Println("progress") })
		},
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdkclient:", err)
		os.Exit(1)
	}
	fmt.Printf("server %d\n", cmd.Process.Pid)
	params := &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"text": "tick"}}
	params.SetProgressToken("flood-1")
	_, err = cs.CallTool(ctx, params)
	fmt.Fprintln(os.Stderr, "sdkclient: the call ended:", err)
	select {}
}
