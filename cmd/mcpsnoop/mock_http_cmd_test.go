//go:build unix

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpsnoop mock --listen end to end: the Go SDK's client over Streamable
// HTTP plays the recorded session, SIGTERM ends the command with exit 0,
// and the session's log in --log-dir checks clean.
func TestMockCommandHTTP(t *testing.T) {
	logs := t.TempDir()
	h := startServing(t, nil, "mock", "--listen", "127.0.0.1:0", "--log-dir", logs, "--label", "mk", "--fail-on-unmatched", mockRecording)
	stderr := h.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, mocktest.Options())
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + h.addr + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if err := mocktest.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if code := h.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	found, _ := filepath.Glob(filepath.Join(logs, "mk-*.jsonl"))
	if len(found) != 1 {
		t.Fatalf("logs %v, want the session's one:\n%s", found, stderr.String())
	}
	out := &lockedBuffer{}
	if code := run([]string{"check", found[0]}, strings.NewReader(""), out, out); code != 0 || !strings.Contains(out.String(), "check passed") {
		t.Errorf("check exited %d:\n%s", code, out.String())
	}
	for _, want := range []string{"SIGTERM: shutting down", "0 went unmatched"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}
