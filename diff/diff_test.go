package diff

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func call(i int, tool, args, status string, d time.Duration) Call {
	return Call{Index: i, Tool: tool, Args: args, Status: status, Duration: d, HasDuration: d >= 0}
}

func tool(name, annotations string) tooldef.Tool {
	t := tooldef.Tool{Name: name, Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if annotations != "" {
		t.Annotations = json.RawMessage(annotations)
	}
	return t
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name          string
		before, after Side
		opts          Options
		want          string
		regressed     bool
	}{
		{
			name:   "identical",
			before: Side{SessionID: "a", Tools: []tooldef.Tool{tool("x", "")}, Calls: []Call{call(0, "x", "{}", "ok", ms(10))}},
			after:  Side{SessionID: "b", Tools: []tooldef.Tool{tool("x", "")}, Calls: []Call{call(0, "x", "{}", "ok", ms(10))}},
			want:   "mcpsnoop diff a -> b\nno differences found\n",
		},
		{
			name:      "started failing",
			before:    Side{SessionID: "a", Calls: []Call{call(0, "x", `{"q":1}`, "ok", ms(10))}},
			after:     Side{SessionID: "b", Calls: []Call{call(0, "x", `{"q":1}`, "error", ms(10))}},
			want:      "mcpsnoop diff a -> b\ncalls:\n  status changed: x {\"q\":1} ok -> error\n",
			regressed: true,
		},
		{
			name:   "recovered is not a regression",
			before: Side{SessionID: "a", Calls: []Call{call(0, "x", "{}", "error", ms(10))}},
			after:  Side{SessionID: "b", Calls: []Call{call(0, "x", "{}", "ok", ms(10))}},
			want:   "mcpsnoop diff a -> b\ncalls:\n  status changed: x {} error -> ok\n",
		},
		{
			name:      "ok to pending is worse",
			before:    Side{Calls: []Call{call(0, "x", "{}", "ok", ms(10))}},
			after:     Side{Calls: []Call{call(0, "x", "{}", "pending", -1)}},
			want:      "mcpsnoop diff  -> \ncalls:\n  status changed: x {} ok -> pending\n",
			regressed: true,
		},
		{
			name:   "same rank is no regression",
			before: Side{Calls: []Call{call(0, "x", "{}", "pending", -1)}},
			after:  Side{Calls: []Call{call(0, "x", "{}", "call_cancelled", -1)}},
			want:   "mcpsnoop diff  -> \ncalls:\n  status changed: x {} pending -> call_cancelled\n",
		},
		{
			name:      "slower",
			before:    Side{Calls: []Call{call(0, "x", "{}", "ok", ms(200))}},
			after:     Side{Calls: []Call{call(0, "x", "{}", "ok", ms(1000))}},
			want:      "mcpsnoop diff  -> \ndurations:\n  slower: x {} 200ms -> 1s\n",
			regressed: true,
		},
		{
			name:   "faster",
			before: Side{Calls: []Call{call(0, "x", "{}", "ok", ms(1000))}},
			after:  Side{Calls: []Call{call(0, "x", "{}", "ok", ms(200))}},
			want:   "mcpsnoop diff  -> \ndurations:\n  faster: x {} 1s -> 200ms\n",
		},
		{
			name:   "below the threshold",
			before: Side{Calls: []Call{call(0, "x", "{}", "ok", ms(10))}},
			after:  Side{Calls: []Call{call(0, "x", "{}", "ok", ms(99))}},
			want:   "mcpsnoop diff  -> \nno differences found\n",
		},
		{
			name:   "below the ratio",
			before: Side{Calls: []Call{call(0, "x", "{}", "ok", ms(1000))}},
			after:  Side{Calls: []Call{call(0, "x", "{}", "ok", ms(1999))}},
			want:   "mcpsnoop diff  -> \nno differences found\n",
		},
		{
			name:      "exactly threshold and ratio",
			before:    Side{Calls: []Call{call(0, "x", "{}", "ok", ms(100))}},
			after:     Side{Calls: []Call{call(0, "x", "{}", "ok", ms(200))}},
			want:      "mcpsnoop diff  -> \ndurations:\n  slower: x {} 100ms -> 200ms\n",
			regressed: true,
		},
		{
			name:      "from zero any change past the threshold counts",
			before:    Side{Calls: []Call{call(0, "x", "{}", "ok", 0)}},
			after:     Side{Calls: []Call{call(0, "x", "{}", "ok", ms(100))}},
			want:      "mcpsnoop diff  -> \ndurations:\n  slower: x {} 0s -> 100ms\n",
			regressed: true,
		},
		{
			name:   "custom threshold and ratio",
			before: Side{Calls: []Call{call(0, "x", "{}", "ok", ms(10))}},
			after:  Side{Calls: []Call{call(0, "x", "{}", "ok", ms(16))}},
			opts:   Options{Threshold: ms(5), Ratio: 1.5},
			want:   "mcpsnoop diff  -> \ndurations:\n  slower: x {} 10ms -> 16ms\n", regressed: true,
		},
		{
			name:   "a call without a duration is not timed",
			before: Side{Calls: []Call{call(0, "x", "{}", "ok", ms(10))}},
			after:  Side{Calls: []Call{call(0, "x", "{}", "ok", -1)}},
			want:   "mcpsnoop diff  -> \nno differences found\n",
		},
		{
			name: "i-th occurrence pairs with i-th, in request order, extra calls ignored",
			before: Side{Calls: []Call{
				call(1, "x", "{}", "error", ms(10)), call(0, "x", "{}", "ok", ms(10)),
			}},
			after: Side{Calls: []Call{
				call(0, "x", "{}", "ok", ms(10)), call(1, "x", "{}", "ok", ms(10)), call(2, "x", "{}", "error", ms(10)),
			}},
			want: "mcpsnoop diff  -> \ncalls:\n  status changed: x {} error -> ok\n",
		},
		{
			name:   "different arguments are different calls",
			before: Side{Calls: []Call{call(0, "x", `{"a":1}`, "ok", ms(10))}},
			after:  Side{Calls: []Call{call(0, "x", `{"a":2}`, "error", ms(10))}},
			want:   "mcpsnoop diff  -> \nno differences found\n",
		},
		{
			name: "signatures sorted by tool then arguments",
			before: Side{Calls: []Call{
				call(0, "b", "{}", "ok", ms(1)), call(1, "a", `{"z":1}`, "ok", ms(1)), call(2, "a", `{"y":1}`, "ok", ms(1)),
			}},
			after: Side{Calls: []Call{
				call(0, "b", "{}", "error", ms(1)), call(1, "a", `{"z":1}`, "error", ms(1)), call(2, "a", `{"y":1}`, "error", ms(1)),
			}},
			want: "mcpsnoop diff  -> \ncalls:\n" +
				"  status changed: a {\"y\":1} ok -> error\n" +
				"  status changed: a {\"z\":1} ok -> error\n" +
				"  status changed: b {} ok -> error\n",
			regressed: true,
		},
		{
			name:   "added tool is not a regression",
			before: Side{Tools: []tooldef.Tool{tool("x", "")}},
			after:  Side{Tools: []tooldef.Tool{tool("x", ""), tool("y", "")}},
			want:   "mcpsnoop diff  -> \ntools:\n  added: y\n",
		},
		{
			name:      "removed tool is",
			before:    Side{Tools: []tooldef.Tool{tool("x", ""), tool("y", "")}},
			after:     Side{Tools: []tooldef.Tool{tool("x", "")}},
			want:      "mcpsnoop diff  -> \ntools:\n  removed: y\n",
			regressed: true,
		},
		{
			name:      "destructive now",
			before:    Side{Tools: []tooldef.Tool{tool("x", `{"destructiveHint":false}`)}},
			after:     Side{Tools: []tooldef.Tool{tool("x", `{"destructiveHint":true}`)}},
			want:      "mcpsnoop diff  -> \ntools:\n  annotations changed: x\n    destructiveHint false → true\n",
			regressed: true,
		},
		{
			name: "a description and a schema: old → new, the paths",
			before: Side{Tools: []tooldef.Tool{{Name: "x", Description: "Reads a file",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}},
			after: Side{Tools: []tooldef.Tool{{Name: "x", Description: "Reads and deletes a file",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"force":{"type":"boolean"}}}`)}}},
			want: "mcpsnoop diff  -> \ntools:\n  description changed: x\n    \"Reads a file\" → \"Reads and deletes a file\"\n" +
				"  input schema changed: x\n    added force\n",
			regressed: true,
		},
		{
			name:   "spelled-out defaults are no change",
			before: Side{Tools: []tooldef.Tool{tool("x", "")}},
			after:  Side{Tools: []tooldef.Tool{tool("x", `{"destructiveHint":true,"readOnlyHint":false}`)}},
			want:   "mcpsnoop diff  -> \nno differences found\n",
		},
		{
			name:   "icons alone are not a regression",
			before: Side{Tools: []tooldef.Tool{tool("x", "")}},
			after: Side{Tools: []tooldef.Tool{func() tooldef.Tool {
				d := tool("x", "")
				d.Icons = json.RawMessage(`[{"src":"https://example.com/x.png"}]`)
				return d
			}()}},
			want: "mcpsnoop diff  -> \ntools:\n  icons changed: x\n",
		},
		{
			name: "every section, in order",
			before: Side{SessionID: "a", Tools: []tooldef.Tool{tool("gone", ""), tool("x", "")},
				Calls: []Call{call(0, "x", "{}", "ok", ms(100))}},
			after: Side{SessionID: "b", Tools: []tooldef.Tool{tool("new", ""), tool("x", `{"readOnlyHint":true}`)},
				Calls: []Call{call(0, "x", "{}", "error", ms(5000))}},
			want: "mcpsnoop diff a -> b\ntools:\n  added: new\n  removed: gone\n  annotations changed: x\n    readOnlyHint false → true\n" +
				"calls:\n  status changed: x {} ok -> error\ndurations:\n  slower: x {} 100ms -> 5s\n",
			regressed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts == (Options{}) {
				opts = DefaultOptions
			}
			r := Compare(tt.before, tt.after, opts)
			var sb strings.Builder
			if err := r.WriteText(&sb); err != nil {
				t.Fatal(err)
			}
			if sb.String() != tt.want {
				t.Errorf("text:\n%s\nwant:\n%s", sb.String(), tt.want)
			}
			if r.Regressed() != tt.regressed {
				t.Errorf("Regressed() = %v, want %v", r.Regressed(), tt.regressed)
			}
		})
	}
}

func TestStatusRegression(t *testing.T) {
	statuses := []string{"ok", "pending", "streaming", "superseded", "late_result", "call_cancelled", "cancelled", "error"}
	rank := map[string]int{"error": 2, "pending": 1, "call_cancelled": 1, "late_result": 1}
	for _, b := range statuses {
		for _, a := range statuses {
			want := rank[a] > rank[b]
			if got := (StatusChange{Before: b, After: a}).Regression(); got != want {
				t.Errorf("%s -> %s: regression %v, want %v", b, a, got, want)
			}
		}
	}
}

func TestCallFromRecord(t *testing.T) {
	tests := []struct {
		rec  checker.CallRecord
		want string // Args, or "-" when not kept
	}{
		{checker.CallRecord{Method: "tools/call", Name: "x", Arguments: json.RawMessage(`{ "b": 1, "a": [1.0, "<&>"] }`)}, `{"a":[1.0,"<&>"],"b":1}`},
		{checker.CallRecord{Method: "tools/call", Name: "x"}, `{}`},
		{checker.CallRecord{Method: "tools/call", Name: "x", Arguments: json.RawMessage(`null`)}, `null`},
		{checker.CallRecord{Method: "tools/call"}, "-"},
		{checker.CallRecord{Method: "prompts/get", Name: "x"}, "-"},
	}
	for _, tt := range tests {
		c, ok := CallFromRecord(tt.rec)
		got := c.Args
		if !ok {
			got = "-"
		}
		if got != tt.want {
			t.Errorf("%s %s %s: got %s, want %s", tt.rec.Method, tt.rec.Name, tt.rec.Arguments, got, tt.want)
		}
	}
}

func TestCollectorKeepsSessionsApart(t *testing.T) {
	var c Collector
	c.OnCall(checker.CallRecord{SessionID: "s1", Method: "tools/call", Name: "x", Status: "ok"})
	c.OnCall(checker.CallRecord{SessionID: "s2", Method: "tools/call", Name: "y", Status: "ok"})
	c.OnCall(checker.CallRecord{SessionID: "s1", Method: "initialize", Status: "ok"})
	side := c.Side(&checker.SessionReport{ID: "s1"})
	if side.SessionID != "s1" || len(side.Calls) != 1 || side.Calls[0].Tool != "x" {
		t.Errorf("side = %+v", side)
	}
}
