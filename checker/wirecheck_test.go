package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// initialize is a legacy handshake offering offered and settling on chosen.
func initialize(offered, chosen string) []string {
	return []string{
		"c2s 0 " + rpcRequest("0", "initialize", `{"protocolVersion":"`+offered+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`),
		"s2c 5 " + rpcResult("0", `{"protocolVersion":"`+chosen+`","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`),
		"c2s 6 " + `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
}

// wireLines renders a report's wire findings as "level line: message".
func wireLines(rep *checker.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Signal == checker.SignalWire {
			out = append(out, fmt.Sprintf("%s %d: %s", f.Level, f.Line, f.Message))
		}
	}
	return out
}

func TestWireFindings(t *testing.T) {
	badList := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"inputSchema":{"type":"object"}}]}`
	tests := []struct {
		name   string
		frames []string
		want   []string
		note   string
		revs   []string
	}{{
		name: "the server's choice is the session's revision",
		frames: append(initialize("2025-11-25", "2025-06-18"),
			"c2s 10 "+rpcRequest("1", "tools/list", `{}`),
			"s2c 20 "+rpcResult("1", badList)),
		want: []string{`note 5: session s line 5: wire: tools/list result: /tools/1: missing property "name" (2025-06-18 ListToolsResult)`},
		revs: []string{"2025-06-18", "2025-11-25"}, // the initialize request is the client's offer
	}, {
		name: "the initialize request is judged under the revision it offers",
		frames: []string{
			"c2s 0 " + rpcRequest("0", "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c"}}`),
			"s2c 5 " + rpcResult("0", `{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`),
		},
		want: []string{`note 1: session s line 1: wire: initialize request: /params/clientInfo: missing property "version" (2024-11-05 InitializeRequest)`},
		revs: []string{"2024-11-05"},
	}, {
		name: "a second handshake offers its own revision",
		frames: append(initialize("2025-06-18", "2025-06-18"),
			"c2s 10 "+rpcRequest("1", "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c"}}`),
			"s2c 15 "+rpcResult("1", `{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)),
		want: []string{`note 4: session s line 4: wire: initialize request: /params/clientInfo: missing property "version" (2024-11-05 InitializeRequest)`},
		revs: []string{"2024-11-05", "2025-06-18"},
	}, {
		name: "a 2026-07-28 request declares its revision in _meta",
		frames: []string{
			"c2s 0 " + rpcRequest("1", "tools/call", `{"name":"x","arguments":{"q":[1,{"deep":true}]},`+meta2026+`}`),
			"s2c 5 " + rpcResult("1", `{"content":[{"type":"text","text":"ok"},{"type":"video"}]}`),
		},
		want: []string{`note 2: session s line 2: wire: tools/call result: missing property "resultType"; /content/1/type: is "video", want one of "text", "image", "audio", "resource_link", "resource" (2026-07-28 CallToolResult)`},
		revs: []string{"2026-07-28"},
	}, {
		name: "a server's request in a revision without server requests",
		frames: []string{
			"c2s 0 " + rpcRequest("1", "tools/list", `{`+meta2026+`}`),
			"s2c 1 " + rpcRequest("9", "roots/list", `{}`),
		},
		want: []string{`note 2: session s line 2: wire: roots/list request: /method: 2026-07-28 defines no request a server sends (2026-07-28 JSONRPCMessage)`},
		revs: []string{"2026-07-28"},
	}, {
		name: "a legacy request sent by the wrong side",
		frames: append(initialize("2025-06-18", "2025-06-18"),
			"s2c 10 "+rpcRequest("1", "tools/call", `{"name":"x"}`)),
		want: []string{`note 4: session s line 4: wire: tools/call request: /method: a server may not send tools/call as a request in 2025-06-18 (2025-06-18 ServerRequest)`},
		revs: []string{"2025-06-18"},
	}, {
		name: "a task-augmented request is answered with a CreateTaskResult",
		frames: append(initialize("2025-11-25", "2025-11-25"),
			"c2s 10 "+rpcRequest("1", "tools/call", `{"name":"x","task":{"ttl":60000}}`),
			"s2c 20 "+rpcResult("1", `{"task":{"taskId":"t1","createdAt":"2025-11-25T00:00:00Z","lastUpdatedAt":"2025-11-25T00:00:00Z","ttl":60000}}`)),
		want: []string{`note 5: session s line 5: wire: tools/call result: /task: missing property "status" (2025-11-25 CreateTaskResult)`},
		revs: []string{"2025-11-25"},
	}, {
		name: "a tasks/get poll with task in its params is answered with the task (TS SDK 1.32)",
		frames: append(initialize("2025-11-25", "2025-11-25"),
			"c2s 10 "+rpcRequest("2", "tasks/get", `{"taskId":"t1","task":{"ttl":60000}}`),
			"s2c 20 "+rpcResult("2", `{"taskId":"t1","status":"working","createdAt":"2025-11-25T00:00:00Z","lastUpdatedAt":"2025-11-25T00:00:00Z","ttl":60000}`)),
		revs: []string{"2025-11-25"},
	}, {
		name: "an error response is held to the error shape",
		frames: append(initialize("2025-03-26", "2025-03-26"),
			"c2s 10 "+rpcRequest("1", "tools/list", `{}`),
			"s2c 20 "+`{"jsonrpc":"2.0","id":1,"error":{"code":"E1","message":"no"}}`),
		want: []string{`note 5: session s line 5: wire: tools/list error response: /error/code: is string, want integer (2025-03-26 JSONRPCError)`},
		revs: []string{"2025-03-26"},
	}, {
		name:   "nothing tells the revision",
		frames: []string{"c2s 0 " + toolCall("1", "x", ""), "s2c 5 " + rpcResult("1", `{"content":"not an array"}`)},
		note:   "not validated: no frame tells the session's protocol revision (no initialize exchange, no _meta or MCP-Protocol-Version of 2026-07-28 or later)",
	}, {
		name:   "a revision without a schema",
		frames: initialize("2024-10-07", "2024-10-07"),
		note:   `3 frames not validated: revision "2024-10-07" has no schema here (known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`,
	}, {
		name:   "frames before the handshake",
		frames: append([]string{"s2c 0 " + `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`}, initialize("2025-06-18", "2025-06-18")...),
		note:   "1 frame not validated: they came before any frame told the session's protocol revision",
		revs:   []string{"2025-06-18"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Gate on a signal none of these fire: --wire counts, gates nothing.
			cfg := checker.Config{Wire: true, FailOn: []checker.Signal{checker.SignalIncomplete}}
			rep := check(t, cfg, logOf("s", numbered(tt.frames...)...))
			sr := onlySession(t, rep)
			if !rep.Wire || sr.Wire == nil {
				t.Fatalf("validation did not run: %+v", sr.Wire)
			}
			var got []string
			for _, l := range wireLines(rep) {
				if !strings.Contains(l, "not validated") {
					got = append(got, l)
				}
			}
			sameLines(t, "wire findings", got, tt.want)
			if sr.Counters.WireFindings != len(tt.want) {
				t.Errorf("wire_findings = %d, want %d", sr.Counters.WireFindings, len(tt.want))
			}
			if sr.Wire.Note != tt.note {
				t.Errorf("note = %q\nwant   %q", sr.Wire.Note, tt.note)
			}
			if strings.Join(sr.Wire.Revisions, ",") != strings.Join(tt.revs, ",") {
				t.Errorf("revisions = %v, want %v", sr.Wire.Revisions, tt.revs)
			}
			// The note is one finding, at note level, that counts nothing.
			notes := 0
			for _, l := range wireLines(rep) {
				if strings.Contains(l, "not validated") {
					notes++
					if !strings.HasPrefix(l, "note 0: session s: wire: ") {
						t.Errorf("note finding %q", l)
					}
				}
			}
			if want := min(len(tt.note), 1); notes != want {
				t.Errorf("%d note findings, want %d", notes, want)
			}
			if rep.Verdict != checker.Passed {
				t.Errorf("verdict %s: --wire alone gates nothing", rep.Verdict)
			}
		})
	}
}

// Validation runs only when asked: without it nothing is counted, nothing
// reported, and the report says so; gated, wire fails the run.
func TestWireIsOptIn(t *testing.T) {
	log := logOf("s", numbered(append(initialize("2025-06-18", "2025-06-18"),
		"c2s 10 "+rpcRequest("1", "tools/list", `{}`),
		"s2c 20 "+rpcResult("1", `{"tools":[{"inputSchema":{"type":"object"}}]}`))...)...)

	off := check(t, checker.Config{}, log)
	if sr := onlySession(t, off); off.Wire || sr.Wire != nil || sr.Counters.WireFindings != 0 || len(wireLines(off)) != 0 {
		t.Errorf("validation ran unasked: %+v %v", sr.Wire, wireLines(off))
	}
	for _, s := range checker.DefaultFailOn {
		if s == checker.SignalWire {
			t.Error("wire is in the default gate")
		}
	}

	gated := check(t, checker.Config{FailOn: []checker.Signal{checker.SignalError, checker.SignalWire}}, log)
	sr := onlySession(t, gated)
	if gated.Verdict != checker.Failed || len(sr.FailedSignals) != 1 || sr.FailedSignals[0] != checker.SignalWire {
		t.Errorf("gated: verdict %s, failed %v", gated.Verdict, sr.FailedSignals)
	}
	if got := wireLines(gated); len(got) != 1 || !strings.HasPrefix(got[0], "error 5: ") {
		t.Errorf("gated findings %v, want one error on line 5", got)
	}
	f := gated.Findings[len(gated.Findings)-1]
	if f.Wire == nil || f.Wire.Issues[0].Pointer != "/result/tools/0" || f.Wire.Issues[0].Keyword != "required" ||
		len(f.Rules) != 1 || f.Rules[0].ID != "wire" || f.Rules[0].SpecURL != "https://modelcontextprotocol.io/specification/2025-06-18/schema#listtoolsresult" {
		t.Errorf("finding detail %+v %+v", f.Wire, f.Rules)
	}
}

// A value the capture's redaction replaced is not judged.
func TestWireRedacted(t *testing.T) {
	log := logOf("s", numbered(initialize("2025-06-18", "2025-06-18")...)...) +
		`{"session_id":"s","server_label":"srv","seq":4,"ts":"2026-07-28T12:00:01Z","direction":"c2s","transport":"stdio","redacted":true,"raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"[REDACTED]"}}}` + "\n" +
		`{"session_id":"s","server_label":"srv","seq":5,"ts":"2026-07-28T12:00:01Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":"[REDACTED]"}}}` + "\n"
	rep := check(t, checker.Config{Wire: true}, log)
	sameLines(t, "wire findings", wireLines(rep), []string{
		`note 5: session s line 5: wire: tools/call request: /params/arguments: is string, want object (2025-06-18 CallToolRequest)`,
	})
}

// A session of many frames: validation off the engine's goroutine keeps
// the findings in frame order and the counts exact.
func TestWireManyFrames(t *testing.T) {
	frames := initialize("2025-06-18", "2025-06-18")
	for i := 1; i <= 500; i++ {
		result := `{"content":[{"type":"text","text":"ok"}]}`
		if i%100 == 0 {
			result = `{"content":[{"type":"text"}]}`
		}
		frames = append(frames, fmt.Sprintf("c2s %d %s", 10+i, toolCall(fmt.Sprint(i), "t", "")),
			fmt.Sprintf("s2c %d %s", 10+i, rpcResult(fmt.Sprint(i), result)))
	}
	rep := check(t, checker.Config{Wire: true}, logOf("s", numbered(frames...)...))
	sr := onlySession(t, rep)
	var want []string
	for i := 100; i <= 500; i += 100 {
		seq := 3 + 2*i
		want = append(want, fmt.Sprintf(`note %d: session s line %d: wire: tools/call result: /content/0: missing property "text" (2025-06-18 CallToolResult)`, seq, seq))
	}
	sameLines(t, "wire findings", wireLines(rep), want)
	if sr.Wire.Validated != 1003 || sr.Counters.WireFindings != 5 || len(sr.Wire.Groups) != 1 || sr.Wire.Groups[0].Frames != 5 || sr.Wire.Groups[0].FirstSeq != 203 {
		t.Errorf("summary %+v, wire_findings %d", sr.Wire, sr.Counters.WireFindings)
	}
}

// Two captures of the same scenario give the same fingerprints.
func TestWireFingerprintStable(t *testing.T) {
	scenario := func(sid string) string {
		return logOf(sid, numbered(append(initialize("2025-06-18", "2025-06-18"),
			"c2s 10 "+rpcRequest("1", "tools/list", `{}`),
			"s2c 20 "+rpcResult("1", `{"tools":[{"inputSchema":{"type":"object"}}]}`))...)...)
	}
	a := check(t, checker.Config{Wire: true}, scenario("one"))
	b := check(t, checker.Config{Wire: true}, scenario("two"))
	fa, fb := a.Findings[len(a.Findings)-1], b.Findings[len(b.Findings)-1]
	if fa.Signal != checker.SignalWire || fa.Fingerprint == "" || fa.Fingerprint != fb.Fingerprint {
		t.Errorf("fingerprints %q %q of %s", fa.Fingerprint, fb.Fingerprint, fa.Message)
	}
}
