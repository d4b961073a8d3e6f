package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// weatherServer is a Go SDK server over Streamable HTTP with a tool that
// answers, one that fails as a tool and a prompt.
func weatherServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	type cityArgs struct {
		City string `json:"city"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "the forecast of a city"}, func(_ context.Context, _ *mcp.CallToolRequest, a cityArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + a.City}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "alerts", Description: "weather alerts"}, func(context.Context, *mcp.CallToolRequest, cityArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "alerts are down"}}}, nil, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "plan", Description: "plan a trip"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "plan a trip"}}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// overHTTP is a client transport to a Streamable HTTP endpoint.
func overHTTP(endpoint string) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}
}

// playWeather is the client's session: the tools, two calls, the prompts
// and one prompt.
func playWeather(ctx context.Context, tr mcp.Transport) (*mocktest.Raw, error) {
	raw := &mocktest.Raw{Transport: tr}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "mock-test", Version: "1"}, nil).Connect(ctx, raw, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if _, err := s.ListTools(ctx, nil); err != nil {
		return nil, err
	}
	for _, call := range []*mcp.CallToolParams{
		{Name: "forecast", Arguments: map[string]any{"city": "Oslo"}},
		{Name: "alerts", Arguments: map[string]any{"city": "Oslo"}},
	} {
		if _, err := s.CallTool(ctx, call); err != nil {
			return nil, err
		}
	}
	if _, err := s.ListPrompts(ctx, nil); err != nil {
		return nil, err
	}
	if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plan"}); err != nil {
		return nil, err
	}
	return raw, nil
}

// recordOverHTTP plays the session through mcpsnoop's HTTP capture proxy
// in front of the server, and returns the log it wrote.
func recordOverHTTP(t *testing.T, server string) (string, *mocktest.Raw) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "weather.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(server)
	log := httpcapture.NewLog(f, httpcapture.LogOptions{SessionID: capture.NewSessionID("weather"), Label: "weather", Path: path})
	proxy := httptest.NewServer(httpcapture.NewProxy(httpcapture.ProxyOptions{Target: target, Log: log}))
	raw, err := playWeather(context.Background(), overHTTP(proxy.URL+"/mcp"))
	proxy.Close()
	if lost := log.Close(); lost > 0 {
		t.Fatalf("the capture lost %d frames", lost)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path, raw
}

// answers are the results (or errors) the client read, by method and
// params, _meta left out of neither.
func answers(t *testing.T, raw *mocktest.Raw) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, x := range raw.Exchanges() {
		if x.Response == nil {
			t.Errorf("%s %s: no answer", x.Method, x.Params)
			continue
		}
		got := string(x.Response.Result)
		if x.Response.Error != nil {
			b, _ := json.Marshal(x.Response.Error)
			got = "error " + string(b)
		}
		out[x.Method+" "+string(bytes.TrimSpace(x.Params))] = got
	}
	return out
}

// TestHTTPCapturedRecording: a session captured by the HTTP proxy (not
// the stdio shim) is a recording the mock serves, over Streamable HTTP and
// over stdio, answering the same client with what the real server
// answered, byte for byte.
func TestHTTPCapturedRecording(t *testing.T) {
	path, live := recordOverHTTP(t, weatherServer(t))
	want := answers(t, live)
	if len(want) < 5 {
		t.Fatalf("the live session had %d answers: %v", len(want), want)
	}
	rec := load(t, path)

	t.Run("over HTTP", func(t *testing.T) {
		e := New(rec, Options{Mode: Sequential})
		r := startHTTP(t, e)
		raw, err := playWeather(context.Background(), overHTTP(r.url))
		if err != nil {
			t.Fatal(err)
		}
		r.stop()
		sameAnswers(t, want, answers(t, raw))
		if u := e.Unmatched(); len(u) > 0 {
			t.Errorf("unmatched: %q", u)
		}
	})
	t.Run("over stdio", func(t *testing.T) {
		e := New(rec, Options{Mode: Sequential})
		rig := startStdio(t, e, nil)
		raw, err := playWeather(context.Background(), &mcp.IOTransport{Reader: rig.clientIn, Writer: rig.clientOut})
		if err != nil {
			t.Fatal(err)
		}
		if err := rig.wait(t); err != nil {
			t.Fatalf("serve: %v", err)
		}
		sameAnswers(t, want, answers(t, raw))
	})
}

// sameAnswers compares the mock's answers with the live server's, request
// by request.
func sameAnswers(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s:\n got %s\nwant %s", k, got[k], w)
		}
	}
}
