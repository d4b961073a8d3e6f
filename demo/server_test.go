package demo

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends one raw message to the demo server with the transport's
// headers and hdr (a "" value removes a header); it returns the status and
// the body, an SSE event's data unwrapped.
func post(t *testing.T, endpoint, body string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	text := string(b)
	if i := strings.Index(text, "data: "); i >= 0 {
		text = strings.TrimSpace(strings.SplitN(text[i+len("data: "):], "\n", 2)[0])
	}
	return resp.StatusCode, text, resp.Header
}

const (
	initializeBody  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// open starts a session: its id; initialized says whether the handshake
// is finished.
func open(t *testing.T, endpoint string, initialized bool) string {
	t.Helper()
	status, body, h := post(t, endpoint, initializeBody, nil)
	sid := h.Get("Mcp-Session-Id")
	if status != http.StatusOK || sid == "" || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %s (session %q)", status, body, sid)
	}
	if initialized {
		if status, body, _ := post(t, endpoint, initializedBody, map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}); status != http.StatusAccepted {
			t.Fatalf("initialized: %d %s", status, body)
		}
	}
	return sid
}

// TestServerRules: what the demo server refuses, and how. A refusal is an
// HTTP status from the transport, or a JSON-RPC error (code) in a 200.
func TestServerRules(t *testing.T) {
	server := NewServer(0)
	t.Cleanup(server.Close)
	endpoint := serveLoopback(t, server)
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	cases := []struct {
		name        string
		initialized bool   // the session's handshake is done
		session     bool   // the request names the session
		body        string // the request
		hdr         map[string]string
		status      int
		want        string // in the answer
	}{
		{"tools/list before initialized", false, true, list, nil, 200, `"code":-32600`},
		{"tools/call before initialized", false, true, call("forecast", `{"city":"Oslo"}`), nil, 200, `"code":-32600`},
		{"initialize twice", true, true, strings.Replace(initializeBody, `"id":1`, `"id":2`, 1), nil, 200, `"code":-32600`},
		{"no session", true, false, list, nil, 400, "Mcp-Session-Id"},
		{"a session that never was", true, false, list, map[string]string{"Mcp-Session-Id": "0123"}, 404, "no session"},
		{"a hostile Origin", true, true, list, map[string]string{"Origin": "https://evil.example"}, 403, "Origin"},
		{"no Accept for JSON or SSE", true, true, list, map[string]string{"Accept": "text/html"}, 406, "Accept"},
		{"an unknown method", true, true, `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, nil, 200, `"code":-32601`},
		{"an unknown tool", true, true, call("radar", `{}`), nil, 200, `"code":-32602`},
		{"a missing argument", true, true, call("forecast", `{}`), nil, 200, `"isError":true`},
		{"an argument of the wrong type", true, true, call("convert", `{"celsius":"warm"}`), nil, 200, `"isError":true`},
		{"an argument the schema does not have", true, true, call("forecast", `{"city":"Oslo","days":3}`), nil, 200, `"isError":true`},
		{"a call that works", true, true, call("convert", `{"celsius":100}`), nil, 200, `"text":"212.0°F"`},
		{"ping before initialized", false, true, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil, 200, `"result":{}`},
		{"a 2026-07-28 tools/call", true, false, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, 400, `"code":-32022`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
			if c.session {
				hdr["Mcp-Session-Id"] = open(t, endpoint, c.initialized)
			}
			for k, v := range c.hdr {
				hdr[k] = v
			}
			status, body, _ := post(t, endpoint, c.body, hdr)
			if status != c.status || !strings.Contains(body, c.want) {
				t.Errorf("%d %s\nwant %d with %s", status, body, c.status, c.want)
			}
		})
	}
}

// TestServerDiscover: a dual-era client's probe learns the server's
// revisions (the session era) with what 2026-07-28 requires of the result.
func TestServerDiscover(t *testing.T) {
	server := NewServer(0)
	t.Cleanup(server.Close)
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	status, text, _ := post(t, serveLoopback(t, server), body, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"})
	var got struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal([]byte(text), &got); status != 200 || err != nil {
		t.Fatalf("%d %s", status, text)
	}
	for _, k := range []string{"resultType", "supportedVersions", "capabilities", "ttlMs", "cacheScope"} {
		if _, ok := got.Result[k]; !ok {
			t.Errorf("the result has no %s: %s", k, text)
		}
	}
	if v, _ := json.Marshal(got.Result["supportedVersions"]); string(v) != `["2025-11-25","2025-06-18"]` {
		t.Errorf("supportedVersions %s", v)
	}
}
