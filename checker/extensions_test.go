package checker_test

import (
	"testing"
)

// TestTasksExtensionRule covers our rule for the Tasks extension (seed
// README, "Catch a feature neither side negotiated"): on 2026-07-28 a tasks/*
// request, a notifications/tasks, or a tools/call answered with a task handle
// warns when the other side never advertised io.modelcontextprotocol/tasks,
// and stays quiet when the capture cannot show the negotiation.
func TestTasksExtensionRule(t *testing.T) {
	const (
		uses         = " uses the io.modelcontextprotocol/tasks extension, which the "
		tasksExt     = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
		otherExt     = `{"extensions":{"io.modelcontextprotocol/ui":{}}}`
		rev          = "2026-07-28"
		handle       = `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-07-28T12:00:00Z","lastUpdatedAt":"2026-07-28T12:00:00Z","ttlMs":null}`
		taskComplete = `{"taskId":"t1","status":"completed","result":{"content":[]}}`
	)
	// meta declares revision r and, unless caps is "", clientCapabilities.
	meta := func(r, caps string) string {
		m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + r + `"`
		if caps != "" {
			m += `,"io.modelcontextprotocol/clientCapabilities":` + caps
		}
		return m + "}"
	}
	// discover is a server/discover exchange (id "d") whose result declares
	// the raw JSON capabilities.
	discover := func(caps string) []string {
		return []string{
			"c2s 0 " + rpcRequest(`"d"`, "server/discover", "{"+meta(rev, "{}")+"}"),
			"s2c 1 " + rpcResult(`"d"`, `{"resultType":"complete","ttlMs":60000,"capabilities":`+caps+`}`),
		}
	}
	tasksGet := func(id, r string) string {
		return rpcRequest(id, "tasks/get", `{"taskId":"t1",`+meta(r, "{}")+`}`)
	}
	slow := func(id, r, caps string) string { return toolCall(id, "slow", meta(r, caps)) }
	then := func(first []string, more ...string) []string { return append(append([]string{}, first...), more...) }

	tests := []struct {
		name     string
		frames   []string
		redacted []int // seqs of frames mcpsnoop's redaction rewrote
		skip     []int // frames whose warnings belong to another rule family
		want     []string
	}{
		// tasks/* requests: the server's side.
		{name: "tasks/get when the server never advertised",
			frames: then(discover(`{}`), "c2s 2 "+tasksGet("1", rev)),
			want:   []string{"line 3: tasks/get" + uses + "server never advertised"}},
		{name: "tasks/cancel when the server advertised only other extensions",
			frames: then(discover(otherExt), "c2s 2 "+rpcRequest("1", "tasks/cancel", `{"taskId":"t1",`+meta(rev, "{}")+`}`)),
			want:   []string{"line 3: tasks/cancel" + uses + "server never advertised"}},
		{name: "tasks/get when an initialize result declared no extensions",
			frames: []string{
				"c2s 0 " + rpcRequest("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`),
				"s2c 1 " + rpcResult("0", `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`),
				"c2s 2 " + tasksGet("1", rev)},
			want: []string{"line 3: tasks/get" + uses + "server never advertised"}},
		{name: "gate: the server advertised it in server/discover",
			frames: then(discover(tasksExt), "c2s 2 "+tasksGet("1", rev))},
		{name: "gate: the server advertised it in initialize",
			frames: []string{
				"c2s 0 " + rpcRequest("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`),
				"s2c 1 " + rpcResult("0", `{"protocolVersion":"2025-11-25","capabilities":`+tasksExt+`,"serverInfo":{"name":"s","version":"1"}}`),
				"c2s 2 " + tasksGet("1", rev)}},
		{name: "gate: one result advertised it, so the server did",
			frames: then(discover(tasksExt),
				"c2s 2 "+rpcRequest(`"e"`, "server/discover", "{"+meta(rev, "{}")+"}"),
				"s2c 3 "+rpcResult(`"e"`, `{"resultType":"complete","ttlMs":60000,"capabilities":{}}`),
				"c2s 4 "+tasksGet("1", rev))},
		{name: "gate: no server/discover or initialize result seen",
			frames: []string{"c2s 0 " + tasksGet("1", rev)}},
		{name: "gate: server/discover answered with an error",
			frames: []string{"c2s 0 " + rpcRequest(`"d"`, "server/discover", "{"+meta(rev, "{}")+"}"), "s2c 1 " + rpcError(`"d"`, -32601, "no"), "c2s 2 " + tasksGet("1", rev)}},
		{name: "gate: an earlier revision, where tasks are core",
			frames: then(discover(`{}`), "c2s 2 "+tasksGet("1", "2025-11-25"))},
		{name: "gate: the discover result's capabilities were redacted",
			frames: then(discover(`"[REDACTED]"`), "c2s 2 "+tasksGet("1", rev)), redacted: []int{2}},
		{name: "gate: the discover result's extensions were redacted",
			frames: then(discover(`{"extensions":"[REDACTED]"}`), "c2s 2 "+tasksGet("1", rev)), redacted: []int{2}},
		{name: "gate: a redacted result that still shows no extension does not hide it",
			frames: then(discover(`{"tools":"[REDACTED]"}`), "c2s 2 "+tasksGet("1", rev)), redacted: []int{2},
			want: []string{"line 3: tasks/get" + uses + "server never advertised"}},

		// Task handles: the client's side, on that very request.
		{name: "task handle the client never advertised",
			frames: []string{"c2s 0 " + slow("1", rev, `{"elicitation":{}}`), "s2c 1 " + rpcResult("1", handle)},
			want:   []string{`line 2: tool "slow" answered with a task handle` + uses + "client never advertised"}},
		{name: "task handle where the request declared null capabilities",
			frames: []string{"c2s 0 " + slow("1", rev, `null`), "s2c 1 " + rpcResult("1", handle)},
			skip:   []int{1},
			// W52 too: a request without its clientCapabilities must be refused.
			want: []string{`line 2: server answered with a result a request missing its required _meta, which 2026-07-28 requires it to refuse (-32602, HTTP 400), tool "slow" answered with a task handle` + uses + "client never advertised"}},
		{name: "task handle where the request declared null extensions",
			frames: []string{"c2s 0 " + slow("1", rev, `{"extensions":null}`), "s2c 1 " + rpcResult("1", handle)},
			want:   []string{`line 2: tool "slow" answered with a task handle` + uses + "client never advertised"}},
		{name: "task handle for a tools/call without a name",
			frames: []string{"c2s 0 " + rpcRequest("1", "tools/call", "{"+meta(rev, "{}")+"}"), "s2c 1 " + rpcResult("1", handle)},
			want:   []string{"line 2: tools/call answered with a task handle" + uses + "client never advertised"}},
		{name: "task handle judged by its own request, not an earlier one that advertised",
			frames: []string{"c2s 0 " + slow("1", rev, tasksExt), "s2c 1 " + rpcResult("1", `{"resultType":"complete","content":[]}`),
				"c2s 2 " + slow("2", rev, `{}`), "s2c 3 " + rpcResult("2", handle)},
			want: []string{`line 4: tool "slow" answered with a task handle` + uses + "client never advertised"}},
		{name: "gate: the request advertised it",
			frames: []string{"c2s 0 " + slow("1", rev, tasksExt), "s2c 1 " + rpcResult("1", handle)}},
		{name: "gate: the request carried no clientCapabilities",
			frames: []string{"c2s 0 " + slow("1", rev, ""), "s2c 1 " + rpcResult("1", handle)}, skip: []int{1},
			want: []string{`line 2: server answered with a result a request missing its required _meta, which 2026-07-28 requires it to refuse (-32602, HTTP 400)`}}, // W52, not W49
		{name: "gate: the request's clientCapabilities were redacted",
			frames: []string{"c2s 0 " + slow("1", rev, `"[REDACTED]"`), "s2c 1 " + rpcResult("1", handle)}, redacted: []int{1}, skip: []int{1}},
		{name: "gate: the request's extensions were redacted",
			frames: []string{"c2s 0 " + slow("1", rev, `{"extensions":"[REDACTED]"}`), "s2c 1 " + rpcResult("1", handle)}, redacted: []int{1}},
		{name: "gate: an earlier revision",
			frames: []string{"c2s 0 " + slow("1", "2025-11-25", `{}`), "s2c 1 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`)}},
		{name: "gate: a legacy request",
			frames: []string{"c2s 0 " + toolCall("1", "slow", ""), "s2c 1 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`)}},
		{name: "gate: a duplicate of the handle is W25's alone",
			frames: []string{"c2s 0 " + slow("1", rev, `{}`), "s2c 1 " + rpcResult("1", handle), "s2c 2 " + rpcResult("1", handle)},
			want: []string{
				`line 2: tool "slow" answered with a task handle` + uses + "client never advertised",
				"line 3: duplicate response for the same id",
			}},

		// notifications/tasks: the client's side, as declared on the
		// tools/call holding the task, else on the stream it names.
		{name: "notifications/tasks for a task the client never advertised",
			frames: []string{"c2s 0 " + slow("1", rev, `{}`), "s2c 1 " + rpcResult("1", handle), "s2c 2 " + notification("notifications/tasks", taskComplete)},
			want: []string{
				`line 2: tool "slow" answered with a task handle` + uses + "client never advertised",
				"line 3: notifications/tasks" + uses + "client never advertised",
			}},
		{name: "notifications/tasks on a stream whose listen never advertised it",
			frames: []string{
				"c2s 0 " + rpcRequest("9", "subscriptions/listen", `{"notifications":{},`+meta(rev, `{}`)+`}`),
				"s2c 1 " + notification("notifications/tasks", `{"taskId":"t7","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":9}}`)},
			want: []string{"line 2: notifications/tasks" + uses + "client never advertised"}},
		{name: "gate: the tools/call holding the task advertised it",
			frames: []string{"c2s 0 " + slow("1", rev, tasksExt), "s2c 1 " + rpcResult("1", handle), "s2c 2 " + notification("notifications/tasks", taskComplete)}},
		{name: "gate: the stream's listen advertised it",
			frames: []string{
				"c2s 0 " + rpcRequest("9", "subscriptions/listen", `{"notifications":{},`+meta(rev, tasksExt)+`}`),
				"s2c 1 " + notification("notifications/tasks", `{"taskId":"t7","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":9}}`)}},
		{name: "gate: a task and stream the capture did not see",
			frames: []string{"s2c 0 " + notification("notifications/tasks", `{"taskId":"t7","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":9}}`)}},
		{name: "gate: a task of an earlier revision",
			frames: []string{"c2s 0 " + slow("1", "2025-11-25", `{}`), "s2c 1 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`),
				"s2c 2 " + notification("notifications/tasks", taskComplete)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", frameWarnings(t, tt.redacted, tt.skip, tt.frames...), tt.want)
		})
	}
}
