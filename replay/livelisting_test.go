package replay

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stricter of the recorded and the live annotations decides: a tool is
// sent only when both listings make it read-only, or idempotent and not
// destructive, and neither says destructiveHint: true.
func TestLiveSkipReason(t *testing.T) {
	tests := []struct {
		name           string
		recorded, live string
		want           string // a part of the reason; "" sends
	}{
		{"both read-only", `{"readOnlyHint":true}`, `{"readOnlyHint":true}`, ""},
		{"both idempotent, not destructive", `{"idempotentHint":true,"destructiveHint":false}`, `{"idempotentHint":true,"destructiveHint":false}`, ""},
		{"read-only, then destructive", `{"readOnlyHint":true}`, `{"destructiveHint":true}`,
			`the live server annotates tool "t" destructiveHint: true (destructiveHint: true), whatever the recording said`},
		{"read-only, then read-only and destructive", `{"readOnlyHint":true}`, `{"readOnlyHint":true,"destructiveHint":true}`, "destructiveHint: true"},
		{"read-only, then nothing", `{"readOnlyHint":true}`, ``,
			`the live server annotates tool "t" with none of readOnlyHint, idempotentHint, destructiveHint, and the recording with readOnlyHint: true`},
		{"read-only, then idempotent", `{"readOnlyHint":true}`, `{"idempotentHint":true,"destructiveHint":false}`, "only a tool both call read-only"},
		{"idempotent, then idempotent maybe destructive", `{"idempotentHint":true,"destructiveHint":false}`, `{"idempotentHint":true}`, "--all replays it"},
		{"read-only, then not read-only", `{"readOnlyHint":true}`, `{"readOnlyHint":false}`, "readOnlyHint: false"},
		{"annotations not an object", `{"readOnlyHint":true}`, `[1]`, "--all replays it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &Recording{listed: true, listing: map[string]tooldef.Tool{"t": {Name: "t", Annotations: json.RawMessage(tt.recorded)}}}
			var live json.RawMessage
			if tt.live != "" {
				live = json.RawMessage(tt.live)
			}
			got := rec.liveSkipReason("t", live, "")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("liveSkipReason = %q, want %q", got, tt.want)
			}
		})
	}
	rec := &Recording{listed: true, listing: map[string]tooldef.Tool{"t": {Name: "t", Annotations: json.RawMessage(`{"readOnlyHint":true}`)}}}
	if got := rec.liveSkipReason("t", nil, "it refused tools/list: broken (code -32603)"); !strings.Contains(got, "the live server's tools cannot be listed (it refused tools/list: broken (code -32603))") {
		t.Errorf("no live listing: %q", got)
	}
}

// A replay lists the live server's tools before its first call, and never
// sends a call the live server now annotates destructive (or no longer
// read-only), whatever the recording says: through the shim, against the
// real test server whose tools/list says so, the call never reaches it.
func TestReplayHonoursTheLiveAnnotations(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, record(t, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		call(ctx, t, cs, "echo", map[string]any{"text": "hi"})
		call(ctx, t, cs, "add", map[string]any{"a": 1, "b": 2})
	}))
	tests := []struct {
		name     string
		annotate string // REPLAYSERVER_ANNOTATE
		fails    bool   // REPLAYSERVER_LIST_FAILS
		all      bool
		alone    bool   // replay the echo call alone (the viewer's r), not the recorded tools/list
		echo     string // echo's skip reason, a part of it; "" when sent
	}{
		{"as recorded", "", false, false, false, ""},
		{"now destructive", `echo={"destructiveHint":true}`, false, false, false, `the live server annotates tool "echo" destructiveHint: true`},
		{"now read-only and destructive", `echo={"readOnlyHint":true,"destructiveHint":true}`, false, false, false, "destructiveHint: true"},
		{"no longer annotated", `echo={}`, false, false, false, "and the recording with readOnlyHint: true"},
		{"no listing", "", true, false, false, "the live server's tools cannot be listed (it refused tools/list: replayserver: listing is broken"},
		{"--all", `echo={"destructiveHint":true}`, false, true, false, ""},
		{"alone, as recorded", "", false, false, true, ""},
		{"alone, now destructive", `echo={"destructiveHint":true}`, false, false, true, `the live server annotates tool "echo" destructiveHint: true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("REPLAYSERVER_ANNOTATE", tt.annotate)
			fails := ""
			if tt.fails {
				fails = "1"
			}
			t.Setenv("REPLAYSERVER_LIST_FAILS", fails)
			o := Options{All: tt.all}
			if tt.alone {
				o.Only = func(r *Request) bool { return r.Name == "echo" }
			}
			res, _ := replay(t, rec, nil, o)
			if res.Stopped != "" {
				t.Fatalf("stopped: %s", res.Stopped)
			}
			reasons := map[string]string{}
			for _, o := range res.Outcomes {
				if o.Request.Method == "tools/call" {
					reasons[o.Request.Name] = o.Skipped
				}
			}
			if got := reasons["echo"]; (tt.echo == "") != (got == "") || !strings.Contains(got, tt.echo) {
				t.Errorf("echo: skipped %q, want %q", got, tt.echo)
			}
			// add is read-only in both listings, unless none could be made.
			if got, ok := reasons["add"]; ok == tt.alone || (got == "") == tt.fails {
				t.Errorf("add: skipped %q", got)
			}
			// What reached the server: the shim logged every request it
			// forwarded, the live listing first.
			var sent []string
			for _, f := range framesOf(t, res.Log) {
				var m struct {
					Method string `json:"method"`
					Params struct {
						Name string `json:"name"`
					} `json:"params"`
				}
				if f.Direction != "c2s" || json.Unmarshal(f.Raw, &m) != nil || m.Method == "" || strings.HasPrefix(m.Method, "notifications/") {
					continue
				}
				sent = append(sent, strings.TrimSuffix(m.Method+" "+m.Params.Name, " "))
			}
			want := []string{"initialize", "tools/list", "tools/list", "tools/call echo", "tools/call add"}
			switch {
			case tt.all:
				want = []string{"initialize", "tools/list", "tools/call echo", "tools/call add"} // nothing to judge, no listing of its own
			case tt.fails:
				want = want[:3]
			case tt.alone && tt.echo != "":
				want = []string{"initialize", "tools/list"}
			case tt.alone:
				want = []string{"initialize", "tools/list", "tools/call echo"}
			case tt.echo != "":
				want = []string{"initialize", "tools/list", "tools/list", "tools/call add"}
			}
			if strings.Join(sent, ", ") != strings.Join(want, ", ") {
				t.Errorf("sent %q, want %q", sent, want)
			}
		})
	}
}
