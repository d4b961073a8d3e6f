// Command winserver is the Windows program the wintest e2e tests run under
// wine: a small MCP server (the official Go SDK) over stdio, and the
// helpers around it that a test on Linux cannot be inside Windows for.
//
//	winserver serve [-stay] [-spawn] [-pids FILE]
//	    an MCP server with one tool, echo. -stay: keep running after stdin
//	    ends (as a server that ignores the end of its input does); -spawn:
//	    start a child (winserver hang) first, as npx.cmd starts node;
//	    -pids: write this process's id and the child's to FILE.
//	winserver hang                       run until killed
//	winserver args [ARG...]              print its command line as it got it,
//	                                     as JSON (a batch file's %* included)
//	winserver gone SECONDS PID...        wait until each process has exited;
//	                                     exit 1 naming those still running
//	winserver launch FILE CMD [ARG...]   start CMD with this process's stdio,
//	                                     write its id to FILE, run until killed
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/windows"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: winserver serve|hang|args|gone|launch")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "hang":
		forever()
	case "args":
		_ = json.NewEncoder(os.Stdout).Encode(windows.UTF16PtrToString(windows.GetCommandLine()))
	case "gone":
		os.Exit(gone(os.Args[2:]))
	case "launch":
		launch(os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, "winserver: unknown mode", os.Args[1])
		os.Exit(2)
	}
}

type echoArgs struct {
	Text string `json:"text"`
}

func serve(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	stay := fs.Bool("stay", false, "keep running after stdin ends")
	spawn := fs.Bool("spawn", false, "start a child that runs until killed")
	pids := fs.String("pids", "", "write the process ids here")
	_ = fs.Parse(args)
	ids := []int{os.Getpid()}
	if *spawn {
		child := exec.Command(os.Args[0], "hang")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "winserver: spawn:", err)
			os.Exit(1)
		}
		ids = append(ids, child.Process.Pid)
	}
	if *pids != "" {
		line := ""
		for _, id := range ids {
			line += strconv.Itoa(id) + " "
		}
		if err := os.WriteFile(*pids, []byte(line+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "winserver:", err)
			os.Exit(1)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "winserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "says the text back"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	fmt.Fprintln(os.Stderr, "winserver: serving")
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	if *stay {
		fmt.Fprintln(os.Stderr, "winserver: input ended; staying")
		forever()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "winserver:", err)
	}
}

// gone waits up to SECONDS for each process to exit.
func gone(args []string) int {
	if len(args) < 2 {
		return 2
	}
	secs, _ := strconv.Atoi(args[0])
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	alive := 0
	for _, a := range args[1:] {
		pid, _ := strconv.Atoi(a)
		h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
		if err != nil {
			continue // no such process
		}
		wait := time.Until(deadline)
		if wait < 0 {
			wait = 0
		}
		ev, _ := windows.WaitForSingleObject(h, uint32(wait/time.Millisecond))
		windows.CloseHandle(h)
		if ev != windows.WAIT_OBJECT_0 {
			fmt.Printf("alive %d\n", pid)
			alive++
		}
	}
	if alive > 0 {
		return 1
	}
	fmt.Println("gone")
	return 0
}

// launch starts a command with this process's stdio, as a client does,
// and stays until killed.
func launch(args []string) {
	if len(args) < 2 {
		os.Exit(2)
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "winserver: launch:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(args[0], []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "winserver:", err)
		os.Exit(1)
	}
	forever()
}

// forever blocks until the process is killed (select{} alone would be
// reported as a deadlock).
func forever() {
	for {
		time.Sleep(time.Hour)
	}
}
