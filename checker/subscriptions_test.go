package checker_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Helpers shared by the notification and extension rule tests
// (subscriptions, progress, servercancel, extensions).

// notification is a JSON-RPC notification with raw JSON params ("" for none).
func notification(method, params string) string {
	if params == "" {
		return `{"jsonrpc":"2.0","method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`
}

// frameWarnings checks "dir ms raw" frames, numbered from seq 1, and returns
// every warning as "frame <seq>: <text>", leaving out the frames in skip
// (whose warnings belong to another rule family). The frames whose seq is in
// redacted carry "redacted":true, as mcpsnoop's redaction marks them.
func frameWarnings(t *testing.T, redacted, skip []int, frames ...string) []string {
	t.Helper()
	lines := strings.SplitAfter(logOf("s", numbered(frames...)...), "\n")
	for _, seq := range redacted {
		lines[seq-1] = `{"redacted":true,` + strings.TrimPrefix(lines[seq-1], "{")
	}
	var out []string
	for _, f := range check(t, checker.Config{}, strings.Join(lines, "")).Findings {
		if f.Signal != checker.SignalWarn || containsInt(skip, int(f.Seq)) {
			continue
		}
		out = append(out, strings.TrimPrefix(f.Message, "session s "))
	}
	return out
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// TestSubscriptionRules covers W30-W32 (check.md 3.3 D): notifications a
// server sends on a subscriptions/listen stream. They need no revision.
func TestSubscriptionRules(t *testing.T) {
	const (
		missingID    = ` carries no io.modelcontextprotocol/subscriptionId, which 2026-07-28 requires on a subscription stream`
		beforeAck    = ` before its acknowledgment, which 2026-07-28 requires first`
		notRequested = `, and 2026-07-28 forbids sending a type the client did not ask for`
		toolsChanged = "notifications/tools/list_changed"
	)
	// listen opens a stream with raw JSON id and notifications filter.
	listen := func(id, filter string) string {
		return rpcRequest(id, "subscriptions/listen", `{"notifications":`+filter+`}`)
	}
	// onStream is a notification naming subscription id (raw JSON; "" for
	// no _meta at all).
	onStream := func(method, id string) string {
		if id == "" {
			return notification(method, `{}`)
		}
		return notification(method, `{"_meta":{"io.modelcontextprotocol/subscriptionId":`+id+`}}`)
	}
	ack := func(id string) string { return onStream("notifications/subscriptions/acknowledged", id) }
	tools := `{"toolsListChanged":true}`

	tests := []struct {
		name   string
		frames []string
		want   []string
	}{
		{"clean stream", []string{"c2s 0 " + listen("10", tools), "s2c 1 " + ack("10"), "s2c 2 " + onStream(toolsChanged, "10")}, nil},

		// W30
		{"W30 fires when a listen was seen",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + ack("10"), "s2c 2 " + onStream(toolsChanged, "")},
			[]string{`line 3: notification "notifications/tools/list_changed"` + missingID}},
		{"W30 fires on each stream type",
			[]string{"c2s 0 " + listen("10", tools),
				"s2c 1 " + onStream("notifications/prompts/list_changed", ""),
				"s2c 2 " + onStream("notifications/resources/list_changed", ""),
				"s2c 3 " + onStream("notifications/resources/updated", "")},
			[]string{
				`line 2: notification "notifications/prompts/list_changed"` + missingID,
				`line 3: notification "notifications/resources/list_changed"` + missingID,
				`line 4: notification "notifications/resources/updated"` + missingID,
			}},
		{"W30 fires on a null id",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + onStream(toolsChanged, "null")},
			[]string{`line 2: notification "notifications/tools/list_changed"` + missingID}},
		{"W30 fires on a notification without params",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + notification(toolsChanged, "")},
			[]string{`line 2: notification "notifications/tools/list_changed"` + missingID}},
		{"W30 gate: no listen seen", []string{"s2c 0 " + onStream(toolsChanged, "")}, nil},
		{"W30 gate: no listen seen, only a later one",
			[]string{"s2c 0 " + onStream(toolsChanged, ""), "c2s 1 " + listen("10", tools)}, nil},
		{"W30 gate: a listen the server sent is no client subscription",
			[]string{"s2c 0 " + listen("10", tools), "s2c 1 " + onStream(toolsChanged, "")}, nil},
		{"W30 gate: client-sent notification",
			[]string{"c2s 0 " + listen("10", tools), "c2s 1 " + onStream(toolsChanged, "")}, nil},
		{"W30 gate: other notification types",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + notification("notifications/message", `{"level":"info","data":"x"}`),
				"s2c 2 " + notification("notifications/roots/list_changed", "")}, nil},

		// W31
		{"W31 fires before the acknowledgment",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + onStream(toolsChanged, "10")},
			[]string{`line 2: notification "notifications/tools/list_changed" arrived on subscription 10` + beforeAck}},
		{"W31 fires when only another stream was acknowledged",
			[]string{"c2s 0 " + listen("10", tools), "c2s 1 " + listen(`"s"`, tools), "s2c 2 " + ack(`"s"`), "s2c 3 " + onStream(toolsChanged, "10")},
			[]string{`line 4: notification "notifications/tools/list_changed" arrived on subscription 10` + beforeAck}},
		{"W31 fires on a reopened stream until its new acknowledgment",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + ack("10"), "c2s 2 " + cancelNote("10"),
				"c2s 3 " + listen("10", tools), "s2c 4 " + onStream(toolsChanged, "10"), "s2c 5 " + ack("10"), "s2c 6 " + onStream(toolsChanged, "10")},
			[]string{`line 5: notification "notifications/tools/list_changed" arrived on subscription 10` + beforeAck}},
		{"W31 quotes a string id as written",
			[]string{"c2s 0 " + listen(`"sub-1"`, tools), "s2c 1 " + onStream(toolsChanged, `"sub-1"`)},
			[]string{`line 2: notification "notifications/tools/list_changed" arrived on subscription "sub-1"` + beforeAck}},
		{"W31 gate: ids compare as written, 10 is not \"10\"",
			[]string{"c2s 0 " + listen(`"10"`, tools), "s2c 1 " + onStream(toolsChanged, "10")}, nil},
		{"W31 gate: a stream the capture did not see opened",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + onStream(toolsChanged, "11")}, nil},
		{"W31 gate: the acknowledgment came first",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + ack("10"), "s2c 2 " + onStream(toolsChanged, "10")}, nil},

		// W32
		{"W32 fires on a type the filter did not ask for",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + ack("10"), "s2c 2 " + onStream("notifications/prompts/list_changed", "10")},
			[]string{`line 3: notification "notifications/prompts/list_changed" was not requested by subscription 10` + notRequested}},
		{"W32 fires on a flag set to false",
			[]string{"c2s 0 " + listen("10", `{"toolsListChanged":false}`), "s2c 1 " + ack("10"), "s2c 2 " + onStream(toolsChanged, "10")},
			[]string{`line 3: notification "notifications/tools/list_changed" was not requested by subscription 10` + notRequested}},
		{"W32 fires on resources/updated with no resource subscriptions",
			[]string{"c2s 0 " + listen("10", `{"resourcesListChanged":true,"resourceSubscriptions":[]}`), "s2c 1 " + ack("10"),
				"s2c 2 " + onStream("notifications/resources/list_changed", "10"), "s2c 3 " + onStream("notifications/resources/updated", "10")},
			[]string{`line 4: notification "notifications/resources/updated" was not requested by subscription 10` + notRequested}},
		{"W32 fires on a listen with no filter",
			[]string{"c2s 0 " + rpcRequest("10", "subscriptions/listen", `{}`), "s2c 1 " + ack("10"), "s2c 2 " + onStream(toolsChanged, "10")},
			[]string{`line 3: notification "notifications/tools/list_changed" was not requested by subscription 10` + notRequested}},
		{"W31 then W32 on one frame",
			[]string{"c2s 0 " + listen("10", tools), "s2c 1 " + onStream("notifications/prompts/list_changed", "10")},
			[]string{`line 2: notification "notifications/prompts/list_changed" arrived on subscription 10` + beforeAck +
				`, notification "notifications/prompts/list_changed" was not requested by subscription 10` + notRequested}},
		{"W32 gate: every type asked for",
			[]string{"c2s 0 " + listen("10", `{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a"]}`),
				"s2c 1 " + ack("10"),
				"s2c 2 " + onStream(toolsChanged, "10"),
				"s2c 3 " + onStream("notifications/prompts/list_changed", "10"),
				"s2c 4 " + onStream("notifications/resources/list_changed", "10"),
				"s2c 5 " + onStream("notifications/resources/updated", "10")}, nil},
		{"W32 gate: each stream has its own filter",
			[]string{"c2s 0 " + listen("1", tools), "c2s 1 " + listen("2", `{"promptsListChanged":true}`), "s2c 2 " + ack("1"), "s2c 3 " + ack("2"),
				"s2c 4 " + onStream(toolsChanged, "1"), "s2c 5 " + onStream("notifications/prompts/list_changed", "2")}, nil},
		{"W32 gate: a reopened stream takes its new filter",
			[]string{"c2s 0 " + listen("10", tools), "c2s 1 " + cancelNote("10"), "c2s 2 " + listen("10", `{"promptsListChanged":true}`), "s2c 3 " + ack("10"),
				"s2c 4 " + onStream("notifications/prompts/list_changed", "10")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", frameWarnings(t, nil, nil, tt.frames...), tt.want)
		})
	}
}

// TestSubscriptionRulesCountOncePerFrame checks that W31 and W32 on one frame
// make one warning.
func TestSubscriptionRulesCountOncePerFrame(t *testing.T) {
	rep := check(t, checker.Config{}, logOf("s", numbered(
		"c2s 0 "+rpcRequest("10", "subscriptions/listen", `{"notifications":{}}`),
		"s2c 1 "+notification("notifications/prompts/list_changed", `{"_meta":{"io.modelcontextprotocol/subscriptionId":10}}`),
	)...))
	if got := onlySession(t, rep).Counters.Warnings; got != 1 {
		t.Errorf("warnings = %d, want 1", got)
	}
	if n := len(rep.Findings); n != 1 {
		t.Errorf("findings = %d (%s), want 1", n, strconv.Quote(strings.Join(messages(rep), "; ")))
	}
}
