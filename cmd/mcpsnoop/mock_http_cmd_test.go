//go:build unix

package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpsnoop mock --listen end to end: the Go SDK's client over Streamable
// HTTP plays the recorded session, SIGTERM ends the command with exit 0,
// and the session's log in --log-dir checks clean.
func TestMockCommandHTTP(t *testing.T) {
	logs := t.TempDir()
	sigs := make(chan os.Signal, 2)
	listening := make(chan net.Addr, 1)
	httpSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	mockListening = func(a net.Addr) { listening <- a }
	t.Cleanup(func() { httpSignals, mockListening = defaultHTTPSignals, nil })
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mock", "--listen", "127.0.0.1:0", "--log-dir", logs, "--label", "mk", "--fail-on-unmatched", mockRecording}, strings.NewReader(""), io.Discard, stderr)
	}()
	var addr net.Addr
	select {
	case addr = <-listening:
	case code := <-done:
		t.Fatalf("mcpsnoop mock exited %d:\n%s", code, stderr.String())
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, mocktest.Options())
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr.String() + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if err := mocktest.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.Close()
	sigs <- syscall.SIGTERM
	if code := waitExit(t, done, stderr); code != 0 {
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
