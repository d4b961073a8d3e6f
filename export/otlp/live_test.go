package otlp_test

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// liveSpans feeds one log through an engine as a live stream does (one
// session at a time, each span mapped as its call ends, the rest at the
// end) and returns the payload AppendTraces builds, read back as a
// collector would.
func liveSpans(t *testing.T, path string) ptrace.Traces {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	live := otlp.NewLive()
	var spans []otlp.Span
	var eng *checker.Engine
	eng = checker.New(checker.Config{KeepBodies: true, OnCall: func(r checker.CallRecord) {
		so, ok := eng.SoFar(r.SessionID)
		if !ok {
			t.Fatalf("SoFar(%s): unknown session", r.SessionID)
		}
		spans = append(spans, live.Span(so, &r))
	}})
	rd := capture.NewReader(fh, path)
	for {
		fr, line, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		eng.Ingest(&fr, checker.Position{Path: path, Name: path, Line: line})
	}
	eng.Report()
	body, err := otlp.AppendTraces(nil, spans)
	if err != nil {
		t.Fatal(err)
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(body); err != nil {
		t.Fatalf("live payload is not an OTLP export request: %v", err)
	}
	return req.Traces()
}

// TestLiveMatchesExport: a log streamed live becomes the spans export -T
// otlp writes for it: same span ids, trace ids, parents, names, times,
// statuses and attributes (one mapping, two callers); the resource, read
// at each call's end, ends as the export's.
func TestLiveMatchesExport(t *testing.T) {
	logs := []string{"../../fixtures/store-example.jsonl", "../../fixtures/mrtr.jsonl", "testdata/tracecontext.jsonl"}
	for _, dir := range []string{"../../fixtures/run-traced", "../../fixtures/run-untraced"} {
		m, _ := filepath.Glob(dir + "/*.jsonl")
		logs = append(logs, m...)
	}
	for _, path := range logs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			_, byID, _ := exportOTLP(t, path)
			td := liveSpans(t, path)
			got := 0
			lastRes := map[string]ptrace.ResourceSpans{}
			for i := 0; i < td.ResourceSpans().Len(); i++ {
				rs := td.ResourceSpans().At(i)
				sid := str(rs.Resource().Attributes(), "mcpsnoop.session.id")
				lastRes[sid] = rs
				want := byID[sid]
				if want == nil {
					t.Fatalf("live session %s is not in the export", sid)
				}
				exp := map[string]ptrace.Span{}
				for _, sp := range want.spans {
					exp[sp.SpanID().String()] = sp
				}
				spans := rs.ScopeSpans().At(0).Spans()
				for j := 0; j < spans.Len(); j++ {
					got++
					sp := spans.At(j)
					e, ok := exp[sp.SpanID().String()]
					if !ok {
						t.Errorf("%s: live span %s (%s) is not in the export", sid, sp.SpanID(), sp.Name())
						continue
					}
					if sp.Name() != e.Name() || sp.TraceID() != e.TraceID() || sp.ParentSpanID() != e.ParentSpanID() ||
						sp.Kind() != e.Kind() || sp.StartTimestamp() != e.StartTimestamp() || sp.EndTimestamp() != e.EndTimestamp() ||
						sp.Status().Code() != e.Status().Code() || sp.Status().Message() != e.Status().Message() ||
						sp.Flags() != e.Flags() || sp.TraceState().AsRaw() != e.TraceState().AsRaw() {
						t.Errorf("%s: span %s differs:\n live   %s %s %s %v\n export %s %s %s %v", sid, sp.SpanID(),
							sp.Name(), sp.TraceID(), sp.ParentSpanID(), sp.Status().Code(), e.Name(), e.TraceID(), e.ParentSpanID(), e.Status().Code())
					}
					if !sp.Attributes().Equal(e.Attributes()) {
						t.Errorf("%s: span %s attributes differ:\n live   %v\n export %v", sid, sp.SpanID(), sp.Attributes().AsRaw(), e.Attributes().AsRaw())
					}
				}
			}
			want := 0
			for sid, s := range byID {
				want += len(s.spans)
				if rs, ok := lastRes[sid]; ok && !rs.Resource().Attributes().Equal(s.attrs) {
					t.Errorf("%s: last live resource %v, export %v", sid, rs.Resource().Attributes().AsRaw(), s.attrs.AsRaw())
				}
			}
			if got != want {
				t.Errorf("%d live spans, the export has %d", got, want)
			}
		})
	}
}

// TestLiveCutsWireStrings: a live span holds at most a few KiB of what a
// peer chose, however long it was (a server answering with a 256 KiB
// error message, a 1 KiB tool name, id and server name), each cut value
// marked with its length, while the export of the same log keeps every
// value whole and both give the call the same span id.
func TestLiveCutsWireStrings(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	msg, tool, id, name := long("m", 256<<10), long("t", 1<<10), long("i", 1<<10), long("é", 1<<10)
	frame := func(seq int, dir, raw string) string {
		return `{"session_id":"big-1-aaaaaaaaaaaa","server_label":"big","seq":` + strconv.Itoa(seq) +
			`,"ts":"2026-08-01T10:00:0` + strconv.Itoa(seq) + `Z","direction":"` + dir + `","transport":"stdio","raw":` + raw + "}\n"
	}
	log := frame(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`) +
		frame(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"`+name+`","version":"1"}}}`) +
		frame(3, "c2s", `{"jsonrpc":"2.0","id":"`+id+`","method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`) +
		frame(4, "s2c", `{"jsonrpc":"2.0","id":"`+id+`","error":{"code":-32603,"message":"`+msg+`"}}`)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	find := func(td ptrace.Traces) (ptrace.Span, pcommon.Map) {
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			spans := rs.ScopeSpans().At(0).Spans()
			for j := 0; j < spans.Len(); j++ {
				if strings.HasPrefix(spans.At(j).Name(), "tools/call ") {
					return spans.At(j), rs.Resource().Attributes()
				}
			}
		}
		t.Fatal("no tools/call span")
		return ptrace.Span{}, pcommon.Map{}
	}
	live, liveRes := find(liveSpans(t, path))
	cut := func(what, got, whole string, n int) {
		t.Helper()
		marker := "…[cut from " + strconv.Itoa(len(whole)) + " bytes]"
		if len(got) > n+len(marker) || !strings.HasSuffix(got, marker) || !strings.HasPrefix(whole, strings.TrimSuffix(got, marker)) {
			t.Errorf("live %s: %d bytes ending %q; want its first %d bytes and %q", what, len(got), got[max(0, len(got)-40):], n, marker)
		}
	}
	cut("error message", live.Status().Message(), msg, otlp.MaxLiveMessage)
	cut("tool name", str(live.Attributes(), "mcpsnoop.call.tool_name"), tool, otlp.MaxLiveName)
	cut("call id", str(live.Attributes(), "mcpsnoop.call.id"), `"`+id+`"`, otlp.MaxLiveName)
	cut("server name", str(liveRes, "mcpsnoop.server.name"), name, otlp.MaxLiveName)
	// The MCP conventions' attributes and the span's name hold the same
	// cut values.
	cut("gen_ai.tool.name", str(live.Attributes(), "gen_ai.tool.name"), tool, otlp.MaxLiveName)
	if want := "tools/call " + str(live.Attributes(), "gen_ai.tool.name"); live.Name() != want {
		t.Errorf("live span name %d bytes, want the method and the cut tool", len(live.Name()))
	}

	_, byID, _ := exportOTLP(t, path)
	exp := byID["big-1-aaaaaaaaaaaa"]
	var whole ptrace.Span
	for _, sp := range exp.spans {
		if sp.Name() == "tools/call "+tool {
			whole = sp
		}
	}
	if whole.Status().Message() != msg || str(whole.Attributes(), "mcpsnoop.call.tool_name") != tool || str(exp.attrs, "mcpsnoop.server.name") != name {
		t.Errorf("the export cut a value: message %d bytes, tool %d bytes", len(whole.Status().Message()), len(str(whole.Attributes(), "mcpsnoop.call.tool_name")))
	}
	if whole.SpanID() != live.SpanID() {
		t.Errorf("span id: live %s, export %s", live.SpanID(), whole.SpanID())
	}
}
