package checker_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func ledger(t *testing.T, log string) []checker.Elicitation {
	t.Helper()
	return check(t, checker.Config{}, log).Sessions[0].Elicitations
}

func row(e checker.Elicitation) string {
	b, _ := json.Marshal(e)
	return string(b)
}

func TestElicitationLedger(t *testing.T) {
	question := func(id int, requests string) string {
		return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"result":{"resultType":"input_required","requestState":"st-` + itoa(id) + `","inputRequests":{` + requests + `}}}`
	}
	retry := func(id, from int, responses string) string {
		return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"signup","requestState":"st-` + itoa(from) + `","inputResponses":{` + responses + `}}}`
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup"}}`
	form := `"method":"elicitation/create","params":{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":["integer","null"]},"secret":"[REDACTED]"}}}`
	tests := []struct {
		name string
		log  string
		want []string
	}{
		{
			name: "several questions in one result, a sampling sibling makes no row",
			log: logOf("s", "1 c2s 0 "+call,
				"2 s2c 100 "+question(1, `"b":{`+form+`},"a":{"method":"elicitation/create","params":{"mode":"url","url":"https://login.example.com:8443/x?y=1","message":"Sign in"}},"llm":{"method":"sampling/createMessage","params":{}}`),
				"3 c2s 2100 "+retry(2, 1, `"a":{"action":"accept"},"b":{"action":"cancel","content":{"name":"SECRET-VALUE-42"}},"llm":{"role":"assistant"}`),
				`4 s2c 2200 {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`),
			want: []string{
				`{"root_id":"1","method":"tools/call","name":"signup","key":"a","mode":"url","message":"Sign in","message_truncated":false,"fields":[],"url":"https://login.example.com:8443/x?y=1","host":"login.example.com","action":"accept","elapsed_ms":2000,"pending":false}`,
				`{"root_id":"1","method":"tools/call","name":"signup","key":"b","mode":"form","message":"Who are you?","message_truncated":false,"fields":[{"name":"name","type":"string"},{"name":"age","type":"integer|null"},{"name":"secret","type":"unknown"}],"action":"cancel","elapsed_ms":2000,"pending":false}`,
			},
		},
		{
			name: "chained rounds point at one root; a question never retried stays pending",
			log: logOf("s", "1 c2s 0 "+call,
				"2 s2c 100 "+question(1, `"q1":{`+form+`}`),
				"3 c2s 1100 "+retry(2, 1, `"q1":{"action":"accept"}`),
				"4 s2c 1200 "+question(2, `"q2":{`+form+`}`)),
			want: []string{
				`{"root_id":"1","method":"tools/call","name":"signup","key":"q1","mode":"form","message":"Who are you?","message_truncated":false,"fields":[{"name":"name","type":"string"},{"name":"age","type":"integer|null"},{"name":"secret","type":"unknown"}],"action":"accept","elapsed_ms":1000,"pending":false}`,
				`{"root_id":"1","method":"tools/call","name":"signup","key":"q2","mode":"form","message":"Who are you?","message_truncated":false,"fields":[{"name":"name","type":"string"},{"name":"age","type":"integer|null"},{"name":"secret","type":"unknown"}],"elapsed_ms":null,"pending":true}`,
			},
		},
		{
			name: "a retry answers only its round; an unknown action is kept verbatim",
			log: logOf("s", "1 c2s 0 "+call,
				"2 s2c 100 "+question(1, `"x":{"method":"elicitation/create","params":{"message":"?"}},"y":{"method":"elicitation/create","params":{"message":"??"}}`),
				"3 c2s 600 "+retry(2, 1, `"x":{"action":"shrug"}`),
				`4 s2c 700 {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`),
			want: []string{
				`{"root_id":"1","method":"tools/call","name":"signup","key":"x","mode":"form","message":"?","message_truncated":false,"fields":[],"action":"shrug","elapsed_ms":500,"pending":false}`,
				`{"root_id":"1","method":"tools/call","name":"signup","key":"y","mode":"form","message":"??","message_truncated":false,"fields":[],"elapsed_ms":null,"pending":true}`,
			},
		},
		{
			name: "2025-11-25: a server request answered by the client",
			log: logOf("s",
				`1 s2c 0 {"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Pick a repo","requestedSchema":{"type":"object","properties":{"repo":{"type":"string"}}}}}`,
				`2 c2s 4000 {"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}}`,
				`3 s2c 5000 {"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{"mode":"url","url":"not a url","message":"Open"}}`),
			want: []string{
				`{"root_id":"\"e1\"","method":"elicitation/create","name":"","key":"","mode":"form","message":"Pick a repo","message_truncated":false,"fields":[{"name":"repo","type":"string"}],"action":"decline","elapsed_ms":4000,"pending":false}`,
				`{"root_id":"\"e2\"","method":"elicitation/create","name":"","key":"","mode":"url","message":"Open","message_truncated":false,"fields":[],"url":"not a url","elapsed_ms":null,"pending":true}`,
			},
		},
		{
			name: "no elicitation, no rows",
			log:  logOf("s", "1 c2s 0 "+call, `2 s2c 5 {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ledger(t, tt.log) {
				got = append(got, row(e))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if strings.Contains(strings.Join(got, ""), "SECRET-VALUE-42") {
				t.Error("a submitted value reached the ledger")
			}
		})
	}
}

// A 2025-11-25 elicitation/create names the tools/call it interrupted when
// that is certain: on stdio, exactly one call open; over HTTP, the call
// whose event stream carried it (reply_to), and nothing without it.
func TestElicitationInterruptedCall(t *testing.T) {
	ask := `{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"Seat?"}}`
	answer := `{"jsonrpc":"2.0","id":0,"result":{"action":"accept"}}`
	httpLine := func(seq int, dir, raw, extra string) string {
		return `{"session_id":"h","server_label":"srv","seq":` + itoa(seq) + `,"ts":"2026-07-28T12:00:0` + itoa(seq) + `Z","direction":"` + dir + `","transport":"http","conn_id":"c1"` + extra + `,"raw":` + raw + `}` + "\n"
	}
	tests := []struct {
		name, log string
		want      string // root_id method name request_id of the row
	}{
		{"stdio, one call open", logOf("s", "1 c2s 0 "+toolCall("7", "book", ""), "2 s2c 10 "+ask, "3 c2s 20 "+answer),
			`7 tools/call book 0`},
		{"stdio, two calls open: which one asked is not known", logOf("s", "1 c2s 0 "+toolCall("7", "book", ""), "2 c2s 1 "+toolCall("8", "pay", ""), "3 s2c 10 "+ask),
			`0 elicitation/create  `},
		{"stdio, the other call already answered", logOf("s", "1 c2s 0 "+toolCall("7", "book", ""), "2 c2s 1 "+toolCall("8", "pay", ""), "3 s2c 5 "+rpcResult("8", `{"content":[]}`), "4 s2c 10 "+ask),
			`7 tools/call book 0`},
		{"stdio, no call open", logOf("s", "1 s2c 10 "+ask), `0 elicitation/create  `},
		{"http, on the stream of call 8", httpLine(1, "c2s", toolCall("7", "book", ""), "") + httpLine(2, "c2s", toolCall("8", "pay", ""), "") + httpLine(3, "s2c", ask, `,"reply_to":8`),
			`8 tools/call pay 0`},
		{"http, without reply_to: not known", httpLine(1, "c2s", toolCall("7", "book", ""), "") + httpLine(2, "s2c", ask, ""),
			`0 elicitation/create  `},
		{"http, reply_to names no open tools/call", httpLine(1, "c2s", rpcRequest("9", "prompts/get", `{"name":"p"}`), "") + httpLine(2, "s2c", ask, `,"reply_to":9`),
			`0 elicitation/create  `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := ledger(t, tt.log)
			if len(rows) != 1 {
				t.Fatalf("rows %v", rows)
			}
			e := rows[0]
			if got := e.RootID + " " + e.Method + " " + e.Name + " " + e.RequestID; got != tt.want {
				t.Errorf("row %s\n got %q\nwant %q", row(e), got, tt.want)
			}
		})
	}
}

func TestElicitationMessageCap(t *testing.T) {
	long := strings.Repeat("é", 5000) // two bytes a rune: the cut must not split one
	log := logOf("s",
		`1 s2c 0 {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"`+long+`"}}`)
	e := ledger(t, log)[0]
	if !e.MessageTruncated || len(e.Message) > 4096 || !strings.HasPrefix(long, e.Message) {
		t.Errorf("message %d bytes, truncated %v", len(e.Message), e.MessageTruncated)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
