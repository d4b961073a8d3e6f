//go:build unix

package main

import (
	"bytes"
	"context"
	"github.com/mcpsnoop/mcpsnoop/internal/otlptest"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// otlpShimRun is what one shim session streaming spans came to.
type otlpShimRun struct {
	stderr  string
	logPath string // "" under --no-trace
	spans   int    // calls the session made, so spans it had to send
	session string
}

// shimOTLPSession runs a go-sdk client through the shim binary to the
// sdkserver, with args before "--": the handshake, tools/list and calls
// tool calls (echo, and every tenth one fail). during, if set, runs after
// each call with its number. It checks that every byte each side sent
// reached the other unchanged.
func shimOTLPSession(t *testing.T, bins shimBins, args []string, calls int, during func(i int, stderr *lockedBuffer)) otlpShimRun {
	t.Helper()
	return shimSession(t, bins, t.TempDir(), args, calls, during)
}

// shimSession is shimOTLPSession with the state directory given. The
// server's tee files live under home, so sessions sharing a home run the
// same server command (and so have the same server id).
func shimSession(t *testing.T, bins shimBins, home string, args []string, calls int, during func(i int, stderr *lockedBuffer)) otlpShimRun {
	t.Helper()
	return shimSessionThen(t, bins, home, args, calls, during, nil)
}

// shimSessionThen is shimSession with more of the client's own after the
// calls: then makes them and returns how many calls it made.
func shimSessionThen(t *testing.T, bins shimBins, home string, args []string, calls int, during func(i int, stderr *lockedBuffer),
	then func(ctx context.Context, cs *mcp.ClientSession) int) otlpShimRun {
	t.Helper()
	dir := filepath.Join(home, "tees")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	teeIn, teeOut := filepath.Join(dir, "server-in"), filepath.Join(dir, "server-out")
	argv := append(append([]string{}, args...), "--", bins.server, "-tee-in", teeIn, "-tee-out", teeOut)
	cmd := exec.Command(bins.shim, argv...)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent, got bytes.Buffer
	transport := &mcp.IOTransport{Reader: teeReadCloser{stdout, &mu, &got}, Writer: teeWriteCloser{stdin, &mu, &sent}}
	client := mcp.NewClient(&mcp.Implementation{Name: "otlp-test", Version: "1.0.0"}, nil)
	ctx := withTimeout(t)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < calls; i++ {
		name := "echo"
		if i%10 == 9 {
			name = "fail"
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "call " + strconv.Itoa(i)}})
		if err != nil || res.IsError != (name == "fail") {
			t.Fatalf("call %d (%s): %v %+v\nstderr:\n%s", i, name, err, res, stderr.String())
		}
		if during != nil {
			during(i, &stderr)
		}
	}
	more := 0
	if then != nil {
		more = then(ctx, cs)
	}
	cs.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("shim: %v\nstderr:\n%s", err, stderr.String())
	}
	serverIn, _ := os.ReadFile(teeIn)
	serverOut, _ := os.ReadFile(teeOut)
	mu.Lock()
	if !bytes.Equal(serverIn, sent.Bytes()) || !bytes.Equal(got.Bytes(), serverOut) {
		t.Errorf("bytes changed on the way: client wrote %d, server read %d; server wrote %d, client read %d",
			sent.Len(), len(serverIn), len(serverOut), got.Len())
	}
	mu.Unlock()
	res := otlpShimRun{stderr: stderr.String(), spans: calls + 2 + more}
	if logs, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl")); len(logs) == 1 {
		res.logPath = logs[0]
		res.session = strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl")
		if n := logCalls(t, logs[0]); n != res.spans {
			t.Fatalf("the log holds %d calls, want %d", n, res.spans)
		}
	}
	return res
}

var lostLine = regexp.MustCompile(`otlp: (\d+) of (\d+) span\(s\) were not delivered \((\d+) dropped with the queue full, (\d+) refused by the collector, (\d+) unsent at exit\)`)

// lost reads the shim's exit report: spans lost, of how many, and how
// many of them were unsent at exit (all zero when it printed none).
func lost(t *testing.T, stderr string) (dropped, of, atExit int) {
	t.Helper()
	m := lostLine.FindStringSubmatch(stderr)
	if m == nil {
		return 0, 0, 0
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	if n(1) != n(3)+n(4)+n(5) {
		t.Errorf("the report's parts do not add up: %s", m[0])
	}
	return n(1), n(2), n(5)
}

// TestShimOTLP: the shim streams a span per call to the collector, with
// the headers given, never showing them; the spans are those export -T
// otlp makes of the session's log (one mapping); and whatever the
// collector does (down at start, coming up late, going down mid-stream,
// 503 with Retry-After, slow, never answering) the traffic passes
// unchanged and every span is either received or counted as lost.
func TestShimOTLP(t *testing.T) {
	t.Parallel()
	t.Log("the shim streaming spans to collectors that work, fail, stall and come back")
	bins := buildShimBinaries(t)

	t.Run("delivered", func(t *testing.T) {
		rc := otlptest.New(t, nil)
		sr := shimOTLPSession(t, bins, []string{"--otlp-endpoint", rc.URL(), "--otlp-header", "Authorization=Bearer tok-s3cret", "--otlp-header", "X-Scope-OrgID=team-a"}, 20, nil)
		spans := rc.Spans()
		if len(spans) != sr.spans {
			t.Fatalf("collector got %d spans, want %d\n%s", len(spans), sr.spans, sr.stderr)
		}
		if d, _, _ := lost(t, sr.stderr); d != 0 || !strings.Contains(sr.stderr, "streaming spans to "+rc.URL()) {
			t.Errorf("stderr:\n%s", sr.stderr)
		}
		for _, h := range rc.Headers() {
			if h.Get("Authorization") != "Bearer tok-s3cret" || h.Get("X-Scope-OrgID") != "team-a" {
				t.Errorf("headers %v", h)
			}
		}
		logData, _ := os.ReadFile(sr.logPath)
		if strings.Contains(sr.stderr, "s3cret") || bytes.Contains(logData, []byte("s3cret")) {
			t.Error("an OTLP header value reached stderr or the log")
		}
		// The export of the log makes the same spans.
		var out, errb bytes.Buffer
		if code := run([]string{"export", "-T", "otlp", sr.logPath}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("export: %d %s", code, errb.String())
		}
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalJSON(out.Bytes()); err != nil {
			t.Fatal(err)
		}
		exported := map[string]ptrace.Span{}
		rss := req.Traces().ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			ss := rss.At(i).ScopeSpans().At(0).Spans()
			for j := 0; j < ss.Len(); j++ {
				exported[ss.At(j).SpanID().String()] = ss.At(j)
			}
		}
		tools := map[string]int{}
		for _, s := range spans {
			e, ok := exported[s.Span.SpanID().String()]
			if !ok || e.TraceID() != s.Span.TraceID() || e.Name() != s.Span.Name() || e.Status().Code() != s.Span.Status().Code() ||
				!e.Attributes().Equal(s.Span.Attributes()) || e.StartTimestamp() != s.Span.StartTimestamp() || e.EndTimestamp() != s.Span.EndTimestamp() {
				t.Errorf("live span %s %s is not the exported one", s.Span.SpanID(), s.Span.Name())
			}
			if sid, _ := s.Resource.Get("mcpsnoop.session.id"); sid.Str() != sr.session {
				t.Errorf("span of session %q, the log's is %q", sid.Str(), sr.session)
			}
			if v, ok := s.Span.Attributes().Get("mcpsnoop.call.tool_name"); ok {
				tools[v.Str()]++
			}
		}
		if tools["echo"] != 18 || tools["fail"] != 2 {
			t.Errorf("tool spans %v, want 18 echo and 2 fail", tools)
		}
	})

	t.Run("redacted", func(t *testing.T) {
		// The secret reaches the shim in a tool name the client chose and
		// in the server's error message naming it, and a token in the
		// arguments; the log and the spans get them redacted alike.
		const secret, token = "tenant-s3cret-4242", "tok-k3y-9999"
		rc := otlptest.New(t, nil)
		sr := shimSessionThen(t, bins, t.TempDir(), []string{"--otlp-endpoint", rc.URL(), "--redact-secrets", "--redact-value", `tenant-s3cret-[0-9]+`}, 3, nil,
			func(ctx context.Context, cs *mcp.ClientSession) int {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup-" + secret, Arguments: map[string]any{"api_key": token}})
				if err == nil || !strings.Contains(err.Error(), secret) {
					t.Fatalf("calling an unknown tool: %v; want the server's error naming it", err)
				}
				return 1
			})
		spans := rc.Spans()
		if len(spans) != sr.spans {
			t.Fatalf("collector got %d spans, want %d\n%s", len(spans), sr.spans, sr.stderr)
		}
		var failed ptrace.Span
		for _, s := range spans {
			if s.Span.Status().Code() == ptrace.StatusCodeError && s.Span.Status().Message() != "tool result marked isError" {
				failed = s.Span
			}
		}
		if msg := failed.Status().Message(); !strings.Contains(msg, "[REDACTED]") {
			t.Errorf("the failed call's span says %q, want the server's message redacted", msg)
		}
		logData, _ := os.ReadFile(sr.logPath)
		for _, leak := range []string{secret, token} {
			if bytes.Contains(logData, []byte(leak)) {
				t.Errorf("the log holds %q", leak)
			}
			for i, body := range rc.Bodies() {
				if bytes.Contains(body, []byte(leak)) {
					t.Errorf("request %d to the collector holds %q", i, leak)
				}
			}
		}
		if len(rc.Bodies()) == 0 {
			t.Error("no request reached the collector")
		}
	})

	t.Run("no-trace", func(t *testing.T) {
		rc := otlptest.New(t, nil)
		sr := shimOTLPSession(t, bins, []string{"--no-trace", "--otlp-endpoint", rc.URL()}, 5, nil)
		if sr.logPath != "" || len(rc.Spans()) != sr.spans {
			t.Errorf("log %q, %d spans for %d calls", sr.logPath, len(rc.Spans()), sr.spans)
		}
	})

	t.Run("down-at-start", func(t *testing.T) {
		url := "http://" + otlptest.FreeAddr(t) + "/v1/traces"
		sr := shimOTLPSession(t, bins, []string{"--otlp-endpoint", url}, 10, nil)
		d, of, atExit := lost(t, sr.stderr)
		if d != sr.spans || of != sr.spans || atExit != sr.spans || !strings.Contains(sr.stderr, "refused") {
			t.Errorf("lost %d of %d (%d at exit), want all %d:\n%s", d, of, atExit, sr.spans, sr.stderr)
		}
	})

	t.Run("down-at-start-up-later", func(t *testing.T) {
		addr := otlptest.FreeAddr(t)
		var rc *otlptest.Collector
		// 600 calls: the first batch (512 spans) leaves mid-stream, finds
		// nobody, and is retried; the collector comes up after.
		sr := shimOTLPSession(t, bins, []string{"--otlp-endpoint", "http://" + addr + "/v1/traces"}, 600, func(i int, stderr *lockedBuffer) {
			if i == 599 {
				waitFor(t, "the first failed delivery", func() bool { return strings.Contains(stderr.String(), "retrying in the background") })
				rc = otlptest.NewOn(t, addr, nil)
			}
		})
		if d, _, _ := lost(t, sr.stderr); d != 0 || len(rc.Spans()) != sr.spans {
			t.Errorf("lost %d, collector got %d of %d:\n%s", d, len(rc.Spans()), sr.spans, sr.stderr)
		}
	})

	t.Run("down-mid-stream", func(t *testing.T) {
		rc := otlptest.New(t, nil)
		sr := shimOTLPSession(t, bins, []string{"--otlp-endpoint", rc.URL()}, 600, func(i int, _ *lockedBuffer) {
			if i == 599 {
				waitFor(t, "the first batch", func() bool { return len(rc.Spans()) >= 512 })
				rc.Close() // gone, connections and all
			}
		})
		got := len(rc.Spans())
		d, of, atExit := lost(t, sr.stderr)
		if got != 512 || d != sr.spans-got || of != sr.spans || atExit != d {
			t.Errorf("collector got %d; lost %d of %d (%d at exit); want 512 and the other %d lost:\n%s", got, d, of, atExit, sr.spans-512, sr.stderr)
		}
	})

	t.Run("503-retry-after", func(t *testing.T) {
		rc := otlptest.New(t, func(n int, w http.ResponseWriter) bool {
			if n == 0 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return false
			}
			return true
		})
		sr := shimOTLPSession(t, bins, []string{"--otlp-endpoint", rc.URL()}, 10, nil)
		if d, _, _ := lost(t, sr.stderr); d != 0 || len(rc.Spans()) != sr.spans {
			t.Errorf("lost %d, collector got %d of %d:\n%s", d, len(rc.Spans()), sr.spans, sr.stderr)
		}
		if len(rc.Arrived()) != 2 || rc.Arrived()[1].Sub(rc.Arrived()[0]) < time.Second {
			t.Errorf("requests at %v: want a retry a second after the 503", rc.Arrived())
		}
	})

	t.Run("slow", func(t *testing.T) {
		rc := otlptest.New(t, func(n int, w http.ResponseWriter) bool {
			time.Sleep(300 * time.Millisecond)
			return true
		})
		sr := shimOTLPSession(t, bins, []string{"--otlp-endpoint", rc.URL()}, 600, nil)
		if d, _, _ := lost(t, sr.stderr); d != 0 || len(rc.Spans()) != sr.spans {
			t.Errorf("lost %d, collector got %d of %d:\n%s", d, len(rc.Spans()), sr.spans, sr.stderr)
		}
	})

	t.Run("black-hole", func(t *testing.T) {
		url := "http://" + blackHole(t) + "/v1/traces"
		sr := shimOTLPSession(t, bins, []string{"--otlp-endpoint", url}, 10, nil)
		if d, of, atExit := lost(t, sr.stderr); d != sr.spans || of != sr.spans || atExit != sr.spans {
			t.Errorf("lost %d of %d (%d at exit), want all %d unsent at exit:\n%s", d, of, atExit, sr.spans, sr.stderr)
		}
	})
}

// TestOTLPFlagErrors: bad --otlp-* values are usage errors (exit 2)
// naming the flag, never a header's value, before anything runs.
func TestOTLPFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--otlp-endpoint", "localhost:4318/v1/traces", "--", "true"}, "want an http:// or https:// URL"},
		{[]string{"--otlp-endpoint", "ftp://x/v1/traces", "--", "true"}, "want an http:// or https:// URL"},
		{[]string{"--otlp-endpoint", "http:///v1/traces", "--", "true"}, "no host"},
		{[]string{"--otlp-endpoint", "http://x/v1/traces", "--otlp-header", "Bearer-tok-s3cret", "--", "true"}, "--otlp-header #1 has no '='"},
		{[]string{"--otlp-endpoint", "http://x/v1/traces", "--otlp-header", "A=1", "--otlp-header", "Bad Name=s3cret", "--", "true"}, `--otlp-header #2: "Bad Name" is not a valid header name`},
		{[]string{"--otlp-endpoint", "http://x/v1/traces", "--otlp-header", "X-Key=s3cret\x1b]0;x\a", "--", "true"}, "--otlp-header X-Key: the value holds a control character"},
		{[]string{"--otlp-header", "A=s3cret", "--", "true"}, "--otlp-header needs --otlp-endpoint"},
		{[]string{"http", "--target", "http://127.0.0.1:1/mcp", "--otlp-endpoint", "nope"}, "--otlp-endpoint"},
		{[]string{"http", "--target", "http://127.0.0.1:1/mcp", "--otlp-header", "x"}, "--otlp-header needs --otlp-endpoint"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.want) || strings.Contains(stderr.String(), "s3cret") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// logCalls is how many calls check counts in a log.
func logCalls(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	eng := checker.New(checker.Config{})
	r := capture.NewReader(f, path)
	for {
		fr, line, err := r.Next()
		if err != nil {
			break
		}
		eng.Ingest(&fr, checker.Position{Line: line})
	}
	n := 0
	for _, s := range eng.Report().Sessions {
		n += s.Calls
	}
	return n
}
