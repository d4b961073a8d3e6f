package httpcapture

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

func TestSplitBody(t *testing.T) {
	type part struct {
		Data string
		JSON bool
	}
	for _, tt := range []struct {
		body      string
		truncated bool
		want      []part
		batch     bool
	}{
		{"", false, nil, false},
		{" \r\n\t", false, nil, false},
		{`{"jsonrpc": "2.0", "id": 1}` + "\n", false, []part{{`{"jsonrpc":"2.0","id":1}`, true}}, false},
		{`[{"id": 1}, {"id":2} ]`, false, []part{{`{"id":1}`, true}, {`{"id":2}`, true}}, true},
		{`[ 1 , "a b" ,[2]]`, false, []part{{`1`, true}, {`"a b"`, true}, {`[2]`, true}}, true},
		{`[]`, false, []part{{`[]`, true}}, false},
		{`[{"id":1},`, false, []part{{`[{"id":1},`, false}}, false},
		{"<html>oops</html>\n", false, []part{{"<html>oops</html>", false}}, false},
		{`{"id":1}`, true, []part{{`{"id":1}`, false}}, false},
		{"\"\xff\"", false, []part{{"\"\xff\"", false}}, false},
	} {
		parts, batch := splitBody([]byte(tt.body), tt.truncated)
		var got []part
		for _, p := range parts {
			got = append(got, part{string(p.data), p.json})
		}
		if !reflect.DeepEqual(got, tt.want) || batch != tt.batch {
			t.Errorf("splitBody(%q, %v) = %v batch=%v, want %v batch=%v", tt.body, tt.truncated, got, batch, tt.want, tt.batch)
		}
	}
}

func TestRequestID(t *testing.T) {
	for raw, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`:  `7`,
		`{"method":"x","id":"a\"b"}`:                      `"a\"b"`,
		`{"method":"x","id":null}`:                        `null`,
		`{"jsonrpc":"2.0","method":"notifications/x"}`:    ``,
		`{"jsonrpc":"2.0","id":7,"result":{}}`:            ``,
		`{"method":1,"id":7}`:                             ``,
		`{"ID":7,"method":"x"}`:                           ``,
		`{"id":1,"id":2,"method":"x"}`:                    `1`,
		`[{"id":1,"method":"x"}]`:                         ``,
		`{"method":"x","params":{"id":3},"id":{"n":[1]}}`: `{"n":[1]}`,
	} {
		if got := string(requestID([]byte(raw))); got != want {
			t.Errorf("requestID(%s) = %q, want %q", raw, got, want)
		}
	}
}

// Its Close waits an hour for a call to out, which never hangs: one that
// gave up would only say the machine was busy.
func newTestHTTPLog(out *memLog, red *capture.Redactor, queue int) *Log {
	return newLog(out, LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "test.jsonl", Redactor: red, closeWait: time.Hour}, queue)
}

// Routing headers ride the first frame of a batch, transport headers every
// frame; reply_to rides what no checker could match by itself.
func TestHTTPLogFrames(t *testing.T) {
	out := &memLog{}
	l := newTestHTTPLog(out, nil, 64)
	params := []capture.ParamHeader{{Name: "Mcp-Param-Region", Value: "eu"}}
	single := &exchange{conn: "127.0.0.1:1", method: "tools/call", name: "greet", version: "2026-07-28", params: params,
		contentType: "application/json", accept: "application/json, text/event-stream", origin: "http://localhost"}
	l.add(observation{kind: obsRequest, x: single, body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet"}}`)})
	l.add(observation{kind: obsResponse, x: single, resp: &responseInfo{status: 401, challenge: `Bearer realm="x"`}})

	batch := &exchange{conn: "127.0.0.1:2", method: "ping", version: "2025-11-25"}
	l.add(observation{kind: obsRequest, x: batch, body: []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)})
	l.add(observation{kind: obsResponse, x: batch, resp: &responseInfo{status: 500, contentType: "text/html"}, body: []byte("<html>oops</html>")})

	note := &exchange{conn: "127.0.0.1:3"}
	l.add(observation{kind: obsRequest, x: note, body: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)})
	l.add(observation{kind: obsResponse, x: note, resp: &responseInfo{status: 202}})

	page := &exchange{conn: "127.0.0.1:4"}
	l.add(observation{kind: obsRequest, x: page, body: []byte(`{"jsonrpc":"2.0","id":"q","method":"tools/list"}`)})
	l.add(observation{kind: obsResponse, x: page, resp: &responseInfo{status: 403, contentType: "text/plain"}, body: []byte("Forbidden\n")})
	rpcErr := &exchange{conn: "127.0.0.1:5"}
	l.add(observation{kind: obsRequest, x: rpcErr, body: []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)})
	l.add(observation{kind: obsResponse, x: rpcErr, resp: &responseInfo{status: 400, contentType: "application/json"}, body: []byte(`{"jsonrpc":"2.0","id":9,"error":{"code":-32020,"message":"x"}}`)})
	// Exactly 400: a refusal in plain text, and the TypeScript SDK's
	// JSON-RPC error with a null id, both say which request they refuse.
	refused := &exchange{conn: "127.0.0.1:6"}
	l.add(observation{kind: obsRequest, x: refused, body: []byte(`{"jsonrpc":"2.0","id":10,"method":"tools/call"}`)})
	l.add(observation{kind: obsResponse, x: refused, resp: &responseInfo{status: 400, contentType: "text/plain"}, body: []byte("Bad Request")})
	nullID := &exchange{conn: "127.0.0.1:7"}
	l.add(observation{kind: obsRequest, x: nullID, body: []byte(`{"jsonrpc":"2.0","id":11,"method":"tools/call"}`)})
	l.add(observation{kind: obsResponse, x: nullID, resp: &responseInfo{status: 400, contentType: "application/json"}, body: []byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)})
	// Below 400 nothing is a refusal.
	fine := &exchange{conn: "127.0.0.1:8"}
	l.add(observation{kind: obsRequest, x: fine, body: []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call"}`)})
	l.add(observation{kind: obsResponse, x: fine, resp: &responseInfo{status: 399, contentType: "text/plain"}, body: []byte("odd")})
	if lost := l.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
	frames := out.frames(t)
	var lines []string
	for i, f := range frames {
		if f.Seq != uint64(i+1) || f.Transport != capture.TransportHTTP || f.SessionID != "srv-1-aaaaaaaaaaaa" {
			t.Errorf("frame %d: seq %d transport %q", i, f.Seq, f.Transport)
		}
		if i > 0 && f.TS.Before(frames[i-1].TS) {
			t.Errorf("frame %d goes back in time", i)
		}
		f.Seq, f.TS, f.SessionID, f.ServerLabel, f.Transport = 0, time.Time{}, "", "", ""
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(f)
		line := strings.TrimSpace(strings.Replace(buf.String(), `"transport":"",`, "", 1))
		line = line[strings.Index(line, `"direction"`):]
		lines = append(lines, line)
	}
	want := []string{
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet"}},"mcp_method":"tools/call","mcp_name":"greet","mcp_protocol_version":"2026-07-28","mcp_param_headers":[{"name":"Mcp-Param-Region","value":"eu"}],"conn_id":"127.0.0.1:1","content_type":"application/json","accept":"application/json, text/event-stream","origin":"http://localhost"}`,
		`"direction":"s2c","conn_id":"127.0.0.1:1","status":401,"auth_challenge":"Bearer realm=\"x\"","reply_to":7}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"},"mcp_method":"ping","mcp_protocol_version":"2025-11-25","batch":true,"conn_id":"127.0.0.1:2"}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":2,"method":"ping"},"mcp_protocol_version":"2025-11-25","batch":true,"conn_id":"127.0.0.1:2"}`,
		`"direction":"s2c","text":"<html>oops</html>","conn_id":"127.0.0.1:2","status":500,"content_type":"text/html"}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","method":"notifications/initialized"},"conn_id":"127.0.0.1:3"}`,
		`"direction":"s2c","conn_id":"127.0.0.1:3","status":202}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":"q","method":"tools/list"},"conn_id":"127.0.0.1:4"}`,
		`"direction":"s2c","text":"Forbidden","conn_id":"127.0.0.1:4","status":403,"content_type":"text/plain","reply_to":"q"}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":9,"method":"tools/list"},"conn_id":"127.0.0.1:5"}`,
		`"direction":"s2c","raw":{"jsonrpc":"2.0","id":9,"error":{"code":-32020,"message":"x"}},"conn_id":"127.0.0.1:5","status":400,"content_type":"application/json"}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":10,"method":"tools/call"},"conn_id":"127.0.0.1:6"}`,
		`"direction":"s2c","text":"Bad Request","conn_id":"127.0.0.1:6","status":400,"content_type":"text/plain","reply_to":10}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":11,"method":"tools/call"},"conn_id":"127.0.0.1:7"}`,
		`"direction":"s2c","raw":{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null},"conn_id":"127.0.0.1:7","status":400,"content_type":"application/json","reply_to":11}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":12,"method":"tools/call"},"conn_id":"127.0.0.1:8"}`,
		`"direction":"s2c","text":"odd","conn_id":"127.0.0.1:8","status":399,"content_type":"text/plain"}`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// An observation's place is taken when it begins: one that finishes late
// is still written before those begun after it, a batch takes consecutive
// seqs, and an empty one takes none.
func TestHTTPLogOrder(t *testing.T) {
	out := &memLog{}
	l := newTestHTTPLog(out, nil, 64)
	x := &exchange{conn: "c"}
	req := l.begin(observation{kind: obsRequest, x: x}, false)
	empty := l.begin(observation{kind: obsRequest, x: x}, false)
	resp := l.begin(observation{kind: obsResponse, x: x, resp: &responseInfo{status: 200}}, false)
	l.add(observation{kind: obsResponse, x: x, resp: &responseInfo{status: 200}, body: []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`)})
	l.finish(resp, []byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`), false)
	l.finish(empty, nil, false)
	l.finish(req, []byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`), false)
	l.Close()
	var got []string
	for _, f := range out.frames(t) {
		got = append(got, f.Direction+" "+string(f.Raw))
		if f.Seq != uint64(len(got)) {
			t.Errorf("seq %d at position %d", f.Seq, len(got))
		}
	}
	want := []string{
		`c2s {"jsonrpc":"2.0","id":1,"method":"a"}`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"b"}`,
		`s2c {"jsonrpc":"2.0","id":1,"result":{}}`,
		`s2c {"jsonrpc":"2.0","id":2,"result":{}}`,
		`s2c {"jsonrpc":"2.0","method":"notifications/progress"}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("log:\n%s", strings.Join(got, "\n"))
	}
}

// A full queue drops observations without waiting and leaves their seqs
// unused; an observation still open at Close is lost the same way.
func TestHTTPLogDrops(t *testing.T) {
	var warn bytes.Buffer
	out := &memLog{block: make(chan struct{}), entered: make(chan struct{}, 1)}
	l := newLog(out, LogOptions{SessionID: "s", Label: "l", Path: "p.jsonl", Warn: &warn}, 2)
	x := &exchange{conn: "c"}
	body := func(id int) []byte { return []byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"m"}`) }
	l.add(observation{kind: obsRequest, x: x, body: body(1)})
	<-out.entered // the writer is stuck writing frame 1
	l.add(observation{kind: obsRequest, x: x, body: body(2)})
	l.add(observation{kind: obsRequest, x: x, body: body(3)})
	l.add(observation{kind: obsRequest, x: x, body: body(4)}) // the queue is full
	close(out.block)
	open := l.begin(observation{kind: obsRequest, x: x}, false)
	_ = open
	if lost := l.Close(); lost != 2 {
		t.Errorf("lost %d, want 2", lost)
	}
	var seqs []uint64
	frames := out.frames(t)
	for _, f := range frames {
		seqs = append(seqs, f.Seq)
	}
	// The closing frame takes the seq after the last one given (the open
	// observation's) and counts both losses.
	if closing := frames[len(frames)-1]; !reflect.DeepEqual(seqs, []uint64{1, 2, 3, 6}) || closing.Direction != capture.Meta || closing.LastSeq != 5 || closing.Dropped != 2 {
		t.Errorf("seqs %v, closing frame %+v", seqs, frames[len(frames)-1])
	}
	if !strings.Contains(warn.String(), "frames are being dropped from the log p.jsonl") {
		t.Errorf("warning: %q", warn.String())
	}
}

// Redaction reaches every frame, headers included, before it is written.
func TestHTTPLogRedacts(t *testing.T) {
	red, err := capture.NewRedactor(capture.RedactOptions{Keys: []string{"password"}})
	if err != nil {
		t.Fatal(err)
	}
	out := &memLog{}
	l := newTestHTTPLog(out, red, 8)
	x := &exchange{conn: "c", params: []capture.ParamHeader{{Name: "Mcp-Param-Password", Value: "hunter2"}, {Name: "Mcp-Param-User", Value: "ada"}}}
	l.add(observation{kind: obsRequest, x: x, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"password":"hunter2","user":"ada"}}}`)})
	l.Close()
	frames := out.frames(t)
	f := frames[0]
	if !f.Redacted || strings.Contains(string(f.Raw), "hunter2") || f.McpParamHeaders[0].Value != capture.RedactedValue || f.McpParamHeaders[1].Value != "ada" {
		t.Errorf("frame %+v", f)
	}
	if x.params[0].Value != "hunter2" {
		t.Error("redaction changed the exchange's own headers")
	}
}

// An exchange that never finishes at the head of a full queue is given up,
// so the frames behind it reach the log.
func TestHTTPLogStalledHead(t *testing.T) {
	var warn bytes.Buffer
	out := &memLog{block: make(chan struct{}), entered: make(chan struct{}, 1)}
	close(out.block)
	l := newLog(out, LogOptions{SessionID: "s", Label: "l", Path: "p.jsonl", Warn: &warn}, 4)
	x := &exchange{conn: "c"}
	body := func(id int) []byte { return []byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"m"}`) }
	stalled := l.begin(observation{kind: obsRequest, x: x}, false) // never finished
	_ = stalled
	for id := 1; id <= 3; id++ {
		l.add(observation{kind: obsRequest, x: x, body: body(id)})
	}
	l.add(observation{kind: obsRequest, x: x, body: body(4)})                                     // full: the stalled head goes
	for deadline := time.Now().Add(time.Minute); l.w.Queued() > 0; time.Sleep(time.Millisecond) { // until the writer has drained the queue
		if time.Now().After(deadline) {
			t.Fatalf("the queue never drained: %d queued", l.w.Queued())
		}
	}
	for id := 5; id <= 7; id++ {
		l.add(observation{kind: obsRequest, x: x, body: body(id)})
	}
	l.Close()
	var ids []string
	for _, f := range out.frames(t) {
		if f.Direction != capture.Meta {
			ids = append(ids, string(f.Raw))
		}
	}
	if len(ids) != 6 {
		t.Errorf("only %d frames reached the log behind a stalled head: %v", len(ids), ids)
	}
}
