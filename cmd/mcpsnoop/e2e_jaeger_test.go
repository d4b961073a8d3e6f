//go:build e2e && unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/internal/otlptest"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
	"github.com/mcpsnoop/mcpsnoop/otlpsink"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// jaegerConfig is an all-in-one Jaeger v2 on loopback ports, in-memory
// storage, OTLP/HTTP in, the query API out.
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: %s
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: %s
    grpc:
      endpoint: %s
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`

// startJaeger runs Jaeger and returns its OTLP traces URL and the base of
// its query API.
func startJaeger(t *testing.T) (otlpURL, query string) {
	t.Helper()
	bin := engineBinary(t, "MCPSNOOP_JAEGER", "jaeger",
		".ci/run builds Jaeger v1.76.0 from tools/jaeger into a cache folder and sets MCPSNOOP_JAEGER")
	health, queryAddr, grpcAddr, otlpAddr := otlptest.FreeAddr(t), otlptest.FreeAddr(t), otlptest.FreeAddr(t), otlptest.FreeAddr(t)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(jaegerConfig, health, queryAddr, grpcAddr, otlpAddr)), 0o600)
	// OTEL_TRACES_EXPORTER: Jaeger would trace itself to localhost:4317.
	startEngine(t, []string{"OTEL_TRACES_EXPORTER=none"}, bin, "--config", cfg)
	query = "http://" + queryAddr
	waitHTTP(t, query+"/api/v3/services")
	return "http://" + otlpAddr + "/v1/traces", query
}

// jaegerTrace fetches a trace through the query API (its OTLP/JSON form),
// polling until it holds want spans.
func jaegerTrace(t *testing.T, query, traceID string, want int) ptrace.Traces {
	t.Helper()
	var td ptrace.Traces
	waitFor(t, fmt.Sprintf("%d spans of trace %s in Jaeger", want, traceID), func() bool {
		resp, err := http.Get(query + "/api/v3/traces/" + url.PathEscape(traceID))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return false
		}
		var doc struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("trace %s: %v\n%s", traceID, err, body)
		}
		td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(doc.Result)
		if err != nil {
			t.Fatalf("trace %s: not OTLP/JSON: %v", traceID, err)
		}
		return td.SpanCount() >= want
	})
	return td
}

// exportedSpans is what export -T otlp makes of a log, by span id, with
// each span's resource.
func exportedSpans(t *testing.T, log string) map[string]otlptest.Span {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"export", "-T", "otlp", log}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("export: %d %s", code, errb.String())
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	return spansByID(req.Traces())
}

func spansByID(td ptrace.Traces) map[string]otlptest.Span {
	m := map[string]otlptest.Span{}
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			spans := rs.ScopeSpans().At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				m[spans.At(k).SpanID().String()] = otlptest.Span{Span: spans.At(k), Resource: rs.Resource().Attributes()}
			}
		}
	}
	return m
}

// TestE2EJaeger: a real Jaeger v2 takes the spans the shim streams live,
// and its query API finds them under the trace ids, names and parents
// export -T otlp gives the same session; a log with dropped frames
// streamed through the sink arrives with mcpsnoop.session.missing_frames.
func TestE2EJaeger(t *testing.T) {
	otlpURL, query := startJaeger(t)
	bins := buildShimBinaries(t)

	t.Run("shim", func(t *testing.T) {
		home := t.TempDir()
		cmd := exec.Command(bins.shim, "--otlp-endpoint", otlpURL, "--", bins.server)
		cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
		ctx := withTimeout(t)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
		for i := 0; i < 5; i++ {
			p := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprint(i)}}
			if i < 3 { // the client traced these
				p.Meta = mcp.Meta{"traceparent": fmt.Sprintf("00-%s-%016x-01", trace, 0x100+i)}
			}
			if _, err := cs.CallTool(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		cs.Close()
		if d, _, _ := lost(t, stderr.String()); d != 0 {
			t.Fatalf("spans lost:\n%s", stderr.String())
		}
		log := sessionLog(t, home)
		exported := exportedSpans(t, log)
		// The export puts every call of a session the client traced in
		// the client's trace. Live, a call that ended before the first
		// traced request (initialize) could not know it: it went out
		// under the trace of the client process's run (README).
		frames := readFrames(t, log)
		var meta capture.SessionMeta
		if err := json.Unmarshal(frames[0].Raw, &meta); err != nil || meta.PPID == 0 {
			t.Fatalf("meta %s: %v", frames[0].Raw, err)
		}
		start, _ := time.Parse(time.RFC3339Nano, meta.PPIDStart)
		runTrace := otlp.RunTraceID(fmt.Sprintf("p-%d-%d", meta.PPID, start.Unix())).String()
		firstTraced := ^uint64(0)
		for _, s := range exported {
			if !s.Span.ParentSpanID().IsEmpty() {
				firstTraced = min(firstTraced, uint64(s.Span.StartTimestamp()))
			}
		}
		want := map[string]string{} // span id -> trace id live
		perTrace := map[string]int{}
		for id, s := range exported {
			tid := s.Span.TraceID().String()
			if tid != trace {
				t.Fatalf("exported span %s in trace %s, want all in the client's %s", id, tid, trace)
			}
			if uint64(s.Span.EndTimestamp()) < firstTraced {
				tid = runTrace // the handshake
			}
			want[id] = tid
			perTrace[tid]++
		}
		if perTrace[trace] != 5 || perTrace[runTrace] != 1 {
			t.Fatalf("spans per trace %v (run trace %s)", perTrace, runTrace)
		}
		found := 0
		for tid, n := range perTrace {
			td := jaegerTrace(t, query, tid, n)
			for id, got := range spansByID(td) {
				exp, ok := exported[id]
				if !ok || want[id] != tid {
					t.Errorf("Jaeger has span %s (%s) in trace %s; want it in %q", id, got.Span.Name(), tid, want[id])
					continue
				}
				found++
				if got.Span.Name() != exp.Span.Name() || got.Span.ParentSpanID() != exp.Span.ParentSpanID() {
					t.Errorf("span %s: Jaeger %s parent %s; export %s parent %s", id,
						got.Span.Name(), got.Span.ParentSpanID(), exp.Span.Name(), exp.Span.ParentSpanID())
				}
				if p := got.Span.ParentSpanID(); !p.IsEmpty() && !strings.HasPrefix(p.String(), "00000000000001") {
					t.Errorf("span %s: parent %s is not one of the client's spans", id, p)
				}
				gm, _ := got.Resource.Get("mcpsnoop.session.missing_frames")
				wm, ok := exp.Resource.Get("mcpsnoop.session.missing_frames")
				if !ok || gm.Int() != wm.Int() {
					t.Errorf("span %s: missing_frames %d in Jaeger, %d in the export", id, gm.Int(), wm.Int())
				}
			}
		}
		parents := 0
		for _, s := range exported {
			if !s.Span.ParentSpanID().IsEmpty() {
				parents++
			}
		}
		if found != len(exported) || parents != 3 {
			t.Errorf("Jaeger has %d of the session's %d spans; %d have the client's span as parent, want 3", found, len(exported), parents)
		}
	})

	t.Run("missing-frames", func(t *testing.T) {
		data, err := os.ReadFile("../../fixtures/store-example.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		u, _ := otlpsink.ParseEndpoint(otlpURL)
		sink := otlpsink.New(otlpsink.Options{Endpoint: u})
		// The tap is shown each line a log writer is given; this log has
		// its gaps already, which no log writer would write.
		w := capturecli.SpanOnlyLog(sink)
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if len(line) > 0 {
				w.(capture.LineObserver).ObserveLine(line)
			}
		}
		w.Close()
		if st := sink.Close(); st.Sent != st.Spans || st.Spans == 0 {
			t.Fatalf("stats %+v", st)
		}
		exported := exportedSpans(t, "../../fixtures/store-example.jsonl")
		td := jaegerTrace(t, query, otlp.SessionTraceID("store-example").String(), len(exported))
		maxMissing := int64(-1)
		for id, got := range spansByID(td) {
			if _, ok := exported[id]; !ok {
				t.Errorf("span %s not in the export", id)
			}
			m, ok := got.Resource.Get("mcpsnoop.session.missing_frames")
			if !ok {
				t.Errorf("span %s: no mcpsnoop.session.missing_frames", id)
			}
			maxMissing = max(maxMissing, m.Int())
		}
		if maxMissing != 2 {
			t.Errorf("missing_frames reached %d in Jaeger, want the log's 2", maxMissing)
		}
	})
}
