package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpRecorder is an http.RoundTripper between a real go-sdk client and a
// real go-sdk server on loopback. It forwards every exchange and logs each
// JSON-RPC message as a frame in wire order, with the routing headers the
// streamable-HTTP transport carries. (mcpsnoop http will do this as a
// reverse proxy; here it records the same frames from inside the client.)
type httpRecorder struct {
	mu    sync.Mutex
	out   io.Writer
	seq   uint64
	sid   string
	label string
	next  http.RoundTripper
}

func (r *httpRecorder) write(f capture.Frame) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	f.SessionID, f.ServerLabel, f.Seq, f.TS, f.Transport = r.sid, r.label, r.seq, time.Now(), capture.TransportHTTP
	data, _ := json.Marshal(f)
	r.out.Write(append(data, '\n'))
}

// messages splits a body into JSON-RPC messages (a batch gives several).
func messages(body []byte) (msgs []json.RawMessage, batch bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) == nil {
			return msgs, true
		}
	}
	var compact bytes.Buffer
	if json.Compact(&compact, body) == nil {
		return []json.RawMessage{compact.Bytes()}, false
	}
	return nil, false
}

func (r *httpRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	conn := "127.0.0.1:" + req.URL.Port()
	msgs, batch := messages(body)
	for _, m := range msgs {
		f := capture.Frame{Direction: capture.ClientToServer, Raw: m, Batch: batch, ConnID: conn,
			McpMethod: req.Header.Get("Mcp-Method"), McpName: req.Header.Get("Mcp-Name"),
			McpProtocolVersion: req.Header.Get("MCP-Protocol-Version"),
			ContentType:        req.Header.Get("Content-Type"), Accept: req.Header.Get("Accept")}
		for name, values := range req.Header {
			if strings.HasPrefix(strings.ToLower(name), "mcp-param-") {
				for _, v := range values {
					f.McpParamHeaders = append(f.McpParamHeaders, capture.ParamHeader{Name: name, Value: v})
				}
			}
		}
		r.write(f)
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	ct := resp.Header.Get("Content-Type")
	frame := func(raw json.RawMessage) {
		r.write(capture.Frame{Direction: capture.ServerToClient, Raw: raw, ConnID: conn, Status: resp.StatusCode, ContentType: ct})
	}
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		sc := bufio.NewScanner(bytes.NewReader(respBody))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var data []string
		flush := func() {
			if len(data) > 0 {
				if ms, _ := messages([]byte(strings.Join(data, "\n"))); len(ms) > 0 {
					for _, m := range ms {
						frame(m)
					}
				}
				data = nil
			}
		}
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				flush()
			} else if v, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(v, " "))
			}
		}
		flush()
	case len(bytes.TrimSpace(respBody)) == 0:
		r.write(capture.Frame{Direction: capture.ServerToClient, ConnID: conn, Status: resp.StatusCode})
	default:
		ms, _ := messages(respBody)
		for _, m := range ms {
			frame(m)
		}
	}
	return resp, nil
}

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// TestHTTPSessionWithRealSDK records a 2026-07-28 session between the go-sdk
// client and server over streamable HTTP: it passes the default gate, and
// the same log with one routing header changed fails with mismatch.
func TestHTTPSessionWithRealSDK(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Say hello"},
		func(ctx context.Context, req *mcp.CallToolRequest, args greetArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + args.Name}}}, nil, nil
		})
	// 2026-07-28 is stateless: the SDK serves it only on a stateless handler.
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer ts.Close()

	dir := t.TempDir()
	logPath := filepath.Join(dir, "http.jsonl")
	var logBuf bytes.Buffer
	rec := &httpRecorder{out: &logBuf, sid: "greeter-1-cccccccccccc", label: "greeter", next: http.DefaultTransport}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: ts.URL, HTTPClient: &http.Client{Transport: rec}, DisableStandaloneSSE: true,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "ada"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	cs.Close()
	if err := os.WriteFile(logPath, logBuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logBuf.String(), `"mcp_method":"tools/call","mcp_name":"greet","mcp_protocol_version":"2026-07-28"`) {
		t.Fatalf("the recorded log lacks the 2026-07-28 routing headers:\n%s", logBuf.String())
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", logPath}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("the real session fails the default gate (exit %d):\n%s%s\nlog:\n%s", code, stdout.String(), stderr.String(), logBuf.String())
	}

	altered := filepath.Join(dir, "altered.jsonl")
	changed := strings.Replace(logBuf.String(), `"mcp_name":"greet"`, `"mcp_name":"delete_everything"`, 1)
	os.WriteFile(altered, []byte(changed), 0o644)
	stdout.Reset()
	code := run([]string{"check", "--fail-on", "mismatch", altered}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "check failed: mismatch") || !strings.Contains(stdout.String(), "mismatches=1") {
		t.Fatalf("an altered Mcp-Name is not a mismatch (exit %d):\n%s", code, stdout.String())
	}
}
