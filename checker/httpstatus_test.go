package checker_test

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestHTTPStatuses: how an HTTP failure without a JSON-RPC answer is
// judged. The spec lets a server answer GET and DELETE with 405; a 401 is
// half an authorization; a failed POST of notifications is a warning; the
// rest stay errors.
func TestHTTPStatuses(t *testing.T) {
	gates, _ := checker.ParseFailOn("error,invalid,warn,pending")
	post := func(raw string) pf {
		return pf{"c2s", `"raw":` + raw + `,"http_method":"POST","http_path":"/mcp","conn_id":"c1"`}
	}
	status := func(members string) pf { return pf{"s2c", members + `,"http_path":"/mcp","conn_id":"c1"`} }
	const challenge = `Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\"`
	tests := []struct {
		name   string
		frames []pf
		want   []string
	}{
		{"405 to GET and DELETE is the transport spec's answer",
			[]pf{status(`"status":405,"http_method":"GET"`), status(`"status":405,"http_method":"DELETE"`)}, nil},
		{"a status-only 405 of an older log, naming nothing, answered a GET or DELETE",
			[]pf{{"s2c", `"status":405`}}, nil},
		{"404 to GET is W58, not a failed call",
			[]pf{status(`"status":404,"http_method":"GET"`)},
			[]string{"warn server GET answered with HTTP 404, neither an SSE stream nor 405"}},
		{"403 to GET (an Origin refused) is exempt", []pf{status(`"status":403,"http_method":"GET"`)}, nil},
		{"404 to GET once a DELETE ended the session is exempt",
			[]pf{status(`"status":200,"http_method":"DELETE"`), status(`"status":404,"http_method":"GET"`)}, nil},
		{"an open event stream is the answer a GET wants",
			[]pf{status(`"status":200,"http_method":"GET","content_type":"text/event-stream"`)}, nil},
		{"JSON answering a GET is W58",
			[]pf{status(`"status":200,"http_method":"GET","content_type":"application/json","raw":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)},
			[]string{
				`warn server GET answered with HTTP 200 with Content-Type "application/json", neither an SSE stream nor 405`,
				"deprecated server logging notifications/message is deprecated (2026-07-28); use stderr for stdio or OpenTelemetry instead",
			}},
		{"405 to a POST that carried a request stays an error",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":405,"http_method":"POST","reply_to":1`)},
			[]string{"error server the transport failed with HTTP 405"}},
		{"500 to a tools/call stays an error",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":500,"http_method":"POST","reply_to":1`)},
			[]string{"error server the transport failed with HTTP 500"}},
		{"a failed POST of a notification is a warning",
			[]pf{post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), status(`"status":400,"http_method":"POST"`)},
			[]string{"warn server HTTP 400 answered a POST that carried only notifications or responses"}},
		{"a failed POST of a batch holding a request stays an error",
			[]pf{{"c2s", `"raw":` + toolCall("1", "echo", "") + `,"batch":true,"http_method":"POST","conn_id":"c1"`},
				{"c2s", `"raw":{"jsonrpc":"2.0","method":"notifications/initialized"},"batch":true,"http_method":"POST","conn_id":"c1"`},
				status(`"status":400,"http_method":"POST"`)},
			[]string{"pending server tools/call echo (id 1) never got a response", "error server the transport failed with HTTP 400"}},
		{"a 401 the same call later got through is no error",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":401,"http_method":"POST","reply_to":1,"auth_challenge":"` + challenge + `"`),
				post(toolCall("2", "echo", "")), status(`"status":200,"http_method":"POST","raw":` + rpcResult("2", `{"content":[]}`))},
			nil},
		{"an RFC 6750 error body is no JSON-RPC message",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":401,"http_method":"POST","reply_to":1,"raw":{"error":"invalid_token"}`),
				post(toolCall("2", "echo", "")), status(`"status":200,"http_method":"POST","raw":` + rpcResult("2", `{"content":[]}`))},
			nil},
		{"a 401 never followed by success is the client's error, quoting the challenge",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":401,"http_method":"POST","reply_to":1,"auth_challenge":"` + challenge + `"`)},
			[]string{`error client the transport failed with HTTP 401 and no later request of tools/call "echo" got through (challenge: Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource")`}},
		{"another tool's success does not settle a 401",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":401,"http_method":"POST","reply_to":1`),
				post(toolCall("2", "other", "")), status(`"status":200,"http_method":"POST","raw":` + rpcResult("2", `{"content":[]}`))},
			[]string{`error client the transport failed with HTTP 401 and no later request of tools/call "echo" got through`}},
		{"a GET's 401 is settled by a later exchange that gets through",
			[]pf{status(`"status":401,"http_method":"GET"`), status(`"status":200,"http_method":"GET"`)},
			nil},
		{"a 401 whose retry got through to a JSON-RPC error is settled; the error is judged on its own",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":401,"http_method":"POST","reply_to":1`),
				post(toolCall("2", "echo", "")), status(`"status":400,"http_method":"POST","raw":{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Unsupported protocol version"}}`)},
			[]string{`error server tools/call echo (id 2) ended in an error: Unsupported protocol version (code -32000)`}},
		{"a retry refused with 401 again, a JSON-RPC error in its body, settles nothing",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":401,"http_method":"POST","reply_to":1`),
				post(toolCall("2", "echo", "")), status(`"status":401,"http_method":"POST","raw":{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Unauthorized"}}`)},
			[]string{
				`error client the transport failed with HTTP 401 and no later request of tools/call "echo" got through`,
				`error server tools/call echo (id 2) ended in an error: Unauthorized (code -32001)`,
			}},
		{"a 404 to a request on a session the client ended (DELETE) is the client's",
			[]pf{status(`"status":204,"http_method":"DELETE"`), post(toolCall("1", "echo", "")), status(`"status":404,"http_method":"POST","reply_to":1,"text":"session not found"`)},
			[]string{"error client the transport failed with HTTP 404"}},
		{"a 404 to a request of a session never ended stays the server's",
			[]pf{post(toolCall("1", "echo", "")), status(`"status":404,"http_method":"POST","reply_to":1,"text":"session not found"`)},
			[]string{"error server the transport failed with HTTP 404"}},
		{"an id-less parse error answering a GET is the server's: a GET carries no request",
			[]pf{status(`"status":400,"http_method":"GET","raw":{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)},
			[]string{"error server error response could not be matched to a call: response id has no matching request", "warn server response id has no matching request"}},
		{"an id-less parse error answering a POST is the client's unreadable request",
			[]pf{{"c2s", `"text":"{\"jsonrpc\":","http_method":"POST","http_path":"/mcp","conn_id":"c1"`}, status(`"status":400,"http_method":"POST","raw":{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)},
			[]string{"invalid client frame on the protocol channel is not valid JSON-RPC",
				"error client error response could not be matched to a call: response id has no matching request", "warn server response id has no matching request"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, checker.Config{FailOn: gates}, partyLog("http", tc.frames...))
			sameLines(t, "findings", partyLines(rep), tc.want)
		})
	}
}

// TestEmptyEventStream: W55, an event stream answering a request that ends
// without an event. The call is settled, not left pending.
func TestEmptyEventStream(t *testing.T) {
	gates, _ := checker.ParseFailOn("error,invalid,warn,pending")
	log := partyLog("http",
		pf{"c2s", `"raw":` + toolCall("4", "slow", "") + `,"http_method":"POST","conn_id":"c1"`},
		pf{"s2c", `"status":200,"content_type":"text/event-stream","stream_empty":true,"reply_to":4,"http_method":"POST","conn_id":"c1"`},
		pf{"c2s", `"raw":` + toolCall("5", "slow", "") + `,"http_method":"POST","conn_id":"c1"`},
		pf{"s2c", `"status":200,"raw":` + rpcResult("5", `{"content":[]}`) + `,"http_method":"POST","conn_id":"c1"`},
		pf{"s2c", `"status":200,"content_type":"text/event-stream","stream_empty":true,"reply_to":5,"http_method":"POST","conn_id":"c1"`})
	rep := check(t, checker.Config{FailOn: gates}, log)
	sameLines(t, "findings", partyLines(rep), []string{
		"warn server the event stream answering tools/call slow (id 4) ended without an event, so the request can never be answered",
	})
	if s := rep.Sessions[0]; s.Counters.Pending != 0 || s.Counters.Errors != 0 {
		t.Errorf("pending %d errors %d, want 0 and 0", s.Counters.Pending, s.Counters.Errors)
	}
}

// TestLegacySSETransport: the deprecated HTTP+SSE transport's endpoint
// event is a deprecation, not stray output.
func TestLegacySSETransport(t *testing.T) {
	log := partyLog("http",
		pf{"s2c", `"status":200,"content_type":"text/event-stream","text":"/messages?sessionId=9f2c","http_method":"GET","http_path":"/sse"`},
		pf{"c2s", `"raw":` + toolCall("1", "echo", "") + `,"http_method":"POST","http_path":"/messages"`},
		pf{"s2c", `"status":200,"content_type":"text/event-stream","raw":` + rpcResult("1", `{"content":[]}`) + `,"http_method":"GET","http_path":"/sse"`},
		pf{"s2c", `"status":200,"content_type":"text/event-stream","text":"not a uri","http_method":"GET","http_path":"/sse"`})
	rep := check(t, checker.Config{}, log)
	sameLines(t, "findings", partyLines(rep), []string{
		"deprecated server the HTTP+SSE transport is deprecated (2025-03-26); use Streamable HTTP (earliest removal: three months after SEP-2596 reaches Final)",
		"invalid server frame on the protocol channel is not valid JSON-RPC",
	})
}

// TestOffEndpointExchanges: a client's OAuth flow on other paths of the
// MCP server's origin (metadata, registration, authorization, token), as
// the HTTP proxy records it with http_path, holds no MCP frame to judge.
// The endpoint's own frames are judged as ever, and so is every frame of an
// older log, which names no path.
func TestOffEndpointExchanges(t *testing.T) {
	gates, _ := checker.ParseFailOn("error,invalid,warn,pending")
	at := func(dir, method, path, members string) pf {
		return pf{dir, members + `,"http_method":"` + method + `","http_path":"` + path + `","conn_id":"c1"`}
	}
	const page = `"text":"<!DOCTYPE html><title>Error</title><pre>Cannot GET</pre>","content_type":"text/html"`
	oauth := []pf{
		at("s2c", "GET", "/.well-known/oauth-protected-resource/mcp", `"status":200,"raw":{"resource":"http://127.0.0.1/mcp","authorization_servers":["http://127.0.0.1"]}`),
		at("s2c", "GET", "/.well-known/oauth-authorization-server", `"status":404,`+page),
		at("c2s", "POST", "/register", `"raw":{"redirect_uris":["http://localhost:3000/callback"]}`),
		at("s2c", "POST", "/register", `"status":201,"raw":{"client_id":"c","redirect_uris":["http://localhost:3000/callback"]}`),
		at("s2c", "GET", "/authorize", `"status":302,"text":"Found. Redirecting to http://localhost:3000/callback?code=x"`),
		at("c2s", "POST", "/token", `"text":"grant_type=authorization_code&code=x"`),
		at("s2c", "POST", "/token", `"status":200,"raw":{"access_token":"t","token_type":"Bearer"}`),
	}
	call := func(id string) []pf {
		return []pf{at("c2s", "POST", "/mcp", `"raw":`+toolCall(id, "echo", "")), at("s2c", "POST", "/mcp", `"status":200,"raw":`+rpcResult(id, `{"content":[]}`))}
	}
	var flow []pf
	flow = append(flow, at("c2s", "POST", "/mcp", `"raw":`+toolCall("1", "echo", "")), at("s2c", "POST", "/mcp", `"status":401,"reply_to":1,"raw":{"error":"invalid_token"}`))
	flow = append(append(flow, oauth...), call("2")...)
	olderLog := []pf{{"c2s", `"raw":{"redirect_uris":["http://localhost:3000/callback"]}`}}
	tests := []struct {
		name   string
		frames []pf
		want   []string
	}{
		{"an OAuth flow beside the endpoint, then the call gets through", flow, nil},
		{"a well-known URI before any JSON-RPC frame", append(oauth[:2:2], call("1")...), nil},
		{"no JSON-RPC on the endpoint's own path is still invalid",
			append(call("1"), at("c2s", "POST", "/mcp", `"raw":{"redirect_uris":[]}`)),
			[]string{"invalid client frame on the protocol channel is not valid JSON-RPC"}},
		{"an older log names no path: every frame is judged", olderLog,
			[]string{"invalid client frame on the protocol channel is not valid JSON-RPC"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, checker.Config{FailOn: gates}, partyLog("http", tc.frames...))
			sameLines(t, "findings", partyLines(rep), tc.want)
		})
	}
}
