package checker_test

import (
	"testing"
)

// TestServerCancelRule covers W35 (check.md 3.3 D): under 2026-07-28 a server
// may cancel only a subscriptions/listen request.
func TestServerCancelRule(t *testing.T) {
	const only = `, and 2026-07-28 lets a server cancel only a subscriptions/listen request`
	meta := func(rev string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + rev + `","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	slow := func(id, rev string) string { return toolCall(id, "slow", meta(rev)) }
	ok := func(id string) string { return rpcResult(id, `{"resultType":"complete","content":[]}`) }

	tests := []struct {
		name   string
		frames []string
		want   []string
	}{
		{"fires on a request in flight",
			[]string{"c2s 0 " + slow("1", "2026-07-28"), "s2c 1 " + cancelNote("1"), "s2c 2 " + ok("1")},
			[]string{`line 2: server cancelled "tools/call"` + only}},
		{"fires on a request already answered",
			[]string{"c2s 0 " + slow("1", "2026-07-28"), "s2c 1 " + ok("1"), "s2c 2 " + cancelNote("1")},
			[]string{`line 3: server cancelled "tools/call"` + only}},
		{"fires on a later revision",
			[]string{"c2s 0 " + rpcRequest(`"a"`, "prompts/get", `{"name":"p",`+meta("2027-01-01")+`}`), "s2c 1 " + cancelNote(`"a"`), "s2c 2 " + rpcResult(`"a"`, `{"resultType":"complete","messages":[]}`)},
			[]string{`line 2: server cancelled "prompts/get"` + only}},
		{"gate: a subscriptions/listen request",
			[]string{"c2s 0 " + rpcRequest("1", "subscriptions/listen", `{"notifications":{"toolsListChanged":true},`+meta("2026-07-28")+`}`), "s2c 1 " + cancelNote("1")}, nil},
		{"gate: a request declaring an earlier revision",
			[]string{"c2s 0 " + slow("1", "2025-11-25"), "s2c 1 " + cancelNote("1"), "s2c 2 " + rpcResult("1", `{"content":[]}`)}, nil},
		{"gate: a legacy request",
			[]string{"c2s 0 " + toolCall("1", "slow", ""), "s2c 1 " + cancelNote("1"), "s2c 2 " + rpcResult("1", `{"content":[]}`)}, nil},
		{"gate: the client cancelling",
			[]string{"c2s 0 " + slow("1", "2026-07-28"), "c2s 1 " + cancelNote("1")}, nil},
		{"gate: a request the log does not contain",
			[]string{"c2s 0 " + slow("1", "2026-07-28"), "s2c 1 " + ok("1"), "s2c 2 " + cancelNote("2")}, nil},
		{"gate: ids compare as written, \"1\" is not 1",
			[]string{"c2s 0 " + slow("1", "2026-07-28"), "s2c 1 " + cancelNote(`"1"`), "s2c 2 " + ok("1")}, nil},
		{"gate: no requestId",
			[]string{"c2s 0 " + slow("1", "2026-07-28"), "s2c 1 " + notification("notifications/cancelled", `{"reason":"x"}`), "s2c 2 " + ok("1")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", frameWarnings(t, nil, nil, tt.frames...), tt.want)
		})
	}
}
