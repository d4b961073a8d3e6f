package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSkipReason(t *testing.T) {
	tool := func(name, annotations string) tooldef.Tool {
		t := tooldef.Tool{Name: name}
		if annotations != "" {
			t.Annotations = json.RawMessage(annotations)
		}
		return t
	}
	rec := &Recording{listed: true, listing: map[string]tooldef.Tool{}}
	for _, tl := range []tooldef.Tool{
		tool("read", `{"readOnlyHint":true}`),
		tool("redo", `{"idempotentHint":true,"destructiveHint":false}`),
		tool("redo-maybe-destructive", `{"idempotentHint":true}`),
		tool("destroy", `{"destructiveHint":true}`),
		tool("read-destroy", `{"readOnlyHint":true,"destructiveHint":true}`),
		tool("plain", ""),
		tool("read-false", `{"readOnlyHint":false,"idempotentHint":false,"destructiveHint":false}`),
	} {
		rec.listing[tl.Name] = tl
	}
	call := func(name string) *Request {
		return &Request{ID: json.RawMessage("1"), Method: "tools/call", Name: name, Params: json.RawMessage(`{"name":"` + name + `"}`)}
	}
	redacted := call("read")
	redacted.Redacted = true
	scrubbed := call("read")
	scrubbed.Headers = []capture.ParamHeader{{Name: "Mcp-Param-Region", Value: "[REDACTED]", Redacted: true}}
	tests := []struct {
		name   string
		r      *Request
		all    bool
		edited string
		want   string // a part of the reason; "" sends
	}{
		{"read-only tool", call("read"), false, "", ""},
		{"idempotent, not destructive", call("redo"), false, "", ""},
		{"idempotent, destructive by default", call("redo-maybe-destructive"), false, "", "is not annotated readOnlyHint"},
		{"destructive", call("destroy"), false, "", "--all replays it"},
		{"read-only and destructive", call("read-destroy"), false, "", `annotates tool "read-destroy" destructiveHint: true (readOnlyHint: true, destructiveHint: true)`},
		{"no annotations", call("plain"), false, "", "--all replays it"},
		{"every hint false", call("read-false"), false, "", "--all replays it"},
		{"not in the listing", call("gone"), false, "", `does not list tool "gone"`},
		{"--all", call("destroy"), true, "", ""},
		{"redacted body", redacted, true, "", "was redacted at capture"},
		{"redacted body, edited", redacted, false, `{"name":"read"}`, ""},
		{"scrubbed header", scrubbed, true, "", "Mcp-Param-Region was scrubbed by redaction"},
		{"edited into a destructive tool", call("read"), false, `{"name":"destroy"}`, `annotates tool "destroy" destructiveHint: true`},
		{"a read", &Request{ID: json.RawMessage("1"), Method: "resources/read"}, false, "", ""},
		{"another method", &Request{ID: json.RawMessage("1"), Method: "logging/setLevel"}, false, "", "logging/setLevel may change the server's state"},
		{"another method, --all", &Request{ID: json.RawMessage("1"), Method: "logging/setLevel"}, true, "", ""},
		{"a cancellation", &Request{Method: "notifications/cancelled"}, true, "", "a cancellation is not replayed"},
		{"a notification", &Request{Method: "notifications/roots/list_changed"}, false, "", ""},
		{"a stream", &Request{ID: json.RawMessage("1"), Method: "subscriptions/listen"}, true, "", "subscription stream"},
		{"truncated", &Request{ID: json.RawMessage("null"), Truncated: true}, true, "", "cut at capture"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edited json.RawMessage
			if tt.edited != "" {
				edited = json.RawMessage(tt.edited)
			}
			got := rec.SkipReason(tt.r, tt.all, edited)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("SkipReason = %q, want %q", got, tt.want)
			}
		})
	}
	unlisted := &Recording{}
	if got := unlisted.SkipReason(call("read"), false, nil); !strings.Contains(got, "has no tools/list") {
		t.Errorf("no listing: %q", got)
	}
}

// The default ignores leave out what differs on every run, and no more;
// --ignore paths and --ignore-order add to them.
func TestComparer(t *testing.T) {
	tests := []struct {
		name          string
		ignore        []string
		noDefaults    bool
		order         bool
		before, after string
		want          []string // path: before -> after
	}{
		{"ids and serverInfo", nil, false, false,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"version":"1"}}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, nil},
		{"timestamps at any depth", nil, false, false,
			`{"result":{"a":[{"createdAt":"x","v":1}],"lastModified":"y"}}`, `{"result":{"a":[{"createdAt":"z","v":1}]}}`, nil},
		{"a real change", nil, false, false,
			`{"result":{"content":[{"text":"a"}]}}`, `{"result":{"content":[{"text":"b"}],"isError":true}}`,
			[]string{`$.result.content[0].text: "a" -> "b"`, `$.result.isError:  -> true`}},
		{"without the defaults", nil, true, false, `{"id":1,"result":{}}`, `{"id":2,"result":{}}`, []string{`$.id: 1 -> 2`}},
		{"an ignore path", []string{"result.structuredContent.now"}, false, false,
			`{"result":{"structuredContent":{"now":1,"keep":1}}}`, `{"result":{"structuredContent":{"now":2,"keep":1}}}`, nil},
		{"an array element ignored keeps the others in place", []string{"$.result.list[0]"}, false, false,
			`{"result":{"list":[1,2]}}`, `{"result":{"list":[9,2]}}`, nil},
		{"order", nil, false, false, `{"result":[1,2,3]}`, `{"result":[3,2,1]}`, []string{`$.result[0]: 1 -> 3`, `$.result[2]: 3 -> 1`}},
		{"order ignored", nil, false, true, `{"result":[1,{"b":[2,1]},3]}`, `{"result":[3,{"b":[1,2]},1]}`, nil},
		{"numbers as written", nil, false, false, `{"result":{"n":1}}`, `{"result":{"n":1.0}}`, []string{`$.result.n: 1 -> 1.0`}},
		{"odd keys", nil, false, false, `{"result":{"a b":1}}`, `{"result":{"a b":2}}`, []string{`$.result["a b"]: 1 -> 2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewComparer(tt.ignore, tt.noDefaults, tt.order)
			if err != nil {
				t.Fatal(err)
			}
			changes, total := c.Diff(json.RawMessage(tt.before), json.RawMessage(tt.after))
			var got []string
			for _, ch := range changes {
				got = append(got, ch.Path+": "+ch.Before+" -> "+ch.After)
			}
			if total != len(tt.want) || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("changes %q (total %d), want %q", got, total, tt.want)
			}
		})
	}
	if _, err := NewComparer([]string{"$["}, false, false); err == nil || !strings.Contains(err.Error(), `--ignore "$[" is not a JSONPath`) {
		t.Errorf("bad path: %v", err)
	}
}

// noPlaceholderSent fails the test when a frame the replay sent carries
// redaction's placeholder.
func noPlaceholderSent(t *testing.T, log string) {
	t.Helper()
	for _, f := range framesOf(t, log) {
		if f.Direction == "c2s" && bytes.Contains(f.Raw, []byte("[REDACTED]")) {
			t.Errorf("the replay sent a placeholder: %s", f.Raw)
		}
	}
}

// A recorded initialize that redaction changed is never sent: the replay
// stops before its first request, saying why, and sends nothing.
func TestReplayStopsOnARedactedInitialize(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, recordWith(t, []string{"--redact-value", "^recorder$"}, v1, "2025-11-25", everyTool))
	if rec.Init == nil || !rec.Init.Redacted || !strings.Contains(string(rec.Init.Params), "[REDACTED]") {
		t.Fatalf("the recording's initialize is not redacted: %+v", rec.Init)
	}
	// The initialize's line depends on whether the server's first stderr
	// line was logged before it (the two race at capture).
	at := fmt.Sprintf("initialize (line %d) was redacted at capture", rec.Init.Line)
	if why := rec.InitSkipReason(); !strings.Contains(why, at) {
		t.Errorf("InitSkipReason: %q", why)
	}
	res, v := replay(t, rec, nil, Options{All: true})
	if !strings.Contains(res.Stopped, "the recorded "+at) || v.Verified() != 0 {
		t.Fatalf("stopped %q, verified %d", res.Stopped, v.Verified())
	}
	for _, o := range res.Outcomes {
		if o.Sent() {
			t.Errorf("sent after a redacted initialize: %+v", o)
		}
	}
	for _, f := range framesOf(t, res.Log) {
		if f.Direction == "c2s" {
			t.Errorf("the replay sent %s", f.Raw)
		}
	}
}

// A server request whose recorded answer redaction changed is declined
// (an elicitation with decline) and reported, never answered with the
// placeholder; so is an MRTR round answered by a redacted retry.
func TestReplayDeclinesRedactedAnswers(t *testing.T) {
	_, v1, _ := programs(t)
	redactSeat := []string{"--redact-value", "^window$"}

	rec := load(t, recordWith(t, redactSeat, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		call(ctx, t, cs, "ask", map[string]any{"text": "Pick a seat"})
	}))
	res, v := replay(t, rec, nil, Options{All: true})
	if len(res.Declined) != 1 || res.Declined[0] != "elicitation/create: the recorded answer was redacted at capture, declined" {
		t.Errorf("declined %q", res.Declined)
	}
	if c := verdicts(v)["ask"]; c.Outcome != OutcomeChanged || len(c.Changes) != 1 || !strings.Contains(c.Changes[0].After, "user said decline") {
		t.Errorf("ask: %+v", c)
	}
	noPlaceholderSent(t, res.Log)

	rec = load(t, recordWith(t, redactSeat, v1, "", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		call(ctx, t, cs, "book", map[string]any{"text": "JFK"})
	}))
	res, v = replay(t, rec, nil, Options{})
	if len(res.Declined) != 1 || !strings.Contains(res.Declined[0], `elicitation/create "seat" (2nd round of tools/call "book" at line `) ||
		!strings.HasSuffix(res.Declined[0], "): the recorded answer was redacted at capture") {
		t.Errorf("declined %q", res.Declined)
	}
	if c := verdicts(v)["book"]; c.Outcome != OutcomeChanged || len(c.Changes) != 1 || c.Changes[0].After != `"booked JFK seat=decline"` {
		t.Errorf("book: %+v", c)
	}
	noPlaceholderSent(t, res.Log)
}
