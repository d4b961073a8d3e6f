package checker

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// replyLog builds an HTTP session log frame by frame.
type replyLog struct {
	frames []capture.Frame
	t0     time.Time
}

func (l *replyLog) add(f capture.Frame) {
	f.SessionID, f.ServerLabel, f.Transport = "srv-1-aaaaaaaaaaaa", "srv", capture.TransportHTTP
	f.Seq = uint64(len(l.frames) + 1)
	f.TS = l.t0.Add(time.Duration(len(l.frames)) * 100 * time.Millisecond)
	if f.ConnID == "" {
		f.ConnID = "127.0.0.1:50000"
	}
	l.frames = append(l.frames, f)
}

func (l *replyLog) c2s(raw string) {
	l.add(capture.Frame{Direction: capture.ClientToServer, Raw: json.RawMessage(raw)})
}

// check runs the log through an engine. Until session.go calls
// onStatusReply itself, each frame is also handed to it here; once it does,
// that second call finds the call settled and does nothing, so the test
// reads the same either way.
func (l *replyLog) check(t *testing.T) (*SessionReport, []CallRecord, *Report) {
	t.Helper()
	var calls []CallRecord
	e := New(Config{OnCall: func(c CallRecord) { calls = append(calls, c) }})
	for i := range l.frames {
		f := l.frames[i]
		e.Ingest(&f, Position{Path: "log.jsonl", Name: "log.jsonl", Line: i + 1})
		s := e.sessions[f.SessionID]
		s.onStatusReply(&frameCtx{s: s, f: &f, msg: parseMessage(f.Raw)})
	}
	rep := e.Report()
	return rep.Sessions[0], calls, rep
}

func statusOf(calls []CallRecord, id string) string {
	for _, c := range calls {
		if c.ID == id {
			return c.Status
		}
	}
	return "(no call)"
}

const greetCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{}}}`

func TestStatusReplySettlesCallAsFailed(t *testing.T) {
	challenge := `Bearer resource_metadata="https://ex/.well-known/oauth-protected-resource"`
	for _, tt := range []struct {
		name    string
		answer  capture.Frame
		status  string // the call's, at the end
		pending int
		errors  int
	}{
		{"401 challenge", capture.Frame{Status: 401, AuthChallenge: challenge, ReplyTo: json.RawMessage(`7`)}, "error", 0, 1},
		// A 400 refusal (what the TypeScript SDK answers a request it
		// cannot take) is the lowest failure status: it settles the call
		// like any other, with a body that is not JSON-RPC or none.
		{"400 refusal", capture.Frame{Status: 400, Text: "Bad Request", ReplyTo: json.RawMessage(`7`)}, "error", 0, 1},
		{"bare 400", capture.Frame{Status: 400, ReplyTo: json.RawMessage(`7`)}, "error", 0, 1},
		{"400 JSON-RPC error with a null id", capture.Frame{Status: 400, ReplyTo: json.RawMessage(`7`),
			Raw: json.RawMessage(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)}, "error", 0, 1},
		{"502 unreachable", capture.Frame{Status: 502, ReplyTo: json.RawMessage(`7`)}, "error", 0, 1},
		{"500 error page", capture.Frame{Status: 500, Text: "<html>oops</html>", ReplyTo: json.RawMessage(`7`)}, "error", 0, 1},
		{"403 JSON that is not JSON-RPC", capture.Frame{Status: 403, Raw: json.RawMessage(`{"detail":"bad origin"}`), ReplyTo: json.RawMessage(`7`)}, "error", 0, 1},
		{"no reply_to (older captures)", capture.Frame{Status: 401, AuthChallenge: challenge}, "pending", 1, 1},
		{"202 is no failure", capture.Frame{Status: 202, ReplyTo: json.RawMessage(`7`)}, "pending", 1, 0},
		{"another id", capture.Frame{Status: 401, ReplyTo: json.RawMessage(`"7"`)}, "pending", 1, 1},
		{"another connection", capture.Frame{Status: 401, ReplyTo: json.RawMessage(`7`), ConnID: "127.0.0.1:50001"}, "pending", 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &replyLog{t0: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)}
			l.c2s(greetCall)
			tt.answer.Direction = capture.ServerToClient
			l.add(tt.answer)
			sr, calls, rep := l.check(t)
			if got := statusOf(calls, "7"); got != tt.status {
				t.Errorf("call status %q, want %q", got, tt.status)
			}
			if sr.Counters.Pending != tt.pending || sr.Counters.Errors != tt.errors {
				t.Errorf("pending=%d errors=%d, want %d and %d", sr.Counters.Pending, sr.Counters.Errors, tt.pending, tt.errors)
			}
			if tt.status != "error" {
				return
			}
			if len(sr.Tools) != 1 || sr.Tools[0].Errors != 1 || sr.Tools[0].Pending != 0 || sr.Tools[0].Calls != 1 {
				t.Errorf("tool stats %+v", sr.Tools)
			}
			for _, f := range rep.Findings {
				if f.Signal == SignalPending {
					t.Errorf("a settled call is reported pending: %s", f.Message)
				}
			}
			for _, c := range calls {
				if c.ID == "7" && (!c.HasDuration || c.Duration != 100*time.Millisecond) {
					t.Errorf("duration %v (has %v), want 100ms", c.Duration, c.HasDuration)
				}
			}
		})
	}
}

// A call already answered keeps its answer; a later status frame naming it
// changes nothing but its own transport error.
func TestStatusReplyLeavesSettledCalls(t *testing.T) {
	l := &replyLog{t0: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)}
	l.c2s(greetCall)
	l.add(capture.Frame{Direction: capture.ServerToClient, Status: 200, Raw: json.RawMessage(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)})
	l.add(capture.Frame{Direction: capture.ServerToClient, Status: 500, ReplyTo: json.RawMessage(`7`)})
	sr, calls, _ := l.check(t)
	if got := statusOf(calls, "7"); got != "ok" {
		t.Errorf("call status %q, want ok", got)
	}
	if sr.Counters.Errors != 1 || sr.Tools[0].Errors != 0 {
		t.Errorf("errors=%d tool errors=%d, want the transport error only", sr.Counters.Errors, sr.Tools[0].Errors)
	}
}

// Under MRTR the refused request is a retry: its id names the chain, which
// fails as one call.
func TestStatusReplyFailsAnMRTRChain(t *testing.T) {
	l := &replyLog{t0: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	l.c2s(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","arguments":{},` + meta + `}}`)
	l.add(capture.Frame{Direction: capture.ServerToClient, Status: 200, Raw: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s1","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}}}}`)})
	l.c2s(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book","arguments":{},"requestState":"s1","inputResponses":{"q":{"action":"accept","content":{}}},` + meta + `}}`)
	l.add(capture.Frame{Direction: capture.ServerToClient, Status: 401, ReplyTo: json.RawMessage(`2`)})
	sr, calls, _ := l.check(t)
	if got := statusOf(calls, "1"); got != "error" {
		t.Errorf("chain status %q, want error", got)
	}
	if sr.Counters.Pending != 0 || len(sr.Interactions) != 1 || sr.Interactions[0].Outcome != "failed" || sr.Interactions[0].RoundTrips != 2 {
		t.Errorf("pending=%d interactions=%+v", sr.Counters.Pending, sr.Interactions)
	}
}

// The engine settles the call a bare status frame names.
func TestStatusReplyThroughTheEngine(t *testing.T) {
	e := New(Config{})
	l := &replyLog{t0: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)}
	l.c2s(greetCall)
	l.add(capture.Frame{Direction: capture.ServerToClient, Status: 401, AuthChallenge: `Bearer realm="x"`, ReplyTo: json.RawMessage(`7`)})
	for i := range l.frames {
		e.Ingest(&l.frames[i], Position{Line: i + 1})
	}
	sr := e.Report().Sessions[0]
	if sr.Counters.Pending != 0 || sr.Counters.Errors != 1 || sr.Tools[0].Errors != 1 {
		t.Errorf("counters %+v tools %+v", sr.Counters, sr.Tools)
	}
}

// A 404 whose body is a JSON-RPC error with a null id (the session was not
// found) settles the request its HTTP exchange carried.
func TestNullIDRefusalSettlesTheCall(t *testing.T) {
	e := New(Config{})
	l := &replyLog{t0: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)}
	l.c2s(greetCall)
	l.add(capture.Frame{Direction: capture.ServerToClient, Status: 404, ReplyTo: json.RawMessage(`7`),
		Raw: json.RawMessage(`{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`)})
	for i := range l.frames {
		e.Ingest(&l.frames[i], Position{Line: i + 1})
	}
	sr := e.Report().Sessions[0]
	if sr.Counters.Pending != 0 || sr.Counters.Errors != 1 || sr.Counters.Warnings != 0 {
		t.Errorf("counters = %+v", sr.Counters)
	}
}
