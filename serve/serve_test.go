package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAnswerMode(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   mode
	}{
		{"application/json, text/event-stream", modeSSE},
		{"text/event-stream", modeSSE},
		{"application/json", modeJSON},
		{"", modeJSON},
		{"*/*", modeJSON},
		{"text/event-stream;q=0, application/json", modeJSON},
		{"text/html", modeNone},
		{"application/json;q=0", modeNone},
	} {
		if got := answerMode(tc.accept); got != tc.want {
			t.Errorf("answerMode(%q) = %d, want %d", tc.accept, got, tc.want)
		}
	}
}

func TestModernRequest(t *testing.T) {
	for _, tc := range []struct {
		name, header, body string
		want               bool
	}{
		{"meta", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, true},
		{"header only", "2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true},
		{"legacy header", "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{"meta wins", "2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`, false},
		{"initialize", "2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, false},
		{"initialize declaring 2026", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, true},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if tc.header != "" {
			r.Header.Set(headerProtocolVersion, tc.header)
		}
		if got := modernRequest(r, parseMessage([]byte(tc.body))); got != tc.want {
			t.Errorf("%s: modern = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckModernHeaders(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"héllo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	good := map[string]string{headerProtocolVersion: "2026-07-28", headerMethod: "tools/call", headerName: "=?base64?aMOpbGxv?="}
	for _, tc := range []struct {
		name   string
		change map[string]string
		body   string
		code   int
	}{
		{"good", nil, call, 0},
		{"no version header", map[string]string{headerProtocolVersion: ""}, call, codeHeaderMismatch},
		{"version mismatch", map[string]string{headerProtocolVersion: "2026-08-01"}, call, codeHeaderMismatch},
		{"no meta version", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"héllo"}}`, codeInvalidParams},
		{"method mismatch", map[string]string{headerMethod: "tools/list"}, call, codeHeaderMismatch},
		{"no method", map[string]string{headerMethod: ""}, call, codeHeaderMismatch},
		{"name mismatch", map[string]string{headerName: "hello"}, call, codeHeaderMismatch},
		{"bad base64", map[string]string{headerName: "=?base64?aMOp!!bGxv?="}, call, codeHeaderMismatch},
		{"no name", map[string]string{headerName: ""}, call, codeHeaderMismatch},
	} {
		h := http.Header{}
		for k, v := range good {
			h.Set(k, v)
		}
		for k, v := range tc.change {
			if v == "" {
				h.Del(k)
			} else {
				h.Set(k, v)
			}
		}
		got := checkModernHeaders(h, parseMessage([]byte(tc.body)))
		switch {
		case tc.code == 0 && got != nil:
			t.Errorf("%s: refused: %v", tc.name, got)
		case tc.code != 0 && (got == nil || got.code != tc.code || got.status != http.StatusBadRequest):
			t.Errorf("%s: %+v, want 400 with %d", tc.name, got, tc.code)
		}
	}
}

func TestParamHeaders(t *testing.T) {
	var p toolParams
	p.learn(parseMessage([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}}]}}`)).get("result"))
	call := func(args string) message {
		return parseMessage([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":` + args + `}}`))
	}
	for _, tc := range []struct {
		name    string
		args    string
		headers map[string]string
		ok      bool
	}{
		{"match", `{"region":"eu","opts":{"n":3}}`, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-N": "3"}, true},
		{"integer as a number", `{"region":"eu","opts":{"n":3}}`, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-N": "3.0"}, true},
		{"base64", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?="}, true},
		{"unpadded base64", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}, false},
		{"mismatch", `{"region":"eu"}`, map[string]string{"Mcp-Param-Region": "us"}, false},
		{"missing header", `{"region":"eu"}`, nil, false},
		{"header for an absent argument", `{}`, map[string]string{"Mcp-Param-Region": "eu"}, false},
		{"null argument, no header", `{"region":null}`, nil, true},
	} {
		h := http.Header{}
		for k, v := range tc.headers {
			h.Set(k, v)
		}
		got := p.check(h, call(tc.args))
		if (got == nil) != tc.ok {
			t.Errorf("%s: refusal %v, want ok %v", tc.name, got, tc.ok)
		}
	}
	// A tool never listed is not checked.
	unknown := parseMessage([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"other","arguments":{"region":"eu"}}}`))
	if got := p.check(http.Header{}, unknown); got != nil {
		t.Errorf("an unlisted tool was checked: %v", got)
	}
}

func TestRewrite(t *testing.T) {
	m := parseMessage([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"_meta":{"progressToken":7},"name":"x"}}`))
	got, err := rewrite(m.raw, edit{m.id, []byte("12")}, edit{m.get("params._meta.progressToken"), []byte(`"p12"`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"_meta":{"progressToken":"p12"},"name":"x"}}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestParseMessage(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want kind
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, kindRequest},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, kindNotification},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, kindResponse},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, kindResponse},
		{`{"jsonrpc":"2.0","id":1}`, kindInvalid},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, kindInvalid},
		{`not json`, kindInvalid},
	} {
		if got := parseMessage([]byte(tc.raw)).kind; got != tc.want {
			t.Errorf("%s: kind %d, want %d", tc.raw, got, tc.want)
		}
	}
}
