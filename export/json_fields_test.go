package export

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// TestJSONFieldsScriptsRead pins two fields scripts written against the
// reference read (README changelog): events[].deprecated is the
// deprecation message, absent when there is none; and a call cancelled and
// answered anyway keeps its answer's result in calls[], a
// subscriptions/listen closed after its cancellation included.
func TestJSONFieldsScriptsRead(t *testing.T) {
	frame := func(seq int, ts, dir, raw string) string {
		return `{"session_id":"s","server_label":"srv","seq":` + strconv.Itoa(seq) + `,"ts":"2026-07-28T12:00:` + ts + `Z","direction":"` + dir + `","transport":"stdio","raw":` + raw + "}\n"
	}
	log := frame(1, "00", "c2s", `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"notifications":{"toolsListChanged":true}}}`) +
		frame(2, "01", "c2s", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`) +
		frame(3, "01.5", "s2c", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"closed":"listen"}}}`) +
		frame(4, "02", "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`) +
		frame(5, "03", "c2s", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`) +
		frame(6, "04", "s2c", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"late"}]}}`) +
		frame(7, "05", "c2s", `{"jsonrpc":"2.0","id":3,"method":"roots/list","params":{}}`)
	x, err := Load(NewJSON(), []capture.Input{{Name: "stdin", Stdin: true}}, strings.NewReader(log), Options{GeneratedAt: fixedTime})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var out strings.Builder
	if err := x.Write(&out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Calls []struct {
			Method string          `json:"method"`
			Status string          `json:"status"`
			Result json.RawMessage `json:"result"`
		} `json:"calls"`
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	wantCalls := []struct{ method, status, result string }{
		{"subscriptions/listen", "call_cancelled", `{"resultType":"complete","_meta":{"closed":"listen"}}`},
		{"tools/call", "late_result", `{"content":[{"type":"text","text":"late"}]}`},
		{"roots/list", "pending", ``},
	}
	if len(doc.Calls) != len(wantCalls) {
		t.Fatalf("%d calls, want %d", len(doc.Calls), len(wantCalls))
	}
	for i, w := range wantCalls {
		c := doc.Calls[i]
		var compact strings.Builder
		if len(c.Result) > 0 {
			b, _ := json.Marshal(json.RawMessage(c.Result))
			compact.Write(b)
		}
		if c.Method != w.method || c.Status != w.status || compact.String() != w.result {
			t.Errorf("call %d: %s %s result %s; want %s %s result %s", i, c.Method, c.Status, compact.String(), w.method, w.status, w.result)
		}
	}
	for _, ev := range doc.Events {
		if _, ok := ev["deprecation"]; ok {
			t.Errorf("event %v has a deprecation member; the message is deprecated's value", ev["seq"])
		}
		dep, has := ev["deprecated"]
		if ev["method"] == "roots/list" {
			if s, ok := dep.(string); !ok || !strings.HasPrefix(s, "roots is deprecated (2026-07-28)") {
				t.Errorf("roots/list: deprecated = %#v, want the message", dep)
			}
		} else if has {
			t.Errorf("event %v (%v): deprecated = %#v, want it absent", ev["seq"], ev["method"], dep)
		}
	}
}
