package mock

import (
	"strings"
	"testing"
)

// A request with no recorded match, in each mode: -32601 when no recorded
// request has its method, -32602 when one does, the message naming the
// closest recorded request; the engine counts it. What does match is
// answered with the recorded result.
func TestUnmatchedInEachMode(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	for _, tc := range []struct {
		mode    Mode
		send    string
		code    int
		message string // in the error's message
	}{
		{MethodParams, `{"jsonrpc":"2.0","id":2,"method":"tools/frob","params":{}}`, codeMethodNotFound, "the recording holds no tools/frob request; the closest recorded request is tools/list at line"},
		{MethodParams, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"other"}}}`, codeInvalidParams, `no recorded tools/call request has these params; the closest recorded request is tools/call "echo" at line 13`},
		{Exact, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from mcpsnoop"},"_meta":{"progressToken":9}}}`, codeInvalidParams, `exactly these params (_meta included); the closest recorded request is tools/call "echo"`},
		{Exact, `{"jsonrpc":"2.0","id":2,"method":"prompts/lisst"}`, codeMethodNotFound, "the recording holds no prompts/lisst request; the closest recorded request is prompts/list"},
		{Sequential, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from mcpsnoop"}}}`, codeInvalidParams, "tools/call is not the next request in the recording (that is tools/list at line 8)"},
		{Sequential, `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{}}`, codeMethodNotFound, "the recording holds no completion/complete request"},
	} {
		t.Run(tc.mode.String()+" "+tc.message[:20], func(t *testing.T) {
			e := New(load(t, everything), Options{Mode: tc.mode})
			r := startStdio(t, e, nil)
			c := newRawClient(t, r)
			if a := c.call(init); a["result"] == nil {
				t.Fatalf("initialize: %s", a["error"])
			}
			code, msg := errorCode(t, c.call(tc.send))
			if code != tc.code || !strings.Contains(msg, tc.message) {
				t.Errorf("got %d %q\nwant %d containing %q", code, msg, tc.code, tc.message)
			}
			if u := e.Unmatched(); len(u) != 1 {
				t.Errorf("unmatched %q, want the one", u)
			}
			r.clientOut.Close()
			r.wait(t)
		})
	}
}

// What matches in each mode: method-params ignores _meta, key order and
// the id, and answers a repeated request again; sequential follows the
// recorded order whatever the params; exact needs _meta as recorded.
func TestMatchingModes(t *testing.T) {
	rec := load(t, everything)
	echo := `{"name":"echo","arguments":{"message":"hello from mcpsnoop"}}`
	echoOtherOrder := `{"arguments":{"message":"hello from mcpsnoop"},"_meta":{"progressToken":"x"},"name":"echo"}`
	for _, tc := range []struct {
		mode   Mode
		method string
		params string
		want   string // the recorded exchange's Describe, "" for a miss
	}{
		{MethodParams, "tools/call", echoOtherOrder, `tools/call "echo" at line 13`},
		{MethodParams, "tools/list", `{}`, "tools/list at line 8"},
		{MethodParams, "tools/list", ``, "tools/list at line 8"},
		{Exact, "tools/call", echo, `tools/call "echo" at line 13`},
		{Exact, "tools/call", echoOtherOrder, ""},
		{Sequential, "tools/list", `{"cursor":"anything"}`, "tools/list at line 8"},
		{Sequential, "tools/call", echo, ""},
		{Sequential, "initialize", `{}`, "initialize at line 5"},
	} {
		m := newMatcher(rec, tc.mode)
		var params []byte
		if tc.params != "" {
			params = []byte(tc.params)
		}
		x, miss := m.match(tc.method, params)
		got := ""
		if miss == nil {
			got = x.Describe()
		}
		if got != tc.want {
			t.Errorf("%s %s %s: matched %q, want %q", tc.mode, tc.method, tc.params, got, tc.want)
		}
	}
	// Repeats: method-params answers the same request again; sequential
	// moves on (and tools/list comes once in the recording).
	m := newMatcher(rec, MethodParams)
	for i := 0; i < 2; i++ {
		if _, miss := m.match("tools/list", nil); miss != nil {
			t.Errorf("method-params, tools/list #%d: %s", i+1, miss.Message)
		}
	}
	m = newMatcher(rec, Sequential)
	if _, miss := m.match("tools/list", nil); miss != nil {
		t.Fatal(miss.Message)
	}
	if _, miss := m.match("tools/list", nil); miss == nil {
		t.Error("sequential: a second tools/list matched; the recording has one")
	}
}

// Requests sent together are answered in the order they came, a miss
// among them too.
func TestAnswersInOrder(t *testing.T) {
	e := New(load(t, everything), Options{})
	r := startStdio(t, e, nil)
	c := newRawClient(t, r)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/frob"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":2,"b":3}}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`)
	var ids []string
	for len(ids) < 4 {
		if m := c.next(); m["method"] == nil {
			ids = append(ids, string(m["id"]))
		}
	}
	if strings.Join(ids, ",") != "1,2,3,4" {
		t.Errorf("answers in the order %s, want 1,2,3,4", ids)
	}
	r.clientOut.Close()
	r.wait(t)
}
