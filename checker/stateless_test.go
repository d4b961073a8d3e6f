package checker_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestMustRefuse: W52-W54, a 2026-07-28 server answering with a result a
// request it must refuse; the client's half stays the client's.
func TestMustRefuse(t *testing.T) {
	headers := func(method, name string) string {
		h := `,"mcp_protocol_version":"2026-07-28","mcp_method":"` + method + `"`
		if name != "" {
			h += `,"mcp_name":"` + name + `"`
		}
		return h
	}
	call := func(id, meta string) string {
		return rpcRequest(id, "tools/call", `{"name":"echo","arguments":{}`+meta+`}`)
	}
	ok := func(id string) string { return rpcResult(id, `{"resultType":"complete","content":[]}`) }
	only := func(lines []string, rule string) []string {
		var out []string
		for _, l := range lines {
			if len(l) > 4 && l[:4] == "warn" && strings.Contains(l, rule) {
				out = append(out, l)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		frames []pf
		rule   string
		want   []string
	}{
		{"W52: a request without its _meta answered with a result",
			[]pf{{"c2s", `"raw":` + call("1", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`) + headers("tools/call", "echo")}, {"s2c", `"raw":` + ok("1")}},
			"refuse (-32602",
			[]string{"warn server server answered with a result a request missing its required _meta, which 2026-07-28 requires it to refuse (-32602, HTTP 400)"}},
		{"W52: refused as required",
			[]pf{{"c2s", `"raw":` + call("1", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`) + headers("tools/call", "echo")},
				{"s2c", `"status":400,"raw":` + rpcError("1", -32602, "missing clientCapabilities")}},
			"refuse (-32602", nil},
		{"W53: disagreeing headers answered with a result",
			[]pf{{"c2s", `"raw":` + call("1", ","+hxMeta26) + headers("tools/call", "other")}, {"s2c", `"raw":` + ok("1")}},
			"-32020, HTTP 400",
			[]string{"warn server server answered with a result a request whose routing headers disagree with its body, which 2026-07-28 requires it to refuse (-32020, HTTP 400)"}},
		{"W54: a version that is no revision answered with a result",
			[]pf{{"c2s", `"raw":` + call("1", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"latest","io.modelcontextprotocol/clientCapabilities":{}}`) +
				`,"mcp_protocol_version":"latest","mcp_method":"tools/call","mcp_name":"echo"`}, {"s2c", `"raw":` + ok("1")}},
			"-32022",
			[]string{`warn server server answered with a result a request naming protocol version "latest", which it does not support: 2026-07-28 requires -32022 and HTTP 400`}},
		{"a revision dated after the request cannot be one the server speaks",
			[]pf{{"c2s", `"raw":` + call("1", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}`) +
				`,"mcp_protocol_version":"2099-01-01","mcp_method":"tools/call","mcp_name":"echo"`}, {"s2c", `"raw":` + ok("1")}},
			"-32022",
			[]string{`warn server server answered with a result a request naming protocol version "2099-01-01", which it does not support: 2026-07-28 requires -32022 and HTTP 400`}},
		{"an unknown revision dated before the request may be newer than this build",
			[]pf{{"c2s", `"raw":` + call("1", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-01","io.modelcontextprotocol/clientCapabilities":{}}`) +
				`,"mcp_protocol_version":"2026-07-01","mcp_method":"tools/call","mcp_name":"echo"`}, {"s2c", `"raw":` + ok("1")}},
			"-32022", nil},
		{"W54: a version the server's discover answer did not list",
			[]pf{{"c2s", `"raw":` + rpcRequest("0", "server/discover", `{`+hxMeta26+`}`) + headers("server/discover", "")},
				{"s2c", `"raw":` + rpcResult("0", `{"resultType":"complete","supportedVersions":["2025-11-25"],"capabilities":{},"cacheScope":"public","ttlMs":0}`)},
				{"c2s", `"raw":` + call("1", ","+hxMeta26) + headers("tools/call", "echo")}, {"s2c", `"raw":` + ok("1")}},
			"-32022",
			[]string{`warn server server answered with a result a request naming protocol version "2026-07-28", which it does not support: 2026-07-28 requires -32022 and HTTP 400`}},
		{"a well-formed request answered with a result is fine",
			[]pf{{"c2s", `"raw":` + call("1", ","+hxMeta26) + headers("tools/call", "echo")}, {"s2c", `"raw":` + ok("1")}},
			"HTTP 400", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := only(partyLines(check(t, checker.Config{}, partyLog("http", tc.frames...))), tc.rule)
			sameLines(t, "warnings", got, tc.want)
		})
	}
}
