// Command agent is the example's MCP client: a stand-in for the agent a
// team runs in CI. It reads an MCP client config the way Claude Code reads
// .mcp.json (servers under "mcpServers", or "servers" as VS Code has it),
// starts every server, lists their tools, and makes the tool calls of a
// plan file, printing what each one answers.
//
//	agent [-config .mcp.json] [-plan plan.json] [-timeout 2m]
//
// Like the TypeScript SDK's clients, it starts stdio servers with a small
// safe set of environment variables (PATH, HOME, USER, ... and the entry's
// own "env"), in the folder that holds the config. Nothing else of the
// job's environment reaches them, MCPSNOOP_HOME included: that is why the
// example wraps its servers with `mcpsnoop wrap --log-dir`, which writes
// the folder into each server's command line.
//
// A plan is a JSON list of calls:
//
//	[{"server": "notes", "tool": "add_note", "arguments": {"text": "hi"}}]
//
// The agent exits 1 when a server cannot be started or a call fails on the
// wire; a tool that answers with an error is printed and is mcpsnoop's to
// judge.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one entry of the config.
type server struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
}

// call is one step of a plan.
type call struct {
	Server    string         `json:"server"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

func main() {
	config := flag.String("config", ".mcp.json", "the MCP client config to read")
	plan := flag.String("plan", "", "a JSON file of tool calls to make (none: list the tools only)")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *config, *plan, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, configPath, planPath string, out io.Writer) error {
	servers, err := readConfig(configPath)
	if err != nil {
		return err
	}
	var calls []call
	if planPath != "" {
		data, err := os.ReadFile(planPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &calls); err != nil {
			return fmt.Errorf("%s: %w", planPath, err)
		}
	}
	dir, err := filepath.Abs(filepath.Dir(configPath))
	if err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example-agent", Version: "1.0.0"}, nil)
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	slices.Sort(names)
	sessions := map[string]*mcp.ClientSession{}
	defer func() {
		for _, name := range names {
			if cs := sessions[name]; cs != nil {
				cs.Close() // ends the server (and its shim) and waits for it
			}
		}
	}()
	for _, name := range names {
		t, err := transport(servers[name], dir)
		if err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
		cs, err := client.Connect(ctx, t, nil)
		if err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
		sessions[name] = cs
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("server %q: tools/list: %w", name, err)
		}
		var toolNames []string
		for _, tool := range tools.Tools {
			toolNames = append(toolNames, tool.Name)
		}
		fmt.Fprintf(out, "%s: tools %s\n", name, strings.Join(toolNames, ", "))
	}
	var failed []string
	for _, c := range calls {
		cs := sessions[c.Server]
		if cs == nil {
			return fmt.Errorf("the plan calls %s on %q, which the config does not have", c.Tool, c.Server)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s/%s: %v", c.Server, c.Tool, err))
			continue
		}
		verdict := "ok"
		if res.IsError {
			verdict = "tool error"
		}
		fmt.Fprintf(out, "%s/%s: %s: %s\n", c.Server, c.Tool, verdict, resultText(res))
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// readConfig reads the servers of a client config.
func readConfig(path string) (map[string]server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		MCPServers map[string]server `json:"mcpServers"`
		Servers    map[string]server `json:"servers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	servers := cfg.MCPServers
	if servers == nil {
		servers = cfg.Servers
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("%s lists no servers under mcpServers or servers", path)
	}
	return servers, nil
}

// transport starts a stdio server in dir with the safe environment, or
// reaches a remote one at its URL.
func transport(s server, dir string) (mcp.Transport, error) {
	switch {
	case s.Command != "" && (s.Type == "" || s.Type == "stdio"):
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Dir = dir
		cmd.Env = safeEnv(s.Env)
		cmd.Stderr = os.Stderr
		return &mcp.CommandTransport{Command: cmd}, nil
	case s.URL != "":
		return &mcp.StreamableClientTransport{Endpoint: s.URL}, nil
	}
	return nil, errors.New("neither a command nor a url")
}

// inherited are the variables a server gets from the agent's environment:
// the set the TypeScript SDK's getDefaultEnvironment passes on.
var inherited = map[string][]string{
	"windows": {"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
		"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"},
	"other": {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"},
}

func safeEnv(extra map[string]string) []string {
	names := inherited["other"]
	if runtime.GOOS == "windows" {
		names = inherited["windows"]
	}
	var env []string
	for _, k := range names {
		if v, ok := os.LookupEnv(k); ok && !strings.HasPrefix(v, "()") { // no exported shell functions
			env = append(env, k+"="+v)
		}
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// resultText is the text of a result's content, on one line.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.ReplaceAll(strings.Join(parts, " "), "\n", " | ")
}
