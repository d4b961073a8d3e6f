//go:build unix

package main

import (
	"context"
	"github.com/mcpsnoop/mcpsnoop/internal/otlptest"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPCommandOTLP: mcpsnoop http streams a span per call of the
// session it proxies, as the shim does; with the collector down the
// traffic still passes byte for byte and every span is counted as lost.
func TestHTTPCommandOTLP(t *testing.T) {
	t.Log("mcpsnoop http streaming spans, with the collector up and down")
	for _, collectorUp := range []bool{true, false} {
		t.Run("collector-up="+strconv.FormatBool(collectorUp), func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("MCPSNOOP_HOME", home)
			server := mcp.NewServer(&mcp.Implementation{Name: "search", Version: "1.0.0"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "find"}, func(ctx context.Context, req *mcp.CallToolRequest, args struct {
				Q string `json:"q"`
			}) (*mcp.CallToolResult, any, error) {
				res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + args.Q}}}
				res.IsError = args.Q == "nothing"
				return res, nil, nil
			})
			var sw serverWire
			sw.next = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
			target := httptest.NewServer(&sw)
			defer target.Close()

			endpoint := "http://" + otlptest.FreeAddr(t) + "/v1/traces"
			var rc *otlptest.Collector
			if collectorUp {
				rc = otlptest.New(t, nil)
				endpoint = rc.URL()
			}
			h := startHTTP(t, "--target", target.URL+"/mcp", "--listen", "127.0.0.1:0", "--otlp-endpoint", endpoint, "--otlp-header", "Authorization=Bearer tok-s3cret")
			var cw clientWire
			cw.next = http.DefaultTransport.(*http.Transport).Clone()
			client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: "http://" + h.addr + "/mcp", HTTPClient: &http.Client{Transport: &cw}, DisableStandaloneSSE: true, MaxRetries: -1,
			}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range []string{"a", "b", "nothing", "c"} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find", Arguments: map[string]any{"q": q}})
				if err != nil || res.IsError != (q == "nothing") || res.Content[0].(*mcp.TextContent).Text != "found "+q {
					t.Fatalf("call %d: %v %+v", i, err, res)
				}
			}
			cs.Close()
			if code := h.stop(t); code != 0 {
				t.Fatalf("exit %d:\n%s", code, h.stderr.String())
			}
			sameBytes(t, &cw.log, &sw.log)
			calls := logCalls(t, sessionLog(t, home))
			stderr := h.stderr.String()
			d, of, atExit := lost(t, stderr)
			if strings.Contains(stderr, "s3cret") {
				t.Error("the header's value reached stderr")
			}
			if collectorUp {
				spans := rc.Spans()
				if len(spans) != calls || d != 0 {
					t.Errorf("collector got %d spans for %d calls; lost %d:\n%s", len(spans), calls, d, stderr)
				}
				tools := 0
				for _, s := range spans {
					if v, ok := s.Span.Attributes().Get("mcpsnoop.call.tool_name"); ok && v.Str() == "find" {
						tools++
					}
					if tr, _ := s.Resource.Get("mcpsnoop.session.transport"); tr.Str() != "http" {
						t.Errorf("resource transport %q", tr.Str())
					}
				}
				if tools != 4 {
					t.Errorf("%d tools/call spans, want 4", tools)
				}
				return
			}
			if d != calls || of != calls || atExit != calls {
				t.Errorf("lost %d of %d (%d at exit), want all %d calls:\n%s", d, of, atExit, calls, stderr)
			}
		})
	}
}
