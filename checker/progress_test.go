package checker_test

import (
	"strconv"
	"testing"
)

// TestProgressRules covers W33 and W34 (check.md 3.3 D): progress after the
// request completed, and progress that does not increase. A request with a
// progressToken (re)opens the token; its completion closes it.
func TestProgressRules(t *testing.T) {
	const (
		afterDone  = ` arrived after its request completed, and the specification requires them to stop`
		increasing = `, and the specification requires it to increase with each notification`
	)
	// withToken is a tools/call id carrying progressToken (raw JSON).
	withToken := func(id, token string) string {
		return toolCall(id, "slow", `"_meta":{"progressToken":`+token+`}`)
	}
	progress := func(token, value string) string {
		return notification("notifications/progress", `{"progressToken":`+token+`,"progress":`+value+`}`)
	}
	ok := func(id string) string { return rpcResult(id, `{"content":[]}`) }
	after := func(frame int, token string) string {
		return "line " + strconv.Itoa(frame) + ": progress notification for token " + token + afterDone
	}
	went := func(frame int, token, prev, cur string) string {
		return "line " + strconv.Itoa(frame) + ": progress for token " + token + " went from " + prev + " to " + cur + increasing
	}

	tests := []struct {
		name   string
		frames []string
		want   []string
	}{
		{"clean: increasing progress, then the answer",
			[]string{"c2s 0 " + withToken("1", `"p1"`), "s2c 1 " + progress(`"p1"`, "1"), "s2c 2 " + progress(`"p1"`, "1.5"), "s2c 3 " + ok("1")}, nil},

		// W33
		{"W33 fires after completion",
			[]string{"c2s 0 " + withToken("1", `"p1"`), "s2c 1 " + progress(`"p1"`, "1"), "s2c 2 " + ok("1"), "s2c 3 " + progress(`"p1"`, "2")},
			[]string{after(4, `"p1"`)}},
		{"W33 fires after a failed answer",
			[]string{"c2s 0 " + withToken("1", `7`), "s2c 1 " + rpcError("1", -32603, "boom"), "s2c 2 " + progress(`7`, "1")},
			[]string{after(3, `7`)}},
		{"W33 fires after the task holding the call finished",
			[]string{"c2s 0 " + withToken("1", `"p"`),
				"s2c 1 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`),
				"s2c 2 " + progress(`"p"`, "1"),
				"s2c 3 " + notification("notifications/tasks", `{"taskId":"t1","status":"completed","result":{"content":[]}}`),
				"s2c 4 " + progress(`"p"`, "2")},
			[]string{after(5, `"p"`)}},
		{"W33 fires on each late notification",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + ok("1"), "s2c 2 " + progress(`"p"`, "1"), "s2c 3 " + progress(`"p"`, "2")},
			[]string{after(3, `"p"`), after(4, `"p"`)}},
		{"W33 fires again once the reusing request completed too",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + ok("1"),
				"c2s 2 " + withToken("2", `"p"`), "s2c 3 " + progress(`"p"`, "1"), "s2c 4 " + ok("2"), "s2c 5 " + progress(`"p"`, "2")},
			[]string{after(6, `"p"`)}},
		{"W33 gate: before completion", []string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + progress(`"p"`, "1")}, nil},
		{"W33 gate: a later request reopened the token",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + ok("1"), "c2s 2 " + withToken("2", `"p"`), "s2c 3 " + progress(`"p"`, "1")}, nil},
		{"W33 gate: an earlier request completing leaves the reused token open",
			[]string{"c2s 0 " + withToken("1", `"p"`), "c2s 1 " + withToken("2", `"p"`), "s2c 2 " + ok("1"), "s2c 3 " + progress(`"p"`, "1")}, nil},
		{"W33 gate: a task handle does not complete the call",
			[]string{"c2s 0 " + withToken("1", `"p"`),
				"s2c 1 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`),
				"s2c 2 " + progress(`"p"`, "1")}, nil},
		{"W33 gate: tokens compare as written, \"7\" is not 7",
			[]string{"c2s 0 " + withToken("1", `7`), "s2c 1 " + ok("1"), "s2c 2 " + progress(`"7"`, "1")}, nil},
		{"W33 gate: a token no request opened",
			[]string{"s2c 0 " + progress(`"x"`, "1")}, nil},
		{"W33 gate: the answer to a request without the token",
			[]string{"c2s 0 " + withToken("1", `"p"`), "c2s 1 " + toolCall("2", "other", ""), "s2c 2 " + ok("2"), "s2c 3 " + progress(`"p"`, "1")}, nil},

		// W34
		{"W34 fires on a repeated value",
			[]string{"c2s 0 " + withToken("1", `"p1"`), "s2c 1 " + progress(`"p1"`, "2"), "s2c 2 " + progress(`"p1"`, "2"), "s2c 3 " + ok("1")},
			[]string{went(3, `"p1"`, "2", "2")}},
		{"W34 fires on a decrease, numbers in shortest form",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + progress(`"p"`, "0.50"), "s2c 2 " + progress(`"p"`, "2.0e-1"),
				"s2c 3 " + progress(`"p"`, "1E1"), "s2c 4 " + progress(`"p"`, "10.0"), "s2c 5 " + ok("1")},
			[]string{went(3, `"p"`, "0.5", "0.2"), went(5, `"p"`, "10", "10")}},
		{"W34 compares with the previous value, not the highest",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + progress(`"p"`, "5"), "s2c 2 " + progress(`"p"`, "3"), "s2c 3 " + progress(`"p"`, "4"), "s2c 4 " + ok("1")},
			[]string{went(3, `"p"`, "5", "3")}},
		{"W34 fires on a token no request opened",
			[]string{"s2c 0 " + progress(`9`, "3"), "s2c 1 " + progress(`9`, "1")},
			[]string{went(2, `9`, "3", "1")}},
		{"W34 fires in the client's direction too",
			[]string{"s2c 0 " + rpcRequest("5", "sampling/createMessage", `{"messages":[],"maxTokens":1,"_meta":{"progressToken":"c"}}`),
				"c2s 1 " + progress(`"c"`, "1"), "c2s 2 " + progress(`"c"`, "0"), "c2s 3 " + rpcResult("5", `{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}`)},
			[]string{went(3, `"c"`, "1", "0")}},
		{"W33 then W34 on one frame",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + progress(`"p"`, "3"), "s2c 2 " + ok("1"), "s2c 3 " + progress(`"p"`, "1")},
			[]string{after(4, `"p"`) + ", " + went(4, `"p"`, "3", "1")[len("line 4: "):]}},
		{"W34 gate: a reopened token starts over",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + progress(`"p"`, "5"), "s2c 2 " + ok("1"),
				"c2s 3 " + withToken("2", `"p"`), "s2c 4 " + progress(`"p"`, "1"), "s2c 5 " + ok("2")}, nil},
		{"W34 gate: each token has its own sequence",
			[]string{"c2s 0 " + withToken("1", `"a"`), "c2s 1 " + withToken("2", `"b"`), "s2c 2 " + progress(`"a"`, "5"), "s2c 3 " + progress(`"b"`, "1"),
				"s2c 4 " + ok("1"), "s2c 5 " + ok("2")}, nil},
		{"W34 gate: a progress that is not a number is not compared",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + progress(`"p"`, "2"), "s2c 2 " + progress(`"p"`, `"1"`), "s2c 3 " + progress(`"p"`, "3"), "s2c 4 " + ok("1")}, nil},
		{"W34 gate: other notifications",
			[]string{"c2s 0 " + withToken("1", `"p"`), "s2c 1 " + progress(`"p"`, "2"), "s2c 2 " + notification("notifications/message", `{"progressToken":"p","progress":1}`), "s2c 3 " + ok("1")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameLines(t, "warnings", frameWarnings(t, nil, nil, tt.frames...), tt.want)
		})
	}
}

// TestProgressManyTokens runs more distinct tokens through a session than it
// remembers idle ones: the tokens still in use keep working.
func TestProgressManyTokens(t *testing.T) {
	var frames []string
	frames = append(frames, "c2s 0 "+toolCall(`"keep"`, "slow", `"_meta":{"progressToken":"keep"}`))
	const n = 40000
	for i := 0; i < n; i++ {
		tok := strconv.Itoa(i)
		frames = append(frames, "s2c 1 "+notification("notifications/progress", `{"progressToken":`+tok+`,"progress":1}`))
	}
	frames = append(frames,
		"s2c 2 "+notification("notifications/progress", `{"progressToken":"keep","progress":2}`),
		"s2c 3 "+notification("notifications/progress", `{"progressToken":"keep","progress":1}`),
		"s2c 4 "+rpcResult(`"keep"`, `{"content":[]}`),
		"s2c 5 "+notification("notifications/progress", `{"progressToken":"keep","progress":3}`),
	)
	got := frameWarnings(t, nil, nil, frames...)
	want := []string{
		"line " + strconv.Itoa(n+3) + `: progress for token "keep" went from 2 to 1, and the specification requires it to increase with each notification`,
		"line " + strconv.Itoa(n+5) + `: progress notification for token "keep" arrived after its request completed, and the specification requires them to stop`,
	}
	sameLines(t, "warnings", got, want)
}

// TestProgressNamesTheSessionsRevision: W33 and W34 say which revision
// requires what they report, the one the session negotiated, not always
// the newest.
func TestProgressNamesTheSessionsRevision(t *testing.T) {
	initialize := rpcRequest("0", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	initialized := rpcResult("0", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)
	progress := func(value string) string {
		return notification("notifications/progress", `{"progressToken":"p","progress":`+value+`}`)
	}
	got := frameWarnings(t, nil, nil,
		"c2s 0 "+initialize, "s2c 1 "+initialized,
		"c2s 2 "+toolCall("1", "slow", `"_meta":{"progressToken":"p"}`),
		"s2c 3 "+progress("2"), "s2c 4 "+progress("1"), "s2c 5 "+rpcResult("1", `{"content":[]}`), "s2c 6 "+progress("3"))
	want := []string{
		`line 5: progress for token "p" went from 2 to 1, and 2025-06-18 requires it to increase with each notification`,
		`line 7: progress notification for token "p" arrived after its request completed, and 2025-06-18 requires them to stop`,
	}
	sameLines(t, "warnings", got, want)
}
