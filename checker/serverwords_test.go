package checker_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// An error finding quotes the server: the JSON-RPC error's message, or the
// first text content of a result marked isError; cut at 200 characters,
// control characters escaped, redacted by Config.RedactText.
func TestErrorFindingsQuoteTheServer(t *testing.T) {
	long := strings.Repeat("é", 250)
	redact := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }
	tests := []struct {
		name   string
		answer string
		want   string
	}{
		{"isError, first text content", rpcResult("1", `{"isError":true,"content":[{"type":"image","data":"x"},{"type":"text","text":"ENOENT: no such file\nor directory"},{"type":"text","text":"second"}]}`),
			`tools/call read (id 1) ended in an error: the result is marked isError: ENOENT: no such file\nor directory`},
		{"isError without text", rpcResult("1", `{"isError":true,"content":[]}`),
			`tools/call read (id 1) ended in an error: the result is marked isError`},
		{"a JSON-RPC error, cut", rpcError("1", -32603, long),
			`tools/call read (id 1) ended in an error: ` + strings.Repeat("é", 200) + `… (code -32603)`},
		{"redacted", rpcError("1", -32000, "login as admin/hunter2 failed"),
			`tools/call read (id 1) ended in an error: login as admin/[REDACTED] failed (code -32000)`},
		{"a terminal escape", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"\u001b[2Jcleared"}}`,
			`tools/call read (id 1) ended in an error: \x1b[2Jcleared (code -32000)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, checker.Config{RedactText: redact}, logOf("s", "1 c2s 0 "+toolCall("1", "read", ""), "2 s2c 10 "+tt.answer))
			if len(rep.Findings) != 1 {
				t.Fatalf("findings %v", messages(rep))
			}
			f := rep.Findings[0]
			if f.Text != tt.want || f.Message != "session s line 2: "+tt.want {
				t.Errorf("finding\n got %q\nwant %q", f.Text, tt.want)
			}
			if f.Kind != "<subject> ended in an error: <detail>" {
				t.Errorf("kind %q: the fingerprint must not depend on the words", f.Kind)
			}
		})
	}
}

// A task that completes with an isError result is quoted the same way.
func TestTaskErrorQuotesTheServer(t *testing.T) {
	rep := check(t, checker.Config{}, logOf("s",
		"1 c2s 0 "+toolCall("1", "build", ""),
		"2 s2c 10 "+rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`),
		`3 s2c 20 {"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{"isError":true,"content":[{"type":"text","text":"compile failed"}]}}}`))
	want := "tools/call build (id 1) failed as task t1: the result is marked isError: compile failed"
	if len(rep.Findings) == 0 || rep.Findings[0].Text != want {
		t.Errorf("findings %v, want %q", messages(rep), want)
	}
}
