// Command drive is the MCP client that recorded the security fixtures: it
// starts a server through mcpsnoop's stdio shim (so the shim writes the
// session log), lists what the server offers (tools, prompts, resources,
// resource templates), reads or gets each listed prompt and resource it
// can, makes the calls of a plan, and lists the tools again at the end.
//
//	go run ./checker/security/testdata/drive -plan PLAN.json -- mcpsnoop --log-dir DIR --label L -- SERVER ARGS...
//
// A plan is a JSON array of {"tool": NAME, "args": {...}}; "relist": true
// in an entry lists the tools again at that point, "prompt" gets a prompt
// and "read" reads a resource. Commands separated by ":::" are served one
// after the other by this one process (one agent run, two servers); the
// plan is made with the first.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type step struct {
	Tool   string         `json:"tool"`
	Args   map[string]any `json:"args"`
	Relist bool           `json:"relist"`
	Prompt string         `json:"prompt"`
	Read   string         `json:"read"`
}

func main() {
	planPath := flag.String("plan", "", "JSON plan of calls")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: drive -plan PLAN.json -- COMMAND ARGS...")
		os.Exit(2)
	}
	var plan []step
	if *planPath != "" {
		b, err := os.ReadFile(*planPath)
		if err == nil {
			err = json.Unmarshal(b, &plan)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "drive:", err)
			os.Exit(2)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds [][]string
	cur := []string{}
	for _, a := range flag.Args() {
		if a == ":::" {
			cmds, cur = append(cmds, cur), []string{}
			continue
		}
		cur = append(cur, a)
	}
	cmds = append(cmds, cur)
	for i, c := range cmds {
		if i > 0 {
			plan = nil
		}
		if err := drive(ctx, c, plan); err != nil {
			fmt.Fprintln(os.Stderr, "drive:", err)
			os.Exit(1)
		}
	}
}

// drive runs one server and the plan against it.
func drive(ctx context.Context, argv []string, plan []step) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpsnoop-fixture-driver", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	caps := cs.InitializeResult().Capabilities
	listTools(ctx, cs, caps)
	if caps.Prompts != nil {
		report("prompts/list", func() error { _, err := cs.ListPrompts(ctx, nil); return err })
	}
	if caps.Resources != nil {
		report("resources/list", func() error { _, err := cs.ListResources(ctx, nil); return err })
		report("resources/templates/list", func() error { _, err := cs.ListResourceTemplates(ctx, nil); return err })
	}
	for _, s := range plan {
		switch {
		case s.Relist:
			listTools(ctx, cs, caps)
		case s.Prompt != "":
			report("prompts/get "+s.Prompt, func() error {
				args := map[string]string{}
				for k, v := range s.Args {
					args[k] = fmt.Sprint(v)
				}
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: s.Prompt, Arguments: args})
				return err
			})
		case s.Read != "":
			report("resources/read "+s.Read, func() error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: s.Read})
				return err
			})
		default:
			report("tools/call "+s.Tool, func() error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.Tool, Arguments: s.Args})
				return err
			})
		}
	}
	listTools(ctx, cs, caps)
	return nil
}

func listTools(ctx context.Context, cs *mcp.ClientSession, caps *mcp.ServerCapabilities) {
	if caps.Tools != nil {
		report("tools/list", func() error { _, err := cs.ListTools(ctx, nil); return err })
	}
}

// report says how a request went; a failed one is part of the recording
// (the fixture keeps what the server answered).
func report(what string, fn func() error) {
	if err := fn(); err != nil {
		fmt.Fprintf(os.Stderr, "drive: %s: %v\n", what, err)
	}
}
