package checker_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestOnCallStatuses(t *testing.T) {
	log := logOf("s",
		`1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok","arguments":{"b":1,"a":2}}}`,
		`2 s2c 10 {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`3 c2s 20 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bad"}}`,
		`4 s2c 30 {"jsonrpc":"2.0","id":2,"result":{"isError":true}}`,
		`5 c2s 40 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"old"}}`,
		`6 c2s 50 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"new"}}`,
		`7 c2s 60 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"late"}}`,
		`8 c2s 70 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
		`9 s2c 80 {"jsonrpc":"2.0","id":4,"result":{}}`,
		`10 c2s 90 {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"gaveup"}}`,
		`11 c2s 95 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
		`12 c2s 100 {"jsonrpc":"2.0","id":6,"method":"subscriptions/listen","params":{}}`,
		`13 c2s 110 {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"job"}}`,
		`14 s2c 120 {"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t","status":"working"}}`,
		`15 s2c 130 {"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t","status":"cancelled"}}`,
	)
	var got []checker.CallRecord
	check(t, checker.Config{OnCall: func(r checker.CallRecord) { got = append(got, r) }}, log)
	sort.Slice(got, func(i, j int) bool { return got[i].Index < got[j].Index })
	var lines []string
	for _, r := range got {
		lines = append(lines, fmt.Sprintf("%d %s %s %s dur=%v/%v args=%s", r.Index, r.ID, r.Name, r.Status, r.Duration, r.HasDuration, r.Arguments))
	}
	want := []string{
		`0 1 ok ok dur=10ms/true args={"b":1,"a":2}`,
		`1 2 bad error dur=10ms/true args=`,
		`2 3 old superseded dur=0s/false args=`,
		`3 3 new pending dur=0s/false args=`,
		`4 4 late late_result dur=20ms/true args=`,
		`5 5 gaveup call_cancelled dur=0s/false args=`,
		`6 6  streaming dur=0s/false args=`,
		`7 7 job cancelled dur=20ms/true args=`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
