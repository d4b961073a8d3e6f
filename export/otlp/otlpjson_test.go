package otlp

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// The OpenTelemetry collector's pdata is the oracle of these tests: what
// the encoder writes must be the bytes pdata writes for the same spans,
// and must decode with pdata to the same spans, field by field.

// tricky are strings an encoder gets wrong: escapes, control characters,
// the JavaScript line separators, multi-byte and empty text.
var tricky = []string{
	"", "plain", `quote " and backslash \ and slash /`, "tab\tnewline\nreturn\r",
	"\x00\x01\x07\b\f\x0b\x1b\x1f\x7f", "line\u2028sep\u2029para", "héllo wörld 日本 🙂",
	"<script>&amp;</script>", `\u0041 is not A`, "\"\"", "ends with backslash \\",
}

// invalidUTF8 are strings that are not UTF-8: pdata copies their bytes
// as they are, the encoder writes U+FFFD for each invalid byte.
var invalidUTF8 = []string{"\xff", "a\xc3(b", "\xed\xa0\x80 surrogate", "cut \xe2\x82", "\x80\x80"}

// toPdata builds the pdata span of s: the oracle's side of a test.
func toPdata(s *span, dst ptrace.Span) {
	dst.SetTraceID(pcommon.TraceID(s.traceID))
	dst.SetSpanID(pcommon.SpanID(s.spanID))
	dst.TraceState().FromRaw(s.traceState)
	dst.SetParentSpanID(pcommon.SpanID(s.parentID))
	dst.SetFlags(s.flags)
	dst.SetName(s.name)
	dst.SetKind(ptrace.SpanKind(s.kind))
	dst.SetStartTimestamp(pcommon.Timestamp(s.start))
	dst.SetEndTimestamp(pcommon.Timestamp(s.end))
	putPdata(s.attrs, dst.Attributes())
	dst.Status().SetCode(ptrace.StatusCode(s.status.code))
	dst.Status().SetMessage(s.status.message)
}

func putPdata(a attrs, m pcommon.Map) {
	for _, kv := range a {
		switch kv.kind {
		case stringValue:
			m.PutStr(kv.key, kv.s)
		case intValue:
			m.PutInt(kv.key, kv.i)
		case doubleValue:
			m.PutDouble(kv.key, kv.d)
		case boolValue:
			m.PutBool(kv.key, kv.i != 0)
		}
	}
}

// pdataPayload is pdata's export request of one resource (attributes
// res) and scope holding spans.
func pdataPayload(t *testing.T, res attrs, spans ...*span) []byte {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	putPdata(res, rs.Resource().Attributes())
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName(scopeName)
	for _, s := range spans {
		toPdata(s, ss.Spans().AppendEmpty())
	}
	out, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ourPayload is the same payload from the encoder's pieces.
func ourPayload(res attrs, spans ...*span) []byte {
	b := []byte(`{"resourceSpans":[{"resource":`)
	b = appendResource(b, res)
	b = append(b, `,"scopeSpans":[{"scope":`...)
	b = appendScope(b, scopeName)
	b = append(b, `,"spans":[`...)
	for i, s := range spans {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSpan(b, s)
	}
	return append(b, "]}]}]}"...)
}

// decodePdata reads a payload with pdata's own unmarshaler.
func decodePdata(t *testing.T, payload []byte) ptrace.Traces {
	t.Helper()
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(payload)
	if err != nil {
		t.Fatalf("pdata cannot read %s: %v", payload, err)
	}
	return td
}

// kv is an attribute as compared: doubles by their bits, so NaN equals
// NaN.
type kv struct {
	Key  string
	Type pcommon.ValueType
	Str  string
	Int  int64
	Bits uint64
	Bool bool
}

func kvs(m pcommon.Map) []kv {
	var out []kv
	m.Range(func(k string, v pcommon.Value) bool {
		e := kv{Key: k, Type: v.Type()}
		switch v.Type() {
		case pcommon.ValueTypeStr:
			e.Str = v.Str()
		case pcommon.ValueTypeInt:
			e.Int = v.Int()
		case pcommon.ValueTypeDouble:
			e.Bits = math.Float64bits(v.Double())
		case pcommon.ValueTypeBool:
			e.Bool = v.Bool()
		default:
			e.Str = "unexpected " + v.Type().String()
		}
		out = append(out, e)
		return true
	})
	return out
}

// sameTraces compares got with want resource by resource, span by span,
// field by field.
func sameTraces(t *testing.T, got, want ptrace.Traces) {
	t.Helper()
	if got.ResourceSpans().Len() != want.ResourceSpans().Len() {
		t.Fatalf("%d resourceSpans, want %d", got.ResourceSpans().Len(), want.ResourceSpans().Len())
	}
	for i := 0; i < want.ResourceSpans().Len(); i++ {
		g, w := got.ResourceSpans().At(i), want.ResourceSpans().At(i)
		if a, b := kvs(g.Resource().Attributes()), kvs(w.Resource().Attributes()); !reflect.DeepEqual(a, b) {
			t.Errorf("resource %d attributes\n got %+v\nwant %+v", i, a, b)
		}
		if g.ScopeSpans().Len() != 1 || w.ScopeSpans().Len() != 1 {
			t.Fatalf("resource %d: %d scopeSpans, want %d", i, g.ScopeSpans().Len(), w.ScopeSpans().Len())
		}
		gs, ws := g.ScopeSpans().At(0), w.ScopeSpans().At(0)
		if gs.Scope().Name() != ws.Scope().Name() || gs.Scope().Version() != ws.Scope().Version() || gs.Scope().Attributes().Len() != 0 {
			t.Errorf("scope %q %q, want %q %q", gs.Scope().Name(), gs.Scope().Version(), ws.Scope().Name(), ws.Scope().Version())
		}
		if gs.Spans().Len() != ws.Spans().Len() {
			t.Fatalf("resource %d: %d spans, want %d", i, gs.Spans().Len(), ws.Spans().Len())
		}
		for j := 0; j < ws.Spans().Len(); j++ {
			sameSpan(t, gs.Spans().At(j), ws.Spans().At(j))
		}
	}
}

func sameSpan(t *testing.T, g, w ptrace.Span) {
	t.Helper()
	type fields struct {
		Trace, Span, Parent, State, Name, Message string
		Flags                                     uint32
		Kind                                      ptrace.SpanKind
		Start, End                                pcommon.Timestamp
		Code                                      ptrace.StatusCode
		Events, Links                             int
	}
	of := func(s ptrace.Span) fields {
		return fields{
			Trace: s.TraceID().String(), Span: s.SpanID().String(), Parent: s.ParentSpanID().String(),
			State: s.TraceState().AsRaw(), Name: s.Name(), Message: s.Status().Message(), Flags: s.Flags(),
			Kind: s.Kind(), Start: s.StartTimestamp(), End: s.EndTimestamp(), Code: s.Status().Code(),
			Events: s.Events().Len(), Links: s.Links().Len(),
		}
	}
	if a, b := of(g), of(w); a != b {
		t.Errorf("span\n got %+v\nwant %+v", a, b)
	}
	if a, b := kvs(g.Attributes()), kvs(w.Attributes()); !reflect.DeepEqual(a, b) {
		t.Errorf("span %s attributes\n got %+v\nwant %+v", g.Name(), a, b)
	}
}

// oracleSpans are spans with every kind of field and value the encoder
// writes, at their edges.
func oracleSpans() []*span {
	full := &span{
		traceID: TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		spanID:  SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}, parentID: SpanID{0, 0, 0, 0, 0, 0, 1, 5},
		traceState: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", flags: 0x301, name: "tools/call read_file",
		kind: kindClient, start: 1785601239010000000, end: 1785601239050000000,
		status: status{code: statusError, message: "boom"},
	}
	full.attrs.putStr("rpc.system", "mcp")
	full.attrs.putInt("zero", 0)
	full.attrs.putInt("max", math.MaxInt64)
	full.attrs.putInt("min", math.MinInt64)
	full.attrs.putInt("negative", -32603)
	full.attrs.putBool("true", true)
	full.attrs.putBool("false", false)
	full.attrs.putStr("empty", "")
	full.attrs.putStr("", "empty key")
	for i, d := range []float64{0, math.Copysign(0, -1), 40, 0.1, 1.5e-3, 1e-6, 9.99e-7, 1e-7, 5e-324, 1e20, 1e21, 123456789.123,
		math.MaxFloat64, -2.5, math.NaN(), math.Inf(1), math.Inf(-1)} {
		full.attrs.putDouble("double."+string(rune('a'+i)), d)
	}
	spans := []*span{
		full,
		{}, // all empty: only a status
		{spanID: SpanID{1}, name: "ok", kind: kindServer, start: 1, end: math.MaxUint64},      // Unset status, no parent
		{traceID: TraceID{15: 1}, spanID: SpanID{7: 0xff}, status: status{code: statusError}}, // Error without a message
		{status: status{message: "message, code Unset"}},
	}
	for _, s := range tricky {
		sp := &span{name: s, traceState: s, status: status{code: statusError, message: s}}
		sp.attrs.putStr(s, s)
		spans = append(spans, sp)
	}
	return spans
}

// TestEncoderMatchesPdata: for spans with every field the encoder writes
// and values at their edges, the encoder's payload is pdata's, byte for
// byte, and pdata reads it back to the spans it was built from.
func TestEncoderMatchesPdata(t *testing.T) {
	var res attrs
	res.putStr("service.name", "mcpsnoop")
	res.putInt("mcpsnoop.session.late_results", 3)
	res.putStr("mcpsnoop.server.name", "quote\" tab\t sep\u2028")
	for i, sp := range oracleSpans() {
		want := pdataPayload(t, res, sp)
		got := ourPayload(res, sp)
		if !bytes.Equal(got, want) {
			t.Errorf("span %d (%q):\n got %s\nwant %s", i, sp.name, got, want)
		}
		sameTraces(t, decodePdata(t, got), decodePdata(t, want))
	}
	// A resource without attributes, and several spans in one scope.
	all := oracleSpans()
	want := pdataPayload(t, nil, all...)
	got := ourPayload(nil, all...)
	if !bytes.Equal(got, want) {
		t.Errorf("payload of every span:\n got %s\nwant %s", got, want)
	}
	sameTraces(t, decodePdata(t, got), decodePdata(t, want))
	if !bytes.Contains(got, []byte(`"resource":{}`)) {
		t.Errorf("a resource without attributes is not {}: %s", got)
	}
}

// TestEncoderInvalidUTF8: where pdata copies invalid UTF-8 as it is (a
// payload that is not JSON), the encoder writes U+FFFD for each invalid
// byte, and pdata reads that back.
func TestEncoderInvalidUTF8(t *testing.T) {
	for _, s := range invalidUTF8 {
		sp := &span{name: s, status: status{code: statusError, message: s}}
		sp.attrs.putStr(s, s)
		pd := pdataPayload(t, nil, sp)
		if !bytes.Contains(pd, []byte(s)) {
			t.Errorf("%q: pdata no longer copies invalid UTF-8 as it is (match it again?): %s", s, pd)
		}
		got := ourPayload(nil, sp)
		if !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("%q: not UTF-8 JSON: %q", s, got)
		}
		want := &span{name: perByteFFFD(s), status: status{code: statusError, message: perByteFFFD(s)}}
		want.attrs.putStr(perByteFFFD(s), perByteFFFD(s))
		sameTraces(t, decodePdata(t, got), decodePdata(t, pdataPayload(t, nil, want)))
	}
}

// perByteFFFD is s with each byte that is not part of valid UTF-8
// replaced by U+FFFD (strings.ToValidUTF8 replaces a run by one).
func perByteFFFD(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// TestAppendTracesMatchesPdata: the live payload of spans from two
// sessions, interleaved, with wire strings that need escaping, is what
// pdata writes for the same spans grouped by resource (one resourceSpans
// per session, in order of first appearance), and the collector's export
// request type reads it back to those spans.
func TestAppendTracesMatchesPdata(t *testing.T) {
	resA := resource{SessionID: "a", Label: "lab\"el", Transport: "stdio", ServerName: "srv\u2028", hasServerName: true, ProtocolVersion: "2025-11-25"}
	resB := resource{SessionID: "b", LateResults: 2, MissingFrames: 1, RunID: "t-4bf92f3577b34da6", RunKeyKind: "trace", ServerVersion: "", hasServerVersion: true}
	calls := []callRec{
		{ID: "0", Method: "initialize", Dir: "c2s", State: "answered", Status: "ok", Start: 10, End: 20, ProtocolVersion: "2025-11-25"},
		{ID: `"x\n"`, Method: "tools/call", Tool: "read\tfile", Dir: "c2s", State: "answered", Status: "error", IsTool: true, IsError: true, ToolError: true,
			Start: 30, End: 25, HasDuration: true, Duration: 1500000, RoundTrips: 2, ServerTime: 1e6, TaskID: "t\x01", TaskStatus: "done"},
		{ID: "7", Method: "resources/read", OpName: "file:///a\"b", Dir: "s2c", State: "answered", Status: "error", IsError: true,
			ErrMessage: "bad </script> \\", ErrCode: "-32602", Start: 40, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", ParentID: "00f067aa0ba902b7",
			Flags: 1, TraceState: "rojo=00f067aa0ba902b7"},
		{ID: "8", Method: "notifications/cancelled?", Dir: "c2s", State: "cancelled", Status: "cancelled", Start: 50, CancelledAt: "2026-08-01T10:00:00Z",
			CancelReason: "user\u2029", LateResult: true},
	}
	var spans []Span
	for i, c := range calls {
		for j, r := range []resource{resA, resB} {
			spans = append(spans, Span{res: r, call: c, id: SpanID{byte(i), byte(j), 1}, trace: SessionTraceID(r.SessionID)})
		}
	}
	got, err := AppendTraces(nil, spans)
	if err != nil {
		t.Fatal(err)
	}

	td := ptrace.NewTraces()
	for _, r := range []resource{resA, resB} {
		rs := td.ResourceSpans().AppendEmpty()
		putPdata(r.attributes(nil), rs.Resource().Attributes())
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName(scopeName)
		for _, s := range spans {
			if s.res == r {
				var sp span
				if err := fillSpan(&sp, s.id, s.trace, &s.call); err != nil {
					t.Fatal(err)
				}
				toPdata(&sp, ss.Spans().AppendEmpty())
			}
		}
	}
	want, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("payload:\n got %s\nwant %s", got, want)
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(got); err != nil {
		t.Fatalf("not an OTLP/JSON export request: %v", err)
	}
	sameTraces(t, req.Traces(), td)

	if got, _ := AppendTraces(nil, nil); string(got) != "{}" {
		t.Errorf("no spans: %s, want {} as pdata writes", got)
	}
}

// TestEncoderPins: the OTLP/JSON rules, spelled out on one span, so a
// change that pdata's decoder would forgive (it reads base64 ids, numbers
// for 64-bit integers and enum names too) still fails here.
func TestEncoderPins(t *testing.T) {
	sp := oracleSpans()[0]
	out := appendSpan(nil, sp)
	for path, want := range map[string]string{
		"traceId":            `"4bf92f3577b34da6a3ce929d0e0e4736"`,
		"spanId":             `"00f067aa0ba902b7"`,
		"parentSpanId":       `"0000000000000105"`,
		"flags":              `769`,
		"kind":               `3`,
		"startTimeUnixNano":  `"1785601239010000000"`,
		"status.code":        `2`,
		"attributes.2.value": `{"intValue":"9223372036854775807"}`,
		"attributes.3.value": `{"intValue":"-9223372036854775808"}`,
		"attributes.5.value": `{"boolValue":true}`,
		"attributes.8":       `{"value":{"stringValue":"empty key"}}`, // an empty key is left out
	} {
		if got := gjson.GetBytes(out, path).Raw; got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	if bytes.Contains(appendSpan(nil, &span{}), []byte("parentSpanId")) {
		t.Error("a zero parent span id is written")
	}
}

// FuzzEncoder: whatever the strings and numbers, the encoder writes UTF-8
// JSON that encoding/json and pdata read back to the same values (invalid
// UTF-8 as U+FFFD), and for valid UTF-8 the bytes are pdata's.
//
//	go test ./export/otlp -run '^$' -fuzz '^FuzzEncoder$' -fuzztime 30s
func FuzzEncoder(f *testing.F) {
	for _, s := range append(append([]string{}, tricky...), invalidUTF8...) {
		f.Add(s, int64(-1), 0.5, uint64(1), true)
	}
	f.Add("\u2028\x00", int64(math.MinInt64), math.Inf(-1), uint64(math.MaxUint64), false)
	f.Fuzz(func(t *testing.T, s string, i int64, d float64, ts uint64, b bool) {
		sp := &span{name: s, traceState: s, start: ts, end: ts, kind: kindServer, status: status{code: statusError, message: s}}
		sp.attrs.putStr("s:"+s, s) // not a key of the others: pdata's map would merge them
		sp.attrs.putInt("i", i)
		sp.attrs.putDouble("d", d)
		sp.attrs.putBool("b", b)
		got := ourPayload(sp.attrs, sp)
		if !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("not UTF-8 JSON: %q", got)
		}
		var back struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						Name   string `json:"name"`
						Status struct {
							Message string `json:"message"`
						} `json:"status"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		clean := perByteFFFD(s)
		if n := back.ResourceSpans[0].ScopeSpans[0].Spans[0]; n.Name != clean || n.Status.Message != clean {
			t.Fatalf("encoding/json reads %q / %q, want %q", n.Name, n.Status.Message, clean)
		}
		want := *sp
		want.name, want.traceState, want.status.message = clean, clean, clean
		want.attrs = append(attrs{{key: "s:" + clean, kind: stringValue, s: clean}}, sp.attrs[1:]...)
		wantPayload := pdataPayload(t, want.attrs, &want)
		if utf8.ValidString(s) && !bytes.Equal(got, wantPayload) {
			t.Fatalf("not pdata's bytes:\n got %s\nwant %s", got, wantPayload)
		}
		sameTraces(t, decodePdata(t, got), decodePdata(t, wantPayload))
	})
}

// BenchmarkLivePayload: one batch of the live stream (512 tool calls of
// one session) encoded by AppendTraces, and by pdata as the sender did
// before (spans built into pdata, then its JSON marshaler).
func BenchmarkLivePayload(b *testing.B) {
	res := resource{SessionID: "files-97144-f2a752e6b438", Label: "files", Transport: "stdio", ServerName: "files", hasServerName: true}
	spans := make([]Span, 512)
	for i := range spans {
		c := callRec{ID: strconv.Itoa(i), Method: "tools/call", Tool: "read_file", Dir: "c2s", State: "answered", Status: "ok",
			IsTool: true, Start: 1785601239010000000 + int64(i)*1e6, End: 1785601239010500000 + int64(i)*1e6,
			HasDuration: true, Duration: 500000, ProtocolVersion: "2025-11-25"}
		spans[i] = Span{res: res, call: c, id: SpanID{byte(i), byte(i >> 8), 1}, trace: SessionTraceID(res.SessionID)}
	}
	b.Run("own", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = AppendTraces(buf[:0], spans); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("pdata", func(b *testing.B) {
		var n int
		for b.Loop() {
			td := ptrace.NewTraces()
			rs := td.ResourceSpans().AppendEmpty()
			putPdata(res.attributes(nil), rs.Resource().Attributes())
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(scopeName)
			var sp span
			for i := range spans {
				if err := fillSpan(&sp, spans[i].id, spans[i].trace, &spans[i].call); err != nil {
					b.Fatal(err)
				}
				toPdata(&sp, ss.Spans().AppendEmpty())
			}
			out, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
			if err != nil {
				b.Fatal(err)
			}
			n = len(out)
		}
		b.SetBytes(int64(n))
	})
}
