// Package otlptest is an OTLP/HTTP traces endpoint on loopback for tests:
// it decodes each request with the OpenTelemetry collector's own request
// type and keeps what it took, and can be told to misbehave (refuse,
// stall, fail) request by request. The live streaming tests of otlpsink
// and of the shim and proxy commands use it; the e2e tests run a real
// Jaeger instead.
package otlptest

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

// Path is where the collector takes traces.
const Path = "/v1/traces"

// Span is one span the collector took, with its resource's attributes.
type Span struct {
	Span     ptrace.Span
	Resource pcommon.Map
}

// Answer decides the reply to request n (0-based): false means it has
// answered already and the request is not taken; true takes it.
type Answer func(n int, w http.ResponseWriter) bool

// Collector is the endpoint. Its methods are safe while it serves.
type Collector struct {
	t      testing.TB
	srv    *httptest.Server
	answer Answer

	mu       sync.Mutex
	requests int
	batches  []int // spans per request taken
	spans    []Span
	headers  []http.Header
	hosts    []string
	arrived  []time.Time // every request's arrival, taken or not
	bodies   [][]byte    // of the requests taken
	taken    chan struct{}
}

// New serves on a free loopback port; answer may be nil (take everything).
// It is closed when the test ends.
func New(t testing.TB, answer Answer) *Collector {
	c := newCollector(t, answer)
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

// NewOn serves on addr: a collector coming up where one was expected.
func NewOn(t testing.TB, addr string, answer Answer) *Collector {
	t.Helper()
	c := newCollector(t, answer)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(c.serve))
	c.srv.Listener.Close()
	c.srv.Listener = ln
	c.srv.Start()
	t.Cleanup(c.srv.Close)
	return c
}

func newCollector(t testing.TB, answer Answer) *Collector {
	return &Collector{t: t, answer: answer, taken: make(chan struct{}, 1<<16)}
}

// Base is the collector's http://host:port.
func (c *Collector) Base() string { return c.srv.URL }

// URL is its traces endpoint.
func (c *Collector) URL() string { return c.srv.URL + Path }

// Close takes it down, its connections with it.
func (c *Collector) Close() { c.srv.Close() }

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	c.mu.Lock()
	n := c.requests
	c.requests++
	c.arrived = append(c.arrived, time.Now())
	c.mu.Unlock()
	if c.answer != nil && !c.answer(n, w) {
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != Path || r.Header.Get("Content-Type") != "application/json" {
		c.t.Errorf("request %s %s (Content-Type %q)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(body); err != nil {
		c.t.Errorf("not an OTLP/JSON export request: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	td := req.Traces()
	c.mu.Lock()
	k := 0
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			spans := rs.ScopeSpans().At(j).Spans()
			for x := 0; x < spans.Len(); x++ {
				c.spans = append(c.spans, Span{spans.At(x), rs.Resource().Attributes()})
				k++
			}
		}
	}
	c.batches = append(c.batches, k)
	c.headers = append(c.headers, r.Header.Clone())
	c.hosts = append(c.hosts, r.Host)
	c.bodies = append(c.bodies, body)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{}`))
	c.taken <- struct{}{}
}

// Requests is how many requests arrived, taken or not.
func (c *Collector) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// Spans are the spans taken, in order.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}

// Batches is how many spans each request taken held.
func (c *Collector) Batches() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.batches...)
}

// Headers are the headers of the requests taken.
func (c *Collector) Headers() []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]http.Header(nil), c.headers...)
}

// Hosts are the Host headers of the requests taken.
func (c *Collector) Hosts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.hosts...)
}

// Arrived is when each request arrived, taken or not.
func (c *Collector) Arrived() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.arrived...)
}

// Bodies are the bodies of the requests taken.
func (c *Collector) Bodies() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.bodies...)
}

// WaitTaken waits for n more requests to be taken; past a minute the test
// fails.
func (c *Collector) WaitTaken(n int) {
	c.t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-c.taken:
		case <-time.After(time.Minute):
			c.t.Fatalf("timed out waiting for taken request %d", i+1)
		}
	}
}

// FreeAddr is a loopback address nothing listens on (for now).
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
