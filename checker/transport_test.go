package checker_test

import (
	"strconv"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestTransportHeaderRules(t *testing.T) {
	// A legacy ping, so that no revision-gated rule has anything to say.
	ping := rpcRequest("1", "ping", `{}`)
	pong := rpcResult("1", `{}`)
	accept := func(v string) string { return `"accept":` + strconv.Quote(v) }
	contentType := func(v string) string { return `"content_type":` + strconv.Quote(v) }
	acceptWarn := func(n int, v string) []string {
		return []string{hxWarn(n, "request Accept "+strconv.Quote(v)+
			" does not offer both application/json and text/event-stream, which Streamable HTTP requires")}
	}
	typeWarn := func(n int, v string) []string {
		return []string{hxWarn(n, "response Content-Type "+strconv.Quote(v)+
			" is neither application/json nor text/event-stream, which Streamable HTTP requires for a JSON-RPC body")}
	}
	cases := []hxCase{
		{name: "Accept lists both", frames: []hxFrame{hxC2S(ping, accept("application/json, text/event-stream"))}},
		// Wildcards do not list the two types: the TS SDK's servers answer a
		// wildcard-only Accept with 406.
		{name: "Accept */* lists neither", frames: []hxFrame{hxC2S(ping, accept("*/*"))}, want: acceptWarn(1, "*/*")},
		{name: "Accept wildcards by type list neither", frames: []hxFrame{hxC2S(ping, accept("application/*;q=0.9,text/*"))},
			want: acceptWarn(1, "application/*;q=0.9,text/*")},
		{name: "Accept with both and a wildcard", frames: []hxFrame{hxC2S(ping, accept("application/json, text/event-stream, */*"))}},
		{name: "Accept parameters and case ignored", frames: []hxFrame{hxC2S(ping, accept("Application/JSON; charset=utf-8 ,TEXT/Event-Stream;q=0.5"))}},
		{name: "Accept not recorded is silent", frames: []hxFrame{hxC2S(ping, "")}},
		{
			name:   "Accept without text/event-stream",
			frames: []hxFrame{hxC2S(ping, accept("application/json"))},
			want:   acceptWarn(1, "application/json"),
		},
		{
			name:   "Accept without application/json",
			frames: []hxFrame{hxC2S(ping, accept("text/event-stream, text/html"))},
			want:   acceptWarn(1, "text/event-stream, text/html"),
		},
		{
			name:   "Accept on a client notification",
			frames: []hxFrame{hxC2S(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, accept("text/plain"))},
			want:   acceptWarn(1, "text/plain"),
		},
		{
			name: "the rule is not revision-gated and joins the other warnings last",
			frames: []hxFrame{hxC2S(rpcRequest("1", "ping", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`),
				hxPingHeader+","+accept("application/json"))},
			want: []string{hxWarn(1, "request _meta is missing required io.modelcontextprotocol/clientCapabilities, request Accept \"application/json\""+
				" does not offer both application/json and text/event-stream, which Streamable HTTP requires")},
		},
		{name: "Accept on stdio is ignored", frames: []hxFrame{hxC2S(ping, accept("text/plain")).onStdio()}},
		{name: "Accept on a response is not judged", frames: []hxFrame{hxC2S(ping, ""), hxS2C(pong, accept("text/plain"))}},
		{name: "Content-Type JSON", frames: []hxFrame{hxC2S(ping, ""), hxS2C(pong, contentType("application/json"))}},
		{name: "Content-Type SSE with charset", frames: []hxFrame{hxC2S(ping, ""), hxS2C(pong, contentType("Text/Event-Stream; charset=utf-8"))}},
		{name: "Content-Type not recorded is silent", frames: []hxFrame{hxC2S(ping, ""), hxS2C(pong, "")}},
		{
			name:   "Content-Type of another kind",
			frames: []hxFrame{hxC2S(ping, ""), hxS2C(pong, contentType("text/html; charset=utf-8"))},
			want:   typeWarn(2, "text/html; charset=utf-8"),
		},
		{
			name:   "Content-Type wildcard is not a type",
			frames: []hxFrame{hxC2S(ping, ""), hxS2C(pong, contentType("application/*"))},
			want:   typeWarn(2, "application/*"),
		},
		{
			name: "Content-Type on an s2c notification",
			frames: []hxFrame{hxS2C(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
				contentType("text/plain"))},
			want: typeWarn(1, "text/plain"),
		},
		{name: "Content-Type on stdio is ignored", frames: []hxFrame{hxC2S(ping, "").onStdio(), hxS2C(pong, contentType("text/plain")).onStdio()}},
		{name: "Content-Type of a request is not judged", frames: []hxFrame{hxC2S(ping, contentType("text/plain"))}},
	}
	runHxCases(t, cases)

	// A non-JSON-RPC body is the transport frame rules' business, not this
	// rule's: an HTML error page is an error, not a Content-Type warning.
	t.Run("a body that is not JSON-RPC is not judged", func(t *testing.T) {
		log := hxLog(hxC2S(ping, "")) +
			`{"session_id":"s","seq":2,"direction":"s2c","transport":"http","status":502,"text":"<html>bad gateway</html>","content_type":"text/html"}` + "\n"
		got := messages(check(t, checker.Config{}, log))
		want := []string{
			"note mcpsnoop/pending session s line 1: ping (id 1) never got a response",
			"error mcpsnoop/error session s line 2: the transport failed with HTTP 502",
		}
		sameLines(t, "findings", got, want)
	})
}
