package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// otlpReceiver is an OTLP/HTTP traces endpoint on loopback that decodes
// each request with the OpenTelemetry collector's own request type, for
// the tests of live streaming that need a collector to misbehave (the
// e2e tests run a real Jaeger). answer, when set, decides the reply to
// request n (0-based): false means it answered already.
type otlpReceiver struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	answer   func(n int, w http.ResponseWriter) bool
	requests int
	arrived  []time.Time
	spans    []receivedSpan
	headers  []http.Header
	raw      [][]byte // the bodies of the requests it took
}

// receivedSpan is one span with its resource's attributes.
type receivedSpan struct {
	span     ptrace.Span
	resource pcommon.Map
}

func newOTLPReceiver(t *testing.T, answer func(n int, w http.ResponseWriter) bool) *otlpReceiver {
	r := &otlpReceiver{t: t, answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// newOTLPReceiverOn serves on addr (a collector coming up where one was
// expected).
func newOTLPReceiverOn(t *testing.T, addr string) *otlpReceiver {
	r := &otlpReceiver{t: t}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.srv.Listener.Close()
	r.srv.Listener = ln
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	return r
}

func (r *otlpReceiver) url() string { return r.srv.URL + "/v1/traces" }

func (r *otlpReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	r.mu.Lock()
	n := r.requests
	r.requests++
	r.arrived = append(r.arrived, time.Now())
	answer := r.answer
	r.mu.Unlock()
	if answer != nil && !answer(n, w) {
		return
	}
	ex := ptraceotlp.NewExportRequest()
	if err := ex.UnmarshalJSON(body); err != nil {
		r.t.Errorf("not an OTLP/JSON export request: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	td := ex.Traces()
	r.mu.Lock()
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			spans := rs.ScopeSpans().At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				r.spans = append(r.spans, receivedSpan{spans.At(k), rs.Resource().Attributes()})
			}
		}
	}
	r.headers = append(r.headers, req.Header.Clone())
	r.raw = append(r.raw, body)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{}`))
}

func (r *otlpReceiver) received() []receivedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receivedSpan(nil), r.spans...)
}

// bodies are the raw bodies of the requests the receiver took.
func (r *otlpReceiver) bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.raw...)
}

// freeLoopback is a loopback address nothing listens on.
func freeLoopback(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// blackHole accepts connections and reads them without ever answering.
func blackHole(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() { defer wg.Done(); _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// waitFor polls cond until it holds; past a minute the test fails, naming
// what it waited for, rather than hanging until the test binary's timeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
