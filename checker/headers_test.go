package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Helpers for the header, parameter-header and transport rule tests. logOf
// only writes stdio frames, so these spell out HTTP envelopes.

// hxFrame is one envelope: direction, raw JSON body and further envelope
// members (JSON without braces, may be ""). Frames are HTTP unless stdio.
type hxFrame struct {
	dir, raw, extra string
	stdio           bool
}

func hxC2S(raw, extra string) hxFrame { return hxFrame{dir: "c2s", raw: raw, extra: extra} }
func hxS2C(raw, extra string) hxFrame { return hxFrame{dir: "s2c", raw: raw, extra: extra} }

// onStdio returns the frame moved to the stdio transport.
func (f hxFrame) onStdio() hxFrame { f.stdio = true; return f }

// hxLog numbers the frames from seq 1 in session "s".
func hxLog(frames ...hxFrame) string {
	var b strings.Builder
	for i, f := range frames {
		transport := "http"
		if f.stdio {
			transport = "stdio"
		}
		extra := ""
		if f.extra != "" {
			extra = "," + f.extra
		}
		fmt.Fprintf(&b, `{"session_id":"s","server_label":"srv","seq":%d,"ts":"2026-07-28T12:00:00.%03dZ","direction":%q,"transport":%q,"raw":%s%s}`+"\n",
			i+1, i+1, f.dir, transport, f.raw, extra)
	}
	return b.String()
}

// hxFindings runs the default check and keeps the error, warn and mismatch
// findings.
func hxFindings(t *testing.T, frames ...hxFrame) []string {
	t.Helper()
	rep := check(t, checker.Config{}, hxLog(frames...))
	var out []string
	for _, m := range messages(rep) {
		for _, rule := range []string{" mcpsnoop/error ", " mcpsnoop/warn ", " mcpsnoop/mismatch "} {
			if strings.Contains(m, rule) {
				out = append(out, m)
			}
		}
	}
	return out
}

// hxWarn is the warn finding of frame n; hxMismatch the mismatch finding
// that goes with it.
func hxWarn(n int, text string) string {
	return fmt.Sprintf("error mcpsnoop/warn session s line %d: %s", n, text)
}

func hxMismatch(n int, text string) string {
	return fmt.Sprintf("note mcpsnoop/mismatch session s line %d: routing header mismatch: %s", n, text)
}

// hxBoth is a header-derived mismatch: the warning and the mismatch.
func hxBoth(n int, text string) []string { return []string{hxWarn(n, text), hxMismatch(n, text)} }

func hxJoin(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

const (
	hxMeta26     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	hxMeta25     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}`
	hxOK         = `{"resultType":"complete","content":[]}`
	hxPingHeader = `"mcp_protocol_version":"2026-07-28","mcp_method":"ping"`
)

// hxHeaders are the three routing headers of a 2026-07-28 request.
func hxHeaders(method, name string) string {
	h := `"mcp_protocol_version":"2026-07-28","mcp_method":"` + method + `"`
	if name != "" {
		h += `,"mcp_name":"` + name + `"`
	}
	return h
}

// hxCall is a 2026-07-28 tools/call of name with the given arguments.
func hxCall(id, name, args string) string {
	return rpcRequest(id, "tools/call", `{"name":"`+name+`","arguments":`+args+`,`+hxMeta26+`}`)
}

type hxCase struct {
	name   string
	frames []hxFrame
	want   []string
}

func runHxCases(t *testing.T, cases []hxCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sameLines(t, "findings", hxFindings(t, tc.frames...), tc.want)
		})
	}
}

func TestRoutingHeaderRules(t *testing.T) {
	ping26 := rpcRequest("1", "ping", `{`+hxMeta26+`}`)
	call := hxCall("1", "echo", `{}`)
	runHxCases(t, []hxCase{
		{
			name:   "W36 routing header on a batch element",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{}`), `"mcp_method":"ping","batch":true`)},
			want:   hxBoth(1, "routing headers are invalid on a JSON-RPC batch"),
		},
		{
			name:   "W36 Mcp-Name alone on a batch element",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{}`), `"mcp_name":"x","batch":true`)},
			want:   hxBoth(1, "routing headers are invalid on a JSON-RPC batch"),
		},
		{
			name:   "W36 no routing header on a batch element is fine",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{}`), `"mcp_protocol_version":"2026-07-28","batch":true`)},
		},
		{
			name:   "W37 Mcp-Method disagrees",
			frames: []hxFrame{hxC2S(ping26, `"mcp_protocol_version":"2026-07-28","mcp_method":"tools/list"`)},
			want:   hxBoth(1, "routing header Mcp-Method tools/list disagrees with body method ping"),
		},
		{
			name:   "W37 agreeing Mcp-Method",
			frames: []hxFrame{hxC2S(ping26, hxPingHeader)},
		},
		{
			name:   "W37 redacted header on a redacted frame is not compared",
			frames: []hxFrame{hxC2S(ping26, `"mcp_protocol_version":"2026-07-28","mcp_method":"[REDACTED]","redacted":true`)},
		},
		{
			name:   "W37 the placeholder on a frame mcpsnoop did not redact is compared",
			frames: []hxFrame{hxC2S(ping26, `"mcp_protocol_version":"2026-07-28","mcp_method":"[REDACTED]"`)},
			want:   hxBoth(1, "routing header Mcp-Method [REDACTED] disagrees with body method ping"),
		},
		{
			name:   "W38 Mcp-Name disagrees",
			frames: []hxFrame{hxC2S(call, hxHeaders("tools/call", "delete_everything"))},
			want:   hxBoth(1, `routing header Mcp-Name "delete_everything" disagrees with body name "echo"`),
		},
		{
			name:   "W38 Base64 sentinel, padded",
			frames: []hxFrame{hxC2S(call, hxHeaders("tools/call", "=?base64?ZWNobw==?="))},
		},
		{
			name:   "W38 Base64 sentinel, unpadded",
			frames: []hxFrame{hxC2S(call, hxHeaders("tools/call", "=?base64?ZWNobw?="))},
		},
		{
			name:   "W38 Base64 sentinel decoded once, compared with the decoded text",
			frames: []hxFrame{hxC2S(hxCall("1", "Hello, 世界", `{}`), hxHeaders("tools/call", "=?base64?SGVsbG8sIOS4lueVjA==?="))},
		},
		{
			name:   "W38 Base64 that disagrees is quoted decoded",
			frames: []hxFrame{hxC2S(call, hxHeaders("tools/call", "=?base64?ZWNobzI=?="))},
			want:   hxBoth(1, `routing header Mcp-Name "echo2" disagrees with body name "echo"`),
		},
		{
			name:   "W38 sentinel markers are case-sensitive",
			frames: []hxFrame{hxC2S(call, hxHeaders("tools/call", "=?BASE64?ZWNobw==?="))},
			want:   hxBoth(1, `routing header Mcp-Name "=?BASE64?ZWNobw==?=" disagrees with body name "echo"`),
		},
		{
			name: "W38 resources/read compares params.uri",
			frames: []hxFrame{hxC2S(rpcRequest("1", "resources/read", `{"uri":"file:///a",`+hxMeta26+`}`),
				hxHeaders("resources/read", "file:///b"))},
			want: hxBoth(1, `routing header Mcp-Name "file:///b" disagrees with body name "file:///a"`),
		},
		{
			name:   "W38 a method without an operation name is not compared",
			frames: []hxFrame{hxC2S(ping26, hxPingHeader+`,"mcp_name":"whatever"`)},
		},
		{
			name:   "W38 redacted body name on a redacted frame is not compared",
			frames: []hxFrame{hxC2S(hxCall("1", "[REDACTED]", `{}`), hxHeaders("tools/call", "secret")+`,"redacted":true`)},
		},
		{
			name:   "W39 protocol-version header disagrees with _meta",
			frames: []hxFrame{hxC2S(ping26, `"mcp_protocol_version":"2025-11-25","mcp_method":"ping"`)},
			want:   hxBoth(1, "MCP-Protocol-Version header 2025-11-25 disagrees with _meta protocolVersion 2026-07-28"),
		},
		{
			name:   "W39 redacted header on a redacted frame is not compared",
			frames: []hxFrame{hxC2S(ping26, `"mcp_protocol_version":"[REDACTED]","mcp_method":"ping","redacted":true`)},
		},
		{
			name:   "W40 every required header missing on tools/call",
			frames: []hxFrame{hxC2S(call, "")},
			want: hxBoth(1, "required routing header MCP-Protocol-Version is missing, required routing header Mcp-Method is missing, "+
				"required routing header Mcp-Name is missing"),
		},
		{
			name:   "W40 Mcp-Name is required on prompts/get",
			frames: []hxFrame{hxC2S(rpcRequest("1", "prompts/get", `{"name":"p",`+hxMeta26+`}`), hxHeaders("prompts/get", ""))},
			want:   hxBoth(1, "required routing header Mcp-Name is missing"),
		},
		{
			name:   "W40 Mcp-Name is not required on ping",
			frames: []hxFrame{hxC2S(ping26, hxPingHeader)},
		},
		{
			name:   "W40 the header alone declares the revision",
			frames: []hxFrame{hxC2S(rpcRequest("1", "tools/call", `{"name":"echo","_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`), `"mcp_protocol_version":"2026-07-28"`)},
			want: hxBoth(1, "required routing header Mcp-Method is missing, required routing header Mcp-Name is missing, "+
				"request _meta is missing required io.modelcontextprotocol/protocolVersion"),
		},
		{
			name:   "W40 not on stdio",
			frames: []hxFrame{hxC2S(call, "").onStdio()},
		},
		{
			name:   "W40 not on a legacy request",
			frames: []hxFrame{hxC2S(rpcRequest("1", "tools/call", `{"name":"echo",`+hxMeta25+`}`), "")},
		},
		{
			name:   "W40 not on a request that declares nothing",
			frames: []hxFrame{hxC2S(toolCall("1", "echo", ""), "")},
		},
		{
			name:   "W40 not on a batch element",
			frames: []hxFrame{hxC2S(call, `"batch":true`)},
		},
		{
			name:   "W40 not on a notification",
			frames: []hxFrame{hxC2S(`{"jsonrpc":"2.0","method":"notifications/progress","params":{`+hxMeta26+`}}`, "")},
		},
		{
			name: "-32020 from the server is a mismatch and an error, not a warning",
			frames: []hxFrame{
				hxC2S(call, hxHeaders("tools/call", "echo")),
				hxS2C(rpcError("1", -32020, "header mismatch"), `"status":400`),
			},
			want: []string{
				"error mcpsnoop/error session s line 2: tools/call echo (id 1) ended in an error: header mismatch (code -32020)",
				"note mcpsnoop/mismatch session s line 2: the server answered -32020 (HeaderMismatch), yet the request's routing headers, as recorded, agree with its body",
			},
		},
		{
			name: "another error code is no mismatch",
			frames: []hxFrame{
				hxC2S(call, hxHeaders("tools/call", "echo")),
				hxS2C(rpcError("1", -32021, "nope"), `"status":400`),
			},
			want: []string{"error mcpsnoop/error session s line 2: tools/call echo (id 1) ended in an error: nope (code -32021)"},
		},
	})
}

func TestMismatchCounter(t *testing.T) {
	rep := check(t, checker.Config{}, hxLog(
		hxC2S(hxCall("1", "echo", `{}`), hxHeaders("tools/call", "other")),
		hxS2C(rpcResult("1", hxOK), ""),
		hxC2S(hxCall("2", "echo", `{}`), hxHeaders("tools/call", "echo")),
		hxS2C(rpcError("2", -32020, "header mismatch"), `"status":400`),
	))
	got := onlySession(t, rep).Counters
	want := checker.Counters{Errors: 1, Warnings: 2, Mismatches: 2} // the request's W38 and the result's W53
	if got != want {
		t.Errorf("counters = %+v, want %+v", got, want)
	}
	gate, _ := checker.ParseFailOn("mismatch")
	if rep := check(t, checker.Config{FailOn: gate}, hxLog(hxC2S(hxCall("1", "echo", `{}`), ""))); rep.Verdict != checker.Failed {
		t.Errorf("--fail-on mismatch verdict = %s, want failed", rep.Verdict)
	}
}

func TestStatelessDirectionRules(t *testing.T) {
	declare := hxC2S(rpcRequest("1", "ping", `{`+hxMeta26+`}`), "").onStdio()
	answer := hxS2C(rpcResult("1", `{"resultType":"complete"}`), "").onStdio()
	serverReq := hxS2C(rpcRequest("50", "roots/list", `{}`), "").onStdio()
	clientResp := hxC2S(rpcResult("50", `{"roots":[]}`), "").onStdio()
	runHxCases(t, []hxCase{
		{
			name:   "W41 and W42 once the session is stateless",
			frames: []hxFrame{declare, answer, serverReq, clientResp},
			want: []string{
				hxWarn(3, `server sent a JSON-RPC request "roots/list", which 2026-07-28 replaced with the MRTR pattern`),
				hxWarn(4, "client sent a JSON-RPC response, which 2026-07-28 no longer defines"),
			},
		},
		{
			name:   "before any request declared 2026-07-28 the session is not stateless",
			frames: []hxFrame{serverReq, clientResp, declare, answer},
		},
		{
			name: "a legacy session is never stateless",
			frames: []hxFrame{
				hxC2S(rpcRequest("1", "ping", `{`+hxMeta25+`}`), "").onStdio(), answer, serverReq, clientResp,
			},
		},
		{
			name: "a declaring batch element does not make the session stateless",
			frames: []hxFrame{
				hxC2S(rpcRequest("1", "ping", `{`+hxMeta26+`}`), `"batch":true`), hxS2C(rpcResult("1", `{"resultType":"complete"}`), ""),
				hxS2C(rpcRequest("50", "roots/list", `{}`), ""),
			},
		},
		{
			name: "W41 skips a server request inside a batch",
			frames: []hxFrame{declare, answer,
				hxS2C(rpcRequest("50", "roots/list", `{}`), `"batch":true`).onStdio()},
		},
		{
			name:   "server notifications are fine",
			frames: []hxFrame{declare, answer, hxS2C(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`, "").onStdio()},
		},
	})
}

func TestRequestMetaRules(t *testing.T) {
	runHxCases(t, []hxCase{
		{
			name:   "W43 clientCapabilities missing",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), "").onStdio()},
			want:   []string{hxWarn(1, "request _meta is missing required io.modelcontextprotocol/clientCapabilities")},
		},
		{
			name:   "W43 clientCapabilities null declares nothing",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}`), "").onStdio()},
			want:   []string{hxWarn(1, "request _meta is missing required io.modelcontextprotocol/clientCapabilities")},
		},
		{
			name:   "W43 empty clientCapabilities is fine",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{`+hxMeta26+`}`), "").onStdio()},
		},
		{
			name:   "W43 and W44 when only the header declares the revision",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{}`), hxPingHeader)},
			want: []string{hxWarn(1, "request _meta is missing required io.modelcontextprotocol/clientCapabilities, "+
				"request _meta is missing required io.modelcontextprotocol/protocolVersion")},
		},
		{
			name:   "legacy revision: no meta rules",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{`+hxMeta25+`}`), "").onStdio()},
		},
		{
			name:   "legacy header: no meta rules",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{}`), `"mcp_protocol_version":"2025-11-25","mcp_method":"ping"`)},
		},
		{
			name:   "not on notifications",
			frames: []hxFrame{hxC2S(`{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "").onStdio()},
		},
		{
			name:   "not on a batch element",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), `"batch":true`)},
		},
		{
			name:   "not on server requests",
			frames: []hxFrame{hxS2C(rpcRequest("1", "ping", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), "").onStdio()},
		},
	})
}
