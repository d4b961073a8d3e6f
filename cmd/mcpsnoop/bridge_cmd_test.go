//go:build unix

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpsnoop bridge end to end in the test's process: a Go SDK client
// through it to the bridge's test server, a log per session in --log-dir,
// SIGTERM ends the server and the bridge with exit 0, and the log checks
// clean.
func TestBridgeCommand(t *testing.T) {
	server := testbin.Build(t, "../../serve/bridge/testdata/server")
	logs := t.TempDir()
	h := startServing(t, nil, "bridge", "--listen", "127.0.0.1:0", "--log-dir", logs, "--label", "bt", "--", server)
	stderr := h.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + h.addr + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "hi" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	found, _ := filepath.Glob(filepath.Join(logs, "bt-*.jsonl"))
	if len(found) != 1 {
		t.Fatalf("logs %v, want the session's one:\n%s", found, stderr.String())
	}
	out := &lockedBuffer{}
	if code := run([]string{"check", found[0]}, strings.NewReader(""), out, out); code != 0 || !strings.Contains(out.String(), "check passed") {
		t.Errorf("check exited %d:\n%s", code, out.String())
	}
	if !strings.Contains(stderr.String(), "SIGTERM: shutting down") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestBridgeInHelp(t *testing.T) {
	out := &lockedBuffer{}
	run([]string{"--help"}, strings.NewReader(""), out, out)
	if !strings.Contains(out.String(), "bridge") {
		t.Errorf("--help does not list bridge:\n%s", out.String())
	}
	out = &lockedBuffer{}
	if code := run([]string{"bridge", "--kill-grace", "0s", "--", "x"}, strings.NewReader(""), out, out); code != 2 || !strings.Contains(out.String(), "--kill-grace must be positive") {
		t.Errorf("a zero --kill-grace: exit %d:\n%s", code, out.String())
	}
}
