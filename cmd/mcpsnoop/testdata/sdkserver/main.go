// Command sdkserver is the MCP server the shim's integration tests run as a
// real process behind the real mcpsnoop binary. It is built by the tests.
//
//	sdkserver [-tee-in FILE] [-tee-out FILE] [-pid-file FILE] [-linger] [-mode sdk|cat|ignore-term|hold|spew]
//
// sdk (the default) serves tools with the go-sdk over stdio: echo, big (a
// large result), ask (a server-to-client elicitation request, for
// 2025-11-25), book (a 2026-07-28 multi-round-trip elicitation), crash
// (exits 3 mid-call) and flood (progress notifications, forever). cat
// copies stdin to stdout byte for byte. ignore-term is sdk with SIGTERM
// ignored. hold neither reads nor writes and ignores the end of its stdin:
// it runs until it is killed. spew writes a JSON-RPC notification line
// forever and reads nothing; -linger makes sdk do the same once its stdin
// ends. The tee files get every byte read from stdin
// and written to stdout, so a test can compare them with what the client
// sent and received; the pid file gets the server's pid.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArgs struct {
	Text string `json:"text"`
}

type sizeArgs struct {
	Size int `json:"size"`
}

func main() {
	teeIn := flag.String("tee-in", "", "copy every byte read from stdin here")
	teeOut := flag.String("tee-out", "", "copy every byte written to stdout here")
	mode := flag.String("mode", "sdk", "sdk, cat, ignore-term, hold or spew")
	pidFile := flag.String("pid-file", "", "write the server's pid here")
	linger := flag.Bool("linger", false, "sdk: once stdin ends, keep writing notifications forever (a server that never notices its client left)")
	flag.Parse()
	if *pidFile != "" {
		if err := os.WriteFile(*pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			fail(err)
		}
	}

	var in io.ReadCloser = os.Stdin
	var out io.WriteCloser = os.Stdout
	if *teeIn != "" {
		f, err := os.Create(*teeIn)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		in = readCloser{io.TeeReader(os.Stdin, f), os.Stdin}
	}
	if *teeOut != "" {
		f, err := os.Create(*teeOut)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		out = writeCloser{io.MultiWriter(os.Stdout, f), os.Stdout}
	}
	fmt.Fprintln(os.Stderr, "sdkserver: starting in mode", *mode)
	switch *mode {
	case "cat":
		if _, err := io.Copy(out, in); err != nil {
			fail(err)
		}
		return
	case "hold":
		select {}
	case "spew":
		spew(out)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	case "sdk":
	default:
		fail(fmt.Errorf("unknown mode %q", *mode))
	}
	if *linger {
		out = writeCloser{out, io.NopCloser(nil)} // the SDK closes its writer when the session ends
	}
	if err := newServer().Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}); err != nil {
		fmt.Fprintln(os.Stderr, "sdkserver:", err)
	}
	if *linger {
		spew(out)
	}
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sdkserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(ctx context.Context, req *mcp.CallToolRequest, args textArgs) (*mcp.CallToolResult, any, error) {
			return text(args.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Answer with size bytes of text"},
		func(ctx context.Context, req *mcp.CallToolRequest, args sizeArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("0123456789abcdef", args.Size/16+1)[:args.Size]), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the user with a server-to-client request"},
		func(ctx context.Context, req *mcp.CallToolRequest, args textArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: args.Text, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
			if err != nil {
				return nil, nil, err
			}
			return text("user said " + res.Action), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "book", Description: "Book, asking twice (multi round trip)"},
		func(ctx context.Context, req *mcp.CallToolRequest, args textArgs) (*mcp.CallToolResult, any, error) {
			switch req.Params.RequestState {
			case "":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Confirm?"}}, RequestState: "st-1"}, nil, nil
			case "st-1":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"seat": &mcp.ElicitParams{Message: "Window or aisle?"}}, RequestState: "st-2"}, nil, nil
			}
			return text("booked " + args.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "flood", Description: "Report progress forever"},
		func(ctx context.Context, req *mcp.CallToolRequest, args textArgs) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			for i := 0; ; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Message: args.Text})
				if err != nil {
					return nil, nil, err
				}
				time.Sleep(time.Millisecond)
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit with status 3"},
		func(ctx context.Context, req *mcp.CallToolRequest, args textArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "sdkserver: crashing")
			os.Exit(3)
			return nil, nil, nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// spew writes a notification line forever, until a write fails.
func spew(out io.Writer) {
	line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"spew"}}` + "\n")
	for {
		if _, err := out.Write(line); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sdkserver:", err)
	os.Exit(1)
}

type readCloser struct {
	io.Reader
	io.Closer
}

type writeCloser struct {
	io.Writer
	io.Closer
}
