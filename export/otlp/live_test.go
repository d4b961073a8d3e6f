package otlp_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// liveSpans feeds one log through an engine as a live stream does (one
// session at a time, each span mapped as its call ends, the rest at the
// end) and returns the payload Traces builds, read back as a collector
// would.
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
	td, err := otlp.Traces(spans)
	if err != nil {
		t.Fatal(err)
	}
	body, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
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
