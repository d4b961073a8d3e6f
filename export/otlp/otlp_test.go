package otlp_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/export/internal/formattest"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// session is one decoded resourceSpans.
type session struct {
	attrs pcommon.Map
	spans []ptrace.Span
}

// decode reads an export back with the collector's own OTLP request type
// and groups the spans by session.
func decode(t *testing.T, out []byte) (ptrace.Traces, map[string]*session, []string) {
	t.Helper()
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(out); err != nil {
		t.Fatalf("not an OTLP/JSON export request: %v\n%s", err, out)
	}
	td := req.Traces()
	byID := map[string]*session{}
	var order []string
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		id, _ := rs.Resource().Attributes().Get("mcpsnoop.session.id")
		s := &session{attrs: rs.Resource().Attributes()}
		byID[id.Str()] = s
		order = append(order, id.Str())
		if rs.ScopeSpans().Len() != 1 {
			t.Fatalf("session %s: %d scopeSpans", id.Str(), rs.ScopeSpans().Len())
		}
		ss := rs.ScopeSpans().At(0)
		if ss.Scope().Name() != "mcpsnoop" || ss.Scope().Version() != "" {
			t.Errorf("scope %q %q", ss.Scope().Name(), ss.Scope().Version())
		}
		for j := 0; j < ss.Spans().Len(); j++ {
			s.spans = append(s.spans, ss.Spans().At(j))
		}
	}
	return td, byID, order
}

func exportOTLP(t *testing.T, paths ...string) ([]byte, map[string]*session, []string) {
	t.Helper()
	res := formattest.Run(t, otlp.New(), paths...)
	out := res.Output
	if !json.Valid(out) || !bytes.HasPrefix(out, []byte("{\n  \"resourceSpans\": [")) {
		t.Fatalf("not pretty JSON:\n%s", out)
	}
	var again bytes.Buffer
	if err := json.Indent(&again, out, "", "  "); err != nil || !bytes.Equal(bytes.TrimSpace(again.Bytes()), bytes.TrimSpace(out)) {
		t.Errorf("output is not indented as json.Indent would (err %v):\n%s", err, out)
	}
	_, byID, order := decode(t, out)
	if len(order) != len(res.Report.Sessions) {
		t.Errorf("%d resourceSpans for %d sessions", len(order), len(res.Report.Sessions))
	}
	for _, sr := range res.Report.Sessions {
		s := byID[sr.ID]
		if s == nil {
			t.Fatalf("session %s missing", sr.ID)
		}
		if len(s.spans) != sr.Calls {
			t.Errorf("session %s: %d spans for %d calls", sr.ID, len(s.spans), sr.Calls)
		}
	}
	return out, byID, order
}

func str(m pcommon.Map, k string) string {
	v, ok := m.Get(k)
	if !ok {
		return "<absent>"
	}
	return v.AsString()
}

func sha(parts ...string) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p + "\x00"))
	}
	return h.Sum(nil)
}

func TestStoreExample(t *testing.T) {
	out, byID, _ := exportOTLP(t, "../../fixtures/store-example.jsonl")
	formattest.Golden(t, "store-example.json", out)
	s := byID["store-example"]
	wantRes := map[string]string{
		"service.name": "mcpsnoop", "mcpsnoop.session.id": "store-example", "mcpsnoop.session.label": "server.py",
		"mcpsnoop.session.late_results": "1", "mcpsnoop.session.missing_frames": "2",
	}
	for k, v := range wantRes {
		if got := str(s.attrs, k); got != v {
			t.Errorf("resource %s = %s, want %s", k, got, v)
		}
	}
	var keys []string
	s.attrs.Range(func(k string, _ pcommon.Value) bool { keys = append(keys, k); return true })
	if got := strings.Join(keys[:5], " "); got != "service.name mcpsnoop.session.id mcpsnoop.session.label mcpsnoop.session.late_results mcpsnoop.session.missing_frames" {
		t.Errorf("resource attribute order: %s", got)
	}
	trace := hex.EncodeToString(sha("trace", "store-example")[:16])
	if otlp.SessionTraceID("store-example").String() != trace {
		t.Errorf("session trace id %s, want %s", otlp.SessionTraceID("store-example"), trace)
	}
	// Only a failed call sets a status (Error); a successful one stays
	// Unset, as the MCP semantic conventions ask of instrumentation.
	status := []ptrace.StatusCode{
		ptrace.StatusCodeUnset, ptrace.StatusCodeUnset, ptrace.StatusCodeUnset, ptrace.StatusCodeUnset, ptrace.StatusCodeUnset,
		ptrace.StatusCodeUnset, ptrace.StatusCodeUnset, ptrace.StatusCodeError, ptrace.StatusCodeUnset,
	}
	spanIDs := map[string]bool{}
	for i, sp := range s.spans {
		if sp.TraceID().String() != trace || !sp.ParentSpanID().IsEmpty() || sp.TraceState().AsRaw() != "" {
			t.Errorf("span %d: trace %s parent %s", i, sp.TraceID(), sp.ParentSpanID())
		}
		if sp.Kind() != ptrace.SpanKindClient {
			t.Errorf("span %d: kind %v", i, sp.Kind())
		}
		if sp.Status().Code() != status[i] {
			t.Errorf("span %d (%s): status %v, want %v", i, str(sp.Attributes(), "mcpsnoop.call.status"), sp.Status().Code(), status[i])
		}
		if v := str(sp.Attributes(), "mcp.protocol.version"); v != "<absent>" {
			t.Errorf("span %d: mcp.protocol.version %q, but the log shows no revision", i, v)
		}
		if spanIDs[sp.SpanID().String()] {
			t.Errorf("span %d: span id %s repeated", i, sp.SpanID())
		}
		spanIDs[sp.SpanID().String()] = true
		if sp.EndTimestamp() < sp.StartTimestamp() {
			t.Errorf("span %d ends before it starts", i)
		}
	}
	if got, want := s.spans[0].SpanID().String(), hex.EncodeToString(sha("span", "store-example", "1", "c2s")[:8]); got != want {
		t.Errorf("span id %s, want %s", got, want)
	}
	// Call 3 was superseded by call 4 under the same id: the first keeps the
	// reference's span id, the second gets one of its own.
	if got, want := s.spans[3].SpanID().String(), hex.EncodeToString(sha("span", "store-example", "4", "c2s")[:8]); got != want {
		t.Errorf("superseded span id %s, want %s", got, want)
	}
	late := s.spans[1].Attributes()
	if str(late, "mcpsnoop.call.late_result") != "true" || str(late, "mcpsnoop.call.cancel_reason") != "user gave up" ||
		str(late, "mcpsnoop.call.cancelled_at") != "2026-03-02T10:00:00.15Z" || str(late, "mcpsnoop.call.duration_ms") != "300" {
		t.Errorf("late result attributes: %v", late.AsRaw())
	}
	if fail := s.spans[7]; fail.Status().Message() != "Invalid params" || str(fail.Attributes(), "mcpsnoop.call.is_error") != "true" ||
		str(fail.Attributes(), "error.type") != "-32602" || str(fail.Attributes(), "rpc.response.status_code") != "-32602" {
		t.Errorf("failed call: %v %v", fail.Status().Message(), fail.Attributes().AsRaw())
	}
	// The OpenTelemetry MCP conventions: "{method} {tool}", the method's
	// and the tool's attributes, the id as a string.
	if echo := s.spans[0]; echo.Name() != "tools/call echo" || str(echo.Attributes(), "mcp.method.name") != "tools/call" ||
		str(echo.Attributes(), "gen_ai.tool.name") != "echo" || str(echo.Attributes(), "gen_ai.operation.name") != "execute_tool" ||
		str(echo.Attributes(), "jsonrpc.request.id") != "1" || str(echo.Attributes(), "error.type") != "<absent>" {
		t.Errorf("span %q %v", echo.Name(), echo.Attributes().AsRaw())
	}
	if open := s.spans[8]; open.EndTimestamp() != open.StartTimestamp() || str(open.Attributes(), "mcpsnoop.call.duration_ms") != "<absent>" {
		t.Errorf("pending call: %v", open.Attributes().AsRaw())
	}
	echo := s.spans[0].Attributes()
	want := "rpc.system rpc.method mcp.method.name jsonrpc.request.id gen_ai.tool.name gen_ai.operation.name " +
		"mcpsnoop.call.id mcpsnoop.call.status mcpsnoop.call.state mcpsnoop.call.is_tool " +
		"mcpsnoop.call.is_error mcpsnoop.call.tool_error mcpsnoop.call.tool_name mcpsnoop.call.duration_ms"
	keys = nil
	echo.Range(func(k string, _ pcommon.Value) bool { keys = append(keys, k); return true })
	if strings.Join(keys, " ") != want {
		t.Errorf("span attributes %v", keys)
	}
	// OTLP/JSON: hex ids, integers as strings, enums as numbers.
	for _, frag := range []string{`"traceId": "` + trace + `"`, `"intValue": "2"`, `"kind": 3`, `"code": 2`} {
		if !bytes.Contains(out, []byte(frag)) {
			t.Errorf("output lacks %s", frag)
		}
	}
}

func TestMRTR(t *testing.T) {
	out, byID, _ := exportOTLP(t, "../../fixtures/mrtr.jsonl")
	formattest.Golden(t, "mrtr.json", out)
	book := byID["demo"].spans[0].Attributes()
	if str(book, "mcpsnoop.call.round_trips") != "3" || str(book, "mcpsnoop.call.server_time_ms") != "1200" ||
		str(book, "mcpsnoop.call.duration_ms") != "38200" {
		t.Errorf("book_flight: %v", book.AsRaw())
	}
	if _, ok := byID["demo"].spans[1].Attributes().Get("mcpsnoop.call.round_trips"); ok {
		t.Error("a single round trip has round_trips")
	}
}

const clientTrace = "0af7651916cd43dd8448eb211c80319c"

// TestTraceContext: a traced session (in the client's run) and an
// untraced one, with the W3C rules for invalid values.
func TestTraceContext(t *testing.T) {
	out, byID, _ := exportOTLP(t, "testdata/tracecontext.jsonl")
	formattest.Golden(t, "tracecontext.json", out)
	type want struct {
		name, trace, parent, state string
		kind                       ptrace.SpanKind
	}
	traced := []want{
		{"echo", clientTrace, "00f067aa0ba902b7", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", ptrace.SpanKindClient},
		{"tools/list", clientTrace, "b7ad6b7169203331", "", ptrace.SpanKindClient}, // 33 members: dropped
		{"ping", clientTrace, "00f067aa0ba902b8", "", ptrace.SpanKindClient},       // a member without '='
		{"plain", clientTrace, "", "", ptrace.SpanKindClient},                      // untraced call of a traced run
		{"future", "11111111111111111111111111111111", "2222222222222222", "", ptrace.SpanKindClient},
		{"sampling/createMessage", clientTrace, "", "", ptrace.SpanKindServer},
		{"echo", clientTrace, "", "", ptrace.SpanKindClient},
		{"fail", clientTrace, "", "", ptrace.SpanKindClient},
	}
	check := func(sid string, wants []want) {
		s := byID[sid]
		if len(s.spans) != len(wants) {
			t.Fatalf("%s: %d spans, want %d", sid, len(s.spans), len(wants))
		}
		for i, w := range wants {
			sp := s.spans[i]
			name := sp.Name()
			if v, ok := sp.Attributes().Get("mcpsnoop.call.tool_name"); ok {
				name = v.Str()
			}
			parent := ""
			if !sp.ParentSpanID().IsEmpty() {
				parent = sp.ParentSpanID().String()
			}
			got := want{name, sp.TraceID().String(), parent, sp.TraceState().AsRaw(), sp.Kind()}
			if got != w {
				t.Errorf("%s span %d: %+v\nwant %+v", sid, i, got, w)
			}
			if (parent != "") != (sp.Flags()&0x300 == 0x300) {
				t.Errorf("%s span %d: flags %#x", sid, i, sp.Flags())
			}
		}
		if s.spans[0].SpanID() == s.spans[6].SpanID() {
			t.Errorf("%s: a reused id repeated a span id", sid)
		}
	}
	check("tc-traced", traced)
	if str(byID["tc-traced"].attrs, "mcpsnoop.run.id") != "t-0af7651916cd43dd" {
		t.Errorf("run attributes: %v", byID["tc-traced"].attrs.AsRaw())
	}
	st := otlp.SessionTraceID("tc-untraced").String()
	untraced := []want{
		{"zero", st, "", "", ptrace.SpanKindClient}, // all-zero trace id: ignored whole, tracestate too
		{"upper", st, "", "", ptrace.SpanKindClient},
		{"ff", st, "", "", ptrace.SpanKindClient},
		{"number", st, "", "", ptrace.SpanKindClient},
		{"case", st, "", "", ptrace.SpanKindClient},      // the key is exactly "traceparent"
		{"stateonly", st, "", "", ptrace.SpanKindClient}, // no traceparent: tracestate is not read
		{"open", st, "", "", ptrace.SpanKindClient},
	}
	check("tc-untraced", untraced)
	if got := str(byID["tc-untraced"].attrs, "mcpsnoop.run.id"); got != "<absent>" {
		t.Errorf("untraced session has run %s", got)
	}
	if sp := byID["tc-untraced"].spans[5]; sp.Status().Code() != ptrace.StatusCodeError || sp.Status().Message() == "" {
		t.Errorf("tool error status: %v %q", sp.Status().Code(), sp.Status().Message())
	}
}

// TestRuns: a run the client traced is one trace, the client's; a run it
// did not trace is one synthetic trace derived from the run id.
func TestRuns(t *testing.T) {
	out, byID, order := exportOTLP(t, "../../fixtures/run-traced")
	formattest.Golden(t, "run-traced.json", out)
	if len(order) != 3 {
		t.Fatalf("%d sessions", len(order))
	}
	for _, sid := range order {
		for i, sp := range byID[sid].spans {
			if sp.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || sp.ParentSpanID().IsEmpty() {
				t.Errorf("%s span %d: trace %s parent %s", sid, i, sp.TraceID(), sp.ParentSpanID())
			}
		}
		if got := str(byID[sid].attrs, "mcpsnoop.run.id"); got != "t-4bf92f3577b34da6" {
			t.Errorf("%s: run %s", sid, got)
		}
	}
	if got := byID["files-97144-f2a752e6b438"].spans[2].ParentSpanID().String(); got != "0000000000000305" {
		t.Errorf("parent of files' tools/call: %s", got)
	}

	out, byID, order = exportOTLP(t, "../../fixtures/run-untraced")
	formattest.Golden(t, "run-untraced.json", out)
	runID := str(byID[order[0]].attrs, "mcpsnoop.run.id")
	if !strings.HasPrefix(runID, "p-97001-") {
		t.Fatalf("run id %s", runID)
	}
	want := hex.EncodeToString(sha("run", runID)[:16])
	if otlp.RunTraceID(runID).String() != want {
		t.Errorf("RunTraceID = %s, want %s", otlp.RunTraceID(runID), want)
	}
	for _, sid := range order {
		if otlp.SessionTraceID(sid).String() == want {
			t.Errorf("run trace equals session trace of %s", sid)
		}
		for i, sp := range byID[sid].spans {
			if sp.TraceID().String() != want || !sp.ParentSpanID().IsEmpty() {
				t.Errorf("%s span %d: trace %s parent %s, want trace %s", sid, i, sp.TraceID(), sp.ParentSpanID(), want)
			}
		}
	}
}

// TestReceiver posts exports to an OTLP/HTTP receiver on loopback that
// decodes them as a collector does, and checks what it received.
func TestReceiver(t *testing.T) {
	var mu sync.Mutex
	var got []ptrace.Traces
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want POST /v1/traces application/json", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalJSON(body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req.Traces())
		mu.Unlock()
		resp, _ := ptraceotlp.NewExportResponse().MarshalJSON()
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	}))
	defer srv.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(out []byte) {
		t.Helper()
		resp, err := client.Post(srv.URL+"/v1/traces", "application/json", bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("receiver said %d: %s", resp.StatusCode, body)
		}
		if err := ptraceotlp.NewExportResponse().UnmarshalJSON(body); err != nil {
			t.Fatalf("response: %v", err)
		}
	}
	traced := formattest.Run(t, otlp.New(), "testdata/tracecontext.jsonl").Output
	run := formattest.Run(t, otlp.New(), "../../fixtures/run-traced").Output
	post(traced)
	post(run)
	if len(got) != 2 {
		t.Fatalf("%d requests received", len(got))
	}
	if n := got[0].SpanCount(); n != 15 {
		t.Errorf("tracecontext: %d spans received, want 15", n)
	}
	if n := got[1].SpanCount(); n != 9 {
		t.Errorf("run: %d spans received, want 9", n)
	}
	// What arrived is what the file says: ids and parents per span.
	for i, out := range [][]byte{traced, run} {
		_, byID, order := decode(t, out)
		rss := got[i].ResourceSpans()
		if rss.Len() != len(order) {
			t.Fatalf("request %d: %d resourceSpans, want %d", i, rss.Len(), len(order))
		}
		for j, sid := range order {
			spans := rss.At(j).ScopeSpans().At(0).Spans()
			for k, want := range byID[sid].spans {
				sp := spans.At(k)
				if sp.TraceID() != want.TraceID() || sp.SpanID() != want.SpanID() || sp.ParentSpanID() != want.ParentSpanID() {
					t.Errorf("request %d %s span %d: %s/%s/%s", i, sid, k, sp.TraceID(), sp.SpanID(), sp.ParentSpanID())
				}
				if sp.SpanID().IsEmpty() || sp.TraceID().IsEmpty() {
					t.Errorf("request %d %s span %d: empty id", i, sid, k)
				}
			}
		}
	}
	traceIDs := map[string]int{}
	for _, sp := range spansOf(got[0]) {
		traceIDs[sp.TraceID().String()]++
	}
	if traceIDs[clientTrace] != 7 || traceIDs[otlp.SessionTraceID("tc-untraced").String()] != 7 {
		t.Errorf("spans per trace: %v", traceIDs)
	}
}

func spansOf(td ptrace.Traces) []ptrace.Span {
	var out []ptrace.Span
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		ss := td.ResourceSpans().At(i).ScopeSpans()
		for j := 0; j < ss.Len(); j++ {
			for k := 0; k < ss.At(j).Spans().Len(); k++ {
				out = append(out, ss.At(j).Spans().At(k))
			}
		}
	}
	return out
}

// TestEmpty: an export of no session is an empty, valid payload.
func TestEmpty(t *testing.T) {
	f := otlp.New()
	o := &export.Output{GeneratedAt: formattest.GeneratedAt, Version: "dev"}
	var b bytes.Buffer
	if err := f.Begin(&b, o); err != nil {
		t.Fatal(err)
	}
	if err := f.End(&b, o); err != nil {
		t.Fatal(err)
	}
	if b.String() != "{\n  \"resourceSpans\": []\n}\n" {
		t.Errorf("output %q", b.String())
	}
	decode(t, b.Bytes())
}

// TestTraceRunFromLabel: a session of a traced run none of whose calls
// carried the trace (its traced request was an MRTR retry, say) still
// joins the client's trace, read from the run.
func TestTraceRunFromLabel(t *testing.T) {
	f := otlp.New()
	rec, err := f.Call(&checker.CallRecord{
		SessionID: "s", ID: "1", Method: "ping", Direction: "c2s", State: "pending", Status: "pending",
		Start: formattest.GeneratedAt,
	})
	if err != nil {
		t.Fatal(err)
	}
	o := &export.Output{GeneratedAt: formattest.GeneratedAt, Version: "dev", Sessions: 1}
	run := &checker.Run{ID: "t-0af7651916cd43dd", KeyKind: checker.RunKeyTrace, Label: "trace " + clientTrace}
	var b bytes.Buffer
	s := &export.Session{Output: o, Report: &checker.SessionReport{ID: "s"}, Run: run, Calls: formattest.Records{rec}}
	if f.Begin(&b, o) != nil || f.Session(&b, s) != nil || f.End(&b, o) != nil {
		t.Fatal("export failed")
	}
	_, byID, _ := decode(t, b.Bytes())
	if sp := byID["s"].spans[0]; sp.TraceID().String() != clientTrace || !sp.ParentSpanID().IsEmpty() {
		t.Errorf("trace %s parent %s", sp.TraceID(), sp.ParentSpanID())
	}
}

// TestTimestampsInRange: a call without a timestamp (a frame without ts
// reads as the zero time) starts at 0, not at the wrapped-around value of
// the zero time's UnixNano, and a call whose answer carries an earlier
// time than its request (the capture clock stepped back) ends where it
// starts rather than before.
func TestTimestampsInRange(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		rec        checker.CallRecord
		start, end uint64
	}{
		{"no ts", checker.CallRecord{State: "pending", Status: "pending"}, 0, 0},
		{"no ts, answered", checker.CallRecord{State: "completed", Status: "ok", HasDuration: true}, 0, 0},
		{"clock stepped back", checker.CallRecord{
			State: "completed", Status: "ok", Start: start, End: start.Add(-time.Hour),
			HasDuration: true, Duration: -time.Hour,
		}, uint64(start.UnixNano()), uint64(start.UnixNano())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := otlp.New()
			tc.rec.SessionID, tc.rec.ID, tc.rec.Method, tc.rec.Direction = "s", "1", "ping", "c2s"
			rec, err := f.Call(&tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			o := &export.Output{GeneratedAt: formattest.GeneratedAt, Version: "dev", Sessions: 1}
			var b bytes.Buffer
			s := &export.Session{Output: o, Report: &checker.SessionReport{ID: "s"}, Calls: formattest.Records{rec}}
			if f.Begin(&b, o) != nil || f.Session(&b, s) != nil || f.End(&b, o) != nil {
				t.Fatal("export failed")
			}
			_, byID, _ := decode(t, b.Bytes())
			sp := byID["s"].spans[0]
			if got := uint64(sp.StartTimestamp()); got != tc.start {
				t.Errorf("start %d, want %d", got, tc.start)
			}
			if got := uint64(sp.EndTimestamp()); got != tc.end {
				t.Errorf("end %d, want %d", got, tc.end)
			}
		})
	}
}

// TestSemanticConventions: span names and attributes of the OpenTelemetry
// MCP conventions for a failed tool call, a prompt and a resource.
func TestSemanticConventions(t *testing.T) {
	_, byID, _ := exportOTLP(t, "testdata/conventions.jsonl")
	spans := byID["conv"].spans
	type want struct{ name, attrs string }
	wants := []want{
		{"initialize", "mcp.method.name=initialize jsonrpc.request.id=0 mcp.protocol.version=2025-11-25"},
		{"tools/call read_file", "mcp.method.name=tools/call jsonrpc.request.id=call-1 mcp.protocol.version=2025-11-25 gen_ai.tool.name=read_file gen_ai.operation.name=execute_tool error.type=tool_error"},
		{"prompts/get summarize", "mcp.method.name=prompts/get jsonrpc.request.id=2 mcp.protocol.version=2025-11-25 gen_ai.prompt.name=summarize"},
		{"resources/read", "mcp.method.name=resources/read jsonrpc.request.id=3 mcp.protocol.version=2025-11-25 mcp.resource.uri=file:///etc/hosts error.type=-32002 rpc.response.status_code=-32002"},
	}
	if len(spans) != len(wants) {
		t.Fatalf("%d spans", len(spans))
	}
	for i, w := range wants {
		var attrs []string
		spans[i].Attributes().Range(func(k string, v pcommon.Value) bool {
			if !strings.HasPrefix(k, "mcpsnoop.") && !strings.HasPrefix(k, "rpc.system") && k != "rpc.method" {
				attrs = append(attrs, k+"="+v.AsString())
			}
			return true
		})
		if got := (want{spans[i].Name(), strings.Join(attrs, " ")}); got != w {
			t.Errorf("span %d\n got %+v\nwant %+v", i, got, w)
		}
	}
	if str(spans[1].Attributes(), "mcpsnoop.call.tool_error") != "true" || spans[1].Status().Message() != "tool result marked isError" {
		t.Errorf("the mcpsnoop attributes stay: %v", spans[1].Attributes().AsRaw())
	}
}

// TestCancelledListenSpan: a subscriptions/listen stream the client
// cancelled ends where the cancellation ended it, not where it began: its
// span has the stream's real duration, and no status (a stream the client
// closed did not fail).
func TestCancelledListenSpan(t *testing.T) {
	_, byID, _ := exportOTLP(t, "testdata/listen-cancelled.jsonl")
	spans := byID["l1"].spans
	if len(spans) != 1 || spans[0].Name() != "subscriptions/listen" {
		t.Fatalf("%d spans", len(spans))
	}
	sp := spans[0]
	if d := sp.EndTimestamp().AsTime().Sub(sp.StartTimestamp().AsTime()); d != 4900*time.Millisecond {
		t.Errorf("span lasts %v, want 4.9s (from the request to the cancellation)", d)
	}
	if sp.Status().Code() != ptrace.StatusCodeUnset {
		t.Errorf("status %v, want Unset", sp.Status().Code())
	}
	if v := str(sp.Attributes(), "mcp.protocol.version"); v != "2026-07-28" {
		t.Errorf("mcp.protocol.version %q, want the request's 2026-07-28", v)
	}
}
