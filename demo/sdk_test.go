package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outcome is what came of one tool call: its text and isError, or the
// code of its JSON-RPC error.
type outcome struct {
	Tool    string
	Text    string
	IsError bool
	Code    int64
}

// wantOutcomes are what the demo promises of its script (its help and
// docs/guides/viewer.md): forecast and convert work, alerts fails as a
// tool (isError), radar does not exist (-32602), history works (slowly).
var wantOutcomes = []outcome{
	{Tool: "forecast", Text: "Sunny in Lisbon, 21°C"},
	{Tool: "convert", Text: "69.8°F"},
	{Tool: "alerts", Text: `no alert feed for region "XX"`, IsError: true},
	{Tool: "radar", Code: -32602},
	{Tool: "history", Text: "3652 days of temperatures for Lisbon"},
	{Tool: "forecast", Text: "Sunny in Reykjavík, 21°C"},
}

var wantTools = []string{"alerts", "convert", "forecast", "history"}

// The Go SDK's weather server: the demo's tools as the SDK declares them
// from Go types. It judges the demo client, and its tools/list is what
// the demo server's must equal.
type (
	sdkCity struct {
		City string `json:"city" jsonschema:"the city to forecast"`
	}
	sdkPlace struct {
		City string `json:"city" jsonschema:"a city"`
	}
	sdkCelsius struct {
		Celsius float64 `json:"celsius" jsonschema:"a temperature in degrees Celsius"`
	}
	sdkRegion struct {
		Region string `json:"region" jsonschema:"a region code such as EU or US"`
	}
)

func sdkText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func sdkWeather(opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-weather", Version: "1.0.0"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, a sdkCity) (*mcp.CallToolResult, any, error) {
			return sdkText("Sunny in " + a.City + ", 21°C"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "convert", Description: "Celsius to Fahrenheit"},
		func(_ context.Context, _ *mcp.CallToolRequest, a sdkCelsius) (*mcp.CallToolResult, any, error) {
			return sdkText(fmt.Sprintf("%.1f°F", a.Celsius*9/5+32)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "alerts", Description: "Severe weather alerts for a region"},
		func(_ context.Context, _ *mcp.CallToolRequest, a sdkRegion) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("no alert feed for region %q", a.Region)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "history", Description: "Ten years of daily temperatures for a city (slow)"},
		func(_ context.Context, _ *mcp.CallToolRequest, a sdkPlace) (*mcp.CallToolResult, any, error) {
			return sdkText("3652 days of temperatures for " + a.City), nil, nil
		})
	return s
}

// serveLoopback serves h on a loopback port for the test; it returns the
// MCP endpoint.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// sdkConnect connects the Go SDK's client to endpoint.
func sdkConnect(t *testing.T, endpoint string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "sdk-agent", Version: "1.0.0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("the Go SDK's client cannot connect to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listedTools is a server's tools/list as JSON values, for comparing.
func listedTools(t *testing.T, cs *mcp.ClientSession) []any {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []any
	b, _ := json.Marshal(res.Tools)
	json.Unmarshal(b, &tools)
	return tools
}

// TestSDKClientTalksToDemoServer holds the demo server to the Go SDK's
// client: it connects (discover, initialize, initialized, its GET stream),
// lists the tools the SDK itself would declare, and calls each with the
// results and errors the demo promises.
func TestSDKClientTalksToDemoServer(t *testing.T) {
	server := NewServer(0)
	t.Cleanup(server.Close)
	cs := sdkConnect(t, serveLoopback(t, server))
	if got := cs.InitializeResult(); got.ServerInfo.Name != "demo-weather" || got.ProtocolVersion != "2025-11-25" || got.Capabilities.Tools == nil {
		t.Errorf("initialize result %+v", got)
	}
	reference := sdkConnect(t, serveLoopback(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sdkWeather(nil) }, nil)))
	if got, want := listedTools(t, cs), listedTools(t, reference); !reflect.DeepEqual(got, want) {
		t.Errorf("tools/list:\n%v\nthe Go SDK declares the same tools as\n%v", got, want)
	}
	var got []outcome
	for _, c := range Script() {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		got = append(got, sdkOutcome(t, c.Tool, res, err))
	}
	if !reflect.DeepEqual(got, wantOutcomes) {
		t.Errorf("the calls came to\n%+v\nwant\n%+v", got, wantOutcomes)
	}
}

func sdkOutcome(t *testing.T, tool string, res *mcp.CallToolResult, err error) outcome {
	o := outcome{Tool: tool}
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr):
		o.Code = werr.Code
	case err != nil:
		t.Fatalf("tools/call %s: %v", tool, err)
	default:
		for _, c := range res.Content {
			o.Text += c.(*mcp.TextContent).Text
		}
		o.IsError = res.IsError
	}
	return o
}

// sdkJudge wraps the Go SDK's server and records what the demo client
// sent: each request's method, headers and the answer's status.
type sdkJudge struct {
	next        http.Handler
	mu          sync.Mutex
	seen        []*seenRequest
	initialized chan struct{}
}

type seenRequest struct {
	HTTPMethod, Session, Version string
	Status                       int
}

// statusWriter notes the status of an answer before it leaves, so that
// the record is complete once the client has the answer.
type statusWriter struct {
	http.ResponseWriter
	j    *sdkJudge
	seen *seenRequest
}

func (w *statusWriter) WriteHeader(code int) {
	w.j.mu.Lock()
	w.seen.Status = code
	w.j.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (j *sdkJudge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seen := &seenRequest{r.Method, r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Protocol-Version"), http.StatusOK}
	j.mu.Lock()
	j.seen = append(j.seen, seen)
	j.mu.Unlock()
	j.next.ServeHTTP(&statusWriter{ResponseWriter: w, j: j, seen: seen}, r)
}

// requests is what the judge has seen.
func (j *sdkJudge) requests() []seenRequest {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]seenRequest, len(j.seen))
	for i, s := range j.seen {
		out[i] = *s
	}
	return out
}

func newSDKJudge(jsonAnswers bool) *sdkJudge {
	j := &sdkJudge{initialized: make(chan struct{}, 1)}
	opts := &mcp.ServerOptions{InitializedHandler: func(context.Context, *mcp.InitializedRequest) { j.initialized <- struct{}{} }}
	server := sdkWeather(opts)
	j.next = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: jsonAnswers})
	return j
}

// TestDemoClientTalksToSDKServer holds the demo client to the Go SDK's
// server, answering as SSE streams and as JSON: the handshake, the session
// id and the protocol version header on every request after initialize,
// the script's calls with the outcomes the demo promises, and DELETE.
func TestDemoClientTalksToSDKServer(t *testing.T) {
	for _, jsonAnswers := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonAnswers), func(t *testing.T) {
			judge := newSDKJudge(jsonAnswers)
			tools, calls, err := Play(t.Context(), serveLoopback(t, judge), func(context.Context) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-judge.initialized:
			default:
				t.Error("the SDK server was never told notifications/initialized")
			}
			if !reflect.DeepEqual(tools, wantTools) {
				t.Errorf("tools %v, want %v", tools, wantTools)
			}
			if got := outcomesOf(calls); !reflect.DeepEqual(got, wantOutcomes) {
				t.Errorf("the calls came to\n%+v\nwant\n%+v", got, wantOutcomes)
			}
			checkRequests(t, judge.requests())
		})
	}
}

// checkRequests checks what the SDK server saw: server/discover and
// initialize without a session, then every request of one session with
// the revision it settled on, ended by DELETE.
func checkRequests(t *testing.T, seen []seenRequest) {
	t.Helper()
	// discover, initialize, initialized, tools/list, six calls, DELETE
	if len(seen) != 11 {
		t.Fatalf("the SDK server saw %d requests, want 11: %+v", len(seen), seen)
	}
	if seen[0].Session != "" || seen[0].Version != "2026-07-28" || seen[1].Session != "" || seen[1].Version != "" {
		t.Errorf("discover and initialize: %+v", seen[:2])
	}
	sid := seen[2].Session
	for i, s := range seen[2:] {
		want := seenRequest{HTTPMethod: "POST", Session: sid, Version: "2025-11-25", Status: http.StatusOK}
		switch i {
		case 0:
			want.Status = http.StatusAccepted
		case len(seen) - 3:
			want.HTTPMethod, want.Status = "DELETE", http.StatusNoContent
		}
		if sid == "" || s != want {
			t.Errorf("request %d: %+v, want %+v", i+3, s, want)
		}
	}
}

func outcomesOf(calls []Call) []outcome {
	var out []outcome
	for _, c := range calls {
		o := outcome{Tool: c.Tool}
		if c.Err != nil {
			o.Code = int64(c.Err.Code)
		} else {
			o.Text, o.IsError = c.Result.Text(), c.Result.IsError
		}
		out = append(out, o)
	}
	return out
}
