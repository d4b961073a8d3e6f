package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logOf writes frames (one JSON object a line, without the envelope's
// session fields) as a session log and returns its path.
func logOf(t *testing.T, transport string, frames ...string) string {
	t.Helper()
	var b strings.Builder
	for i, f := range frames {
		fmt.Fprintf(&b, `{"session_id":"s","server_label":"l","seq":%d,"ts":"2026-08-01T00:00:%02dZ","transport":%q,%s}`+"\n", i+1, i, transport, f)
	}
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	metaModern = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"recorder","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"x-trace":"t1"}`
)

// The revision a replay speaks is the recording's: its initialize when it
// has one; else the one its requests declare; else, only when it holds an
// MRTR input_required result (which no other revision carries), Modern
// with _meta of the replay's own. A resultType alone says nothing: a
// server may write it under any revision.
func TestLoadRevision(t *testing.T) {
	tests := []struct {
		name      string
		transport string
		frames    []string
		revision  string
		modern    bool
		ownMeta   bool
		declared  []string // per step
	}{
		{"initialize negotiates", "stdio", []string{
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			`"direction":"s2c","raw":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		}, "2025-11-25", false, false, []string{""}},
		{"requests declare 2026-07-28; ping does not", "stdio", []string{
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + metaModern + `}}`,
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + metaModern + `}}`,
		}, "2026-07-28", true, false, []string{"2026-07-28", "", "2026-07-28"}},
		{"a cut 2025-11-25 session whose server writes resultType", "stdio", []string{
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":5,"method":"ping"}`,
			`"direction":"s2c","raw":{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}`,
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":6,"method":"tools/list"}`,
			`"direction":"s2c","raw":{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","tools":[]}}`,
		}, "", false, false, []string{"", ""}},
		{"MRTR with no declaration", "stdio", []string{
			`"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book"}}`,
			`"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`,
		}, "2026-07-28", true, true, []string{""}},
		{"HTTP, declared by the header only", "http", []string{
			`"direction":"c2s","mcp_protocol_version":"2026-07-28","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		}, "2026-07-28", true, true, []string{""}},
		{"HTTP 2025-11-25, captured after the handshake", "http", []string{
			`"direction":"c2s","mcp_protocol_version":"2025-11-25","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		}, "2025-11-25", false, false, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := load(t, logOf(t, tt.transport, tt.frames...))
			var declared []string
			for _, r := range rec.Steps {
				declared = append(declared, r.Declared)
			}
			if rec.Revision != tt.revision || rec.Modern() != tt.modern || rec.ownMeta != tt.ownMeta || strings.Join(declared, ",") != strings.Join(tt.declared, ",") {
				t.Errorf("revision %q modern %v ownMeta %v declared %q; want %q %v %v %q",
					rec.Revision, rec.Modern(), rec.ownMeta, declared, tt.revision, tt.modern, tt.ownMeta, tt.declared)
			}
		})
	}
}

// What a replayed request carries: a recorded _meta that declares a
// revision keeps every key, with the replay's clientInfo in place of the
// recorded client's (and keys an edit dropped back from the recording);
// a request that declared nothing gets no _meta, in a 2026-07-28 session
// too; only a modern recording that declares nothing anywhere gets the
// replay's own.
func TestPrepareMeta(t *testing.T) {
	replayInfo := `{"name":"mcpsnoop-replay","version":"9"}`
	tests := []struct {
		name    string
		ownMeta bool
		params  string // recorded
		edited  string // sent instead, when set
		want    string
	}{
		{"a recorded _meta keeps its keys", false, `{"name":"echo",` + metaModern + `}`, "",
			`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":` + replayInfo + `,"io.modelcontextprotocol/protocolVersion":"2026-07-28","x-trace":"t1"},"name":"echo"}`},
		{"an edit that dropped _meta gets it back", false, `{"name":"echo",` + metaModern + `}`, `{"name":"other"}`,
			`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":` + replayInfo + `,"io.modelcontextprotocol/protocolVersion":"2026-07-28","x-trace":"t1"},"name":"other"}`},
		{"no declaration, no _meta", false, `{"name":"echo"}`, "", `{"name":"echo"}`},
		{"a _meta without a revision is left alone", false, `{"_meta":{"progressToken":1}}`, "", `{"_meta":{"progressToken":1}}`},
		{"none declared anywhere in a modern recording", true, `{"name":"echo"}`, "",
			`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":` + replayInfo + `,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &Recording{Revision: Modern, modern: tt.ownMeta, ownMeta: tt.ownMeta, capsUsed: map[string]bool{}}
			s := &session{rec: rec, o: Options{ClientName: "mcpsnoop-replay", ClientVersion: "9"}, cursors: map[string]string{}}
			r := &Request{Method: "tools/call", Params: json.RawMessage(tt.params), Declared: metaRevision(json.RawMessage(tt.params))}
			sent := r.Params
			if tt.edited != "" {
				sent = json.RawMessage(tt.edited)
			}
			if got := string(s.prepare(r, sent)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// pingAndCall pings, lists the tools and calls echo, as a client of any
// revision would (the Go SDK's client pings without _meta under
// 2026-07-28 too).
func pingAndCall(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("recorded ping: %v", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	call(ctx, t, cs, "echo", map[string]any{"text": "hi"})
}

// A session recorded by the Go SDK's client, 2025-11-25 or 2026-07-28,
// against a server that serves both revisions verifies against it: the
// replay speaks the recorded revision, the ping goes without the _meta
// its recording lacked (2026-07-28 has no ping: with one, the server
// rightly answers -32601), and every recorded _meta goes as recorded but
// for clientInfo.
func TestReplayKeepsTheRecordedRevision(t *testing.T) {
	_, v1, _ := programs(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			path := record(t, v1, version, pingAndCall)
			rec := load(t, path)
			res, v := replay(t, rec, nil, Options{})
			var b bytes.Buffer
			_ = v.WriteText(&b)
			if v.Regressed() || res.Revision != version || verdicts(v)["ping"].Outcome != OutcomeSame || verdicts(v)["echo"].Outcome != OutcomeSame {
				t.Fatalf("revision %s:\n%s", res.Revision, b.String())
			}
			recorded := sentMeta(t, path)
			replayed := sentMeta(t, res.Log)
			if len(recorded) != len(replayed) {
				t.Fatalf("requests: recorded %v, replayed %v", recorded, replayed)
			}
			for method, meta := range recorded {
				got, ok := replayed[method]
				if !ok {
					t.Errorf("%s was not replayed", method)
					continue
				}
				if method == "ping" && got != nil {
					t.Errorf("the replayed ping carries _meta %v", got)
				}
				if (meta == nil) != (got == nil) {
					t.Errorf("%s: recorded _meta %v, replayed %v", method, meta, got)
					continue
				}
				for k, want := range meta {
					if k == metaClientInfo {
						if !strings.Contains(string(got[k]), `"mcpsnoop-replay"`) {
							t.Errorf("%s: clientInfo %s", method, got[k])
						}
						continue
					}
					if !bytes.Equal(got[k], want) {
						t.Errorf("%s: _meta %s is %s, recorded %s", method, k, got[k], want)
					}
				}
				if len(got) != len(meta) {
					t.Errorf("%s: _meta %v, recorded %v", method, got, meta)
				}
			}
		})
	}
}

// A 2025-11-25 recording cut after its handshake (the capture began
// late), of a server that writes resultType into every result as some
// dual-era servers do: the replay initializes for 2025-11-25 and sends
// the ping bare, and it verifies (resultType ignored: this server writes
// none under 2025-11-25). Taking resultType for 2026-07-28 gave every
// request _meta, and the ping -32601.
func TestReplayCutLegacyRecordingWithResultTypes(t *testing.T) {
	_, v1, _ := programs(t)
	path := record(t, v1, "2025-11-25", pingAndCall)
	var out bytes.Buffer
	seq := uint64(0)
	for _, f := range framesOf(t, path) {
		var m message
		_ = json.Unmarshal(f.Raw, &m)
		if m.Method == "initialize" || m.Method == "notifications/initialized" || string(m.ID) == "1" {
			continue // the handshake: initialize is the SDK client's id 1
		}
		if len(m.Result) > 0 && m.Result[0] == '{' {
			res := object(m.Result)
			res["resultType"] = json.RawMessage(`"complete"`)
			f.Raw = set(f.Raw, "result", encode(res))
		}
		seq++
		f.Seq = seq
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := load(t, path)
	if rec.Init != nil || rec.Modern() {
		t.Fatalf("the cut recording: init %v, modern %v, revision %q", rec.Init != nil, rec.Modern(), rec.Revision)
	}
	c, err := NewComparer([]string{"$.result.resultType"}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	res, v := replayJudged(t, rec, nil, Options{}, VerifyOptions{Comparer: c, Durations: untimed.Durations})
	var b bytes.Buffer
	_ = v.WriteText(&b)
	if v.Regressed() || res.Revision != "2025-11-25" || verdicts(v)["ping"].Outcome != OutcomeSame || verdicts(v)["echo"].Outcome != OutcomeSame {
		t.Fatalf("revision %s:\n%s", res.Revision, b.String())
	}
	if m := sentMeta(t, res.Log); m["ping"] != nil || m["tools/call"] != nil {
		t.Errorf("the replay sent _meta: %v", m)
	}
}

// sentMeta maps each method the client sent (initialize and
// notifications aside) to the _meta its params carried (nil for none).
func sentMeta(t *testing.T, path string) map[string]map[string]json.RawMessage {
	t.Helper()
	out := map[string]map[string]json.RawMessage{}
	for _, f := range framesOf(t, path) {
		var m message
		if f.Direction != capture.ClientToServer || json.Unmarshal(f.Raw, &m) != nil || !m.hasID() || m.Method == "" || m.Method == "initialize" {
			continue
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		out[m.Method] = p.Meta
	}
	return out
}

// Over HTTP the header follows the body: MCP-Protocol-Version is what a
// request's _meta declares, else the session's. The SDK's stateless
// server refuses the SDK client's 2026-07-28 ping (no _meta) with a 400;
// the replay sends the ping as recorded and gets the same answer, where
// a _meta of its own would have turned it into a -32601.
func TestHTTPReplayKeepsTheRecordedRevision(t *testing.T) {
	l := newLoopback(t, sdkHandler(true, false))
	rec := load(t, recordHTTP(t, l.url(), "", nil, func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if err := cs.Ping(ctx, nil); err == nil || !strings.Contains(err.Error(), "Bad Request") {
			t.Fatalf("recorded ping: %v", err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		call(ctx, t, cs, "echo", map[string]any{"text": "hi"})
	}))
	if !rec.Modern() {
		t.Fatalf("recording: revision %q", rec.Revision)
	}
	before := len(l.requests())
	res := replayHTTP(t, rec, l.url(), nil, Options{All: true})
	v, err := Verify(rec, res, untimed)
	if err != nil {
		t.Fatal(err)
	}
	if v.Regressed() || verdicts(v)["ping"].Outcome != OutcomeSame {
		var b bytes.Buffer
		_ = v.WriteText(&b)
		t.Fatalf("replay:\n%s", b.String())
	}
	for _, r := range l.requests()[before:] {
		if h := r.header.Get("Mcp-Protocol-Version"); h != Modern {
			t.Errorf("%s: MCP-Protocol-Version %q", r.body, h)
		}
		if bytes.Contains(r.body, []byte(`"method":"ping"`)) && bytes.Contains(r.body, []byte(`_meta`)) {
			t.Errorf("the ping carries _meta: %s", r.body)
		}
	}
}

// TestLoadReadsTheLastOccurrence: a recorded request that repeats a name
// is read as the server read it, by its last occurrence: the tool a replay
// judges safe or not is the one the server ran.
func TestLoadReadsTheLastOccurrence(t *testing.T) {
	rec := load(t, logOf(t, "stdio",
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{},"name":"delete_repo"}}`))
	if len(rec.Steps) != 1 || rec.Steps[0].Name != "delete_repo" {
		t.Errorf("steps %+v, want the one call of delete_repo", rec.Steps)
	}
}
