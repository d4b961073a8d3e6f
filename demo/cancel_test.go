package demo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/serve"
)

// watchedServer is the weather server with a history tool that would run
// for an hour and says when it starts and when it has stopped.
func watchedServer(t *testing.T) (endpoint string, started, stopped chan struct{}) {
	tools := weatherTools(time.Hour)
	started, stopped = make(chan struct{}), make(chan struct{})
	for i, tl := range tools {
		if tl.name == "history" {
			run := tl.run
			tools[i].run = func(ctx context.Context, city any) (string, error) {
				close(started)
				defer close(stopped)
				return run(ctx, city)
			}
		}
	}
	h := serve.NewHandler(serve.Options{Backend: &backend{tools: tools}})
	t.Cleanup(h.Close)
	return serveLoopback(t, h), started, stopped
}

// TestSlowCallEndsWithTheSession: a client that gives up during the slow
// call still ends its session (DELETE), and that stops the call.
func TestSlowCallEndsWithTheSession(t *testing.T) {
	endpoint, started, stopped := watchedServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	_, calls, err := Play(ctx, endpoint, func(context.Context) error { return nil })
	if !errors.Is(err, context.Canceled) || len(calls) != 4 {
		t.Fatalf("Play: %v after %d calls, want context.Canceled during the fifth (history)", err, len(calls))
	}
	<-stopped // the test's timeout, if DELETE did not stop it
}

// TestCancelledCallStops: notifications/cancelled stops the call it names.
func TestCancelledCallStops(t *testing.T) {
	endpoint, started, stopped := watchedServer(t)
	sid := open(t, endpoint, true)
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// MCP answers no cancelled request: this waits until cancel.
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"history","arguments":{"city":"Oslo"}}}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	status, body, _ := post(t, endpoint, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}}`, hdr)
	if status != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d %s", status, body)
	}
	<-stopped
}
