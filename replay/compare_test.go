package replay

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Every report (text, JUnit, SARIF, the viewer's page) writes a change the
// one way: path, the recorded value, the new one, (absent) for a side
// without the member.
func TestChangeString(t *testing.T) {
	for _, tt := range []struct {
		c    Change
		want string
	}{
		{Change{Path: "$.result.content[0].text", Before: `"5"`, After: `"6"`}, `$.result.content[0].text: "5" -> "6"`},
		{Change{Path: "$.result.isError", After: "true"}, "$.result.isError: (absent) -> true"},
		{Change{Path: "$.result.structuredContent", Before: "{}"}, "$.result.structuredContent: {} -> (absent)"},
	} {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}

// A changed value shows where it changed: up to 40 characters either side
// of the first character that differs in the compact JSON, … at each cut.
func TestChangeShowsWhereValuesDiffer(t *testing.T) {
	long := strings.Repeat("abcdefghij", 60) // 600 characters
	at500 := long[:499] + "#" + long[500:]   // the 500th character changed
	ctx := long[459:499]                     // the 40 characters before it
	for _, tt := range []struct {
		name          string
		before, after string
		wantB, wantA  string
	}{
		{"short values whole", `"2+3=5"`, `"2+3=6"`, `"2+3=5"`, `"2+3=6"`},
		{"a long text changed at character 500", strconv.Quote(long), strconv.Quote(at500),
			// The JSON string's quote is character 1: the 500th of the
			// text is the 501st of the value.
			"…" + ctx + "j" + long[500:540] + "…", "…" + ctx + "#" + long[500:540] + "…"},
		{"a change near the start has no cut before", strconv.Quote("x" + long), strconv.Quote("y" + long),
			`"x` + long[:40] + "…", `"y` + long[:40] + "…"},
		{"a change near the end has no cut after", strconv.Quote(long + "x"), strconv.Quote(long + "yz"),
			"…" + long[560:] + `x"`, "…" + long[560:] + `yz"`},
		{"one side a prefix of the other", strconv.Quote(long[:100]), strconv.Quote(long[:100] + "more"),
			"…" + long[60:100] + `"`, "…" + long[60:100] + `more"`},
		{"characters, not bytes", strconv.Quote(strings.Repeat("é", 100) + "a" + strings.Repeat("ü", 100)),
			strconv.Quote(strings.Repeat("é", 100) + "b" + strings.Repeat("ü", 100)),
			"…" + strings.Repeat("é", 40) + "a" + strings.Repeat("ü", 40) + "…", "…" + strings.Repeat("é", 40) + "b" + strings.Repeat("ü", 40) + "…"},
		{"different types", `{"k":"` + long + `"}`, `[1]`, `{"k":"` + long[:35] + "…", `[1]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewComparer(nil, false, false)
			if err != nil {
				t.Fatal(err)
			}
			changes, total := c.Diff(json.RawMessage(`{"result":`+tt.before+`}`), json.RawMessage(`{"result":`+tt.after+`}`))
			if total != 1 || changes[0].Before != tt.wantB || changes[0].After != tt.wantA {
				t.Fatalf("changes %+v\nwant before %s\nwant after  %s", changes, tt.wantB, tt.wantA)
			}
		})
	}
}

// An error-now call quotes what the new error says.
func TestErrorText(t *testing.T) {
	for _, tt := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found: \"ping\""}}`, `the server answered error -32601 "method not found: \"ping\""`},
		{`{"id":1,"result":{"isError":true,"content":[{"type":"text","text":"flaky: broken"},{"type":"image","data":"x"},{"type":"text","text":"twice"}]}}`, `the tool answered isError "flaky: broken twice"`},
		{`{"id":1,"result":{"isError":true,"content":[]}}`, "the tool answered isError, with no text"},
		{`{"id":1,"error":{"code":1,"message":"` + strings.Repeat("é", 300) + `"}}`, `the server answered error 1 "` + strings.Repeat("é", 200) + `…"`},
		{`{"id":1,"result":{"content":[]}}`, ""},
	} {
		if got := errorText(json.RawMessage(tt.msg)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.msg, got, tt.want)
		}
	}
}
