package checker_test

import (
	"slices"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestProbeFallback: a client that speaks 2026-07-28 probes first; an
// older server refuses and the client falls back to initialize, as the
// spec prescribes (the Go SDK v1.8.0 client does). The probe and its
// refusal are no finding, and the session speaks what initialize
// negotiated. A refusal not followed by initialize, or a modern refusal,
// is judged as before.
func TestProbeFallback(t *testing.T) {
	all, _ := checker.ParseFailOn(allGates + ",wire")
	discover := rpcRequest("1", "server/discover", `{`+hxMeta26+`}`)
	init := rpcRequest("2", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	inited := rpcResult("2", `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)
	then := []pf{c2s(init), s2c(inited), c2s(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		c2s(rpcRequest("3", "tools/list", `{}`)), s2c(rpcResult("3", `{"tools":[]}`)),
		s2c(rpcRequest(`"e1"`, "elicitation/create", `{"message":"?","requestedSchema":{"type":"object","properties":{}}}`)),
		c2s(rpcResult(`"e1"`, `{"action":"decline"}`))}
	http := func(p pf) pf { p.members += `,"http_method":"POST","conn_id":"c1"`; return p }
	discoverHTTP := http(pf{"c2s", `"raw":` + discover + `,"mcp_protocol_version":"2026-07-28","mcp_method":"server/discover"`})
	tests := []struct {
		name      string
		transport string
		frames    []pf
		want      []string
		errors    int
	}{
		{"stdio: Method not found, then initialize", "stdio",
			append([]pf{c2s(discover), s2c(rpcError("1", -32601, "Method not found"))}, then...), nil, 0},
		{"HTTP: a 404, then initialize", "http",
			append([]pf{discoverHTTP, http(pf{"s2c", `"status":404,"reply_to":1`})}, then...), nil, 0},
		{"HTTP: a 400 with Invalid Request, then initialize", "http",
			append([]pf{discoverHTTP, http(pf{"s2c", `"status":400,"raw":` + rpcError("1", -32600, "unknown method")})}, then...), nil, 0},
		{"a modern refusal is no probe: the client should retry, not fall back", "http",
			append([]pf{discoverHTTP, http(pf{"s2c", `"status":400,"raw":` + rpcError("1", -32022, "unsupported protocol version")})}, then...),
			[]string{"error server server/discover (id 1) ended in an error: unsupported protocol version (code -32022)"}, 1},
		{"a refusal not followed by initialize stands", "stdio",
			[]pf{c2s(discover), s2c(rpcError("1", -32601, "Method not found")), c2s(rpcRequest("3", "tools/list", `{}`)), s2c(rpcResult("3", `{"tools":[]}`))},
			[]string{
				"error server server/discover (id 1) ended in an error: Method not found (code -32601)",
				// No initialize: the session still speaks what its client declared.
				`wire client wire: tools/list request: /params: missing property "_meta" (2026-07-28 ListToolsRequest)`,
				`wire server wire: tools/list result: missing properties "cacheScope", "resultType", "ttlMs" (2026-07-28 ListToolsResult)`,
			}, 1},
		{"on stdio only Method not found is a probe's refusal", "stdio",
			append([]pf{c2s(discover), s2c(rpcError("1", -32603, "crash"))}, then...),
			[]string{"error server server/discover (id 1) ended in an error: crash (code -32603)"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, checker.Config{FailOn: all}, partyLog(tc.transport, tc.frames...))
			sameLines(t, "findings", partyLines(rep), tc.want)
			s := rep.Sessions[0]
			if s.Counters.Errors != tc.errors {
				t.Errorf("errors = %d, want %d", s.Counters.Errors, tc.errors)
			}
			if tc.errors == 0 && (s.Wire == nil || !slices.Equal(s.Wire.Revisions, []string{"2025-11-25"})) {
				t.Errorf("validated under %v, want only the negotiated 2025-11-25", s.Wire)
			}
		})
	}
}

// TestRevisionPerExchange: a frame is judged under the revision of the
// request it belongs to. One endpoint may serve both revisions (the Python
// SDK v2 does): a server request that comes during a 2025-11-25 call is
// legal, one during a call declaring 2026-07-28 is W41, and the client's
// answer to the latter W42.
func TestRevisionPerExchange(t *testing.T) {
	init := rpcRequest("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}`)
	inited := rpcResult("0", `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)
	ask := func(id string) string {
		return rpcRequest(id, "elicitation/create", `{"message":"?","requestedSchema":{"type":"object","properties":{}}}`)
	}
	on := func(dir, raw, extra string) pf {
		return pf{dir, `"raw":` + raw + `,"http_method":"POST","conn_id":"c1"` + extra}
	}
	headers := `,"mcp_protocol_version":"2026-07-28","mcp_method":"tools/call","mcp_name":"echo"`
	log := partyLog("http",
		on("c2s", init, ""), on("s2c", inited, ""),
		on("c2s", toolCall("1", "echo", ""), ""),
		on("s2c", ask(`"e1"`), `,"reply_to":1`), on("c2s", rpcResult(`"e1"`, `{"action":"decline"}`), ""),
		on("s2c", rpcResult("1", `{"content":[]}`), ""),
		on("c2s", toolCall("2", "echo", hxMeta26), headers),
		on("s2c", ask(`"e2"`), `,"reply_to":2`), on("c2s", rpcResult(`"e2"`, `{"action":"decline"}`), ""),
		on("s2c", rpcResult("2", `{"resultType":"complete","content":[]}`), ""))
	rep := check(t, checker.Config{}, log)
	sameLines(t, "findings", partyLines(rep), []string{
		`warn server server sent a JSON-RPC request "elicitation/create", which 2026-07-28 replaced with the MRTR pattern`,
		"warn client client sent a JSON-RPC response, which 2026-07-28 no longer defines",
	})
	if f := rep.Findings; len(f) == 2 && (f[0].Line != 8 || f[1].Line != 9) {
		t.Errorf("findings at lines %d and %d, want 8 and 9 (the exchange of the 2026-07-28 call)", f[0].Line, f[1].Line)
	}
}
