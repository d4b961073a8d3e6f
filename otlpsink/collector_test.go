package otlpsink

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// collector is an OTLP/HTTP traces receiver on loopback that decodes each
// request with the collector's own request type. answer decides the reply
// to request n (0-based); nil accepts everything.
type collector struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	answer   func(n int, w http.ResponseWriter) bool // true: accepted
	requests int
	batches  []int // spans per accepted request
	spans    []ptrace.Span
	headers  []http.Header
	hosts    []string
	arrived  []time.Time
	got      chan struct{} // a token per accepted request
}

func newCollector(t *testing.T, answer func(n int, w http.ResponseWriter) bool) *collector {
	c := &collector{t: t, answer: answer, got: make(chan struct{}, 1<<16)}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	c.mu.Lock()
	n := c.requests
	c.requests++
	c.arrived = append(c.arrived, time.Now())
	answer := c.answer
	c.mu.Unlock()
	if answer != nil && !answer(n, w) {
		return
	}
	req := ptraceotlp.NewExportRequest()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
		c.t.Errorf("request %s %s (Content-Type %q)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	}
	if err := req.UnmarshalJSON(body); err != nil {
		c.t.Errorf("not an OTLP/JSON export request: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	td := req.Traces()
	c.mu.Lock()
	k := 0
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		ss := td.ResourceSpans().At(i).ScopeSpans()
		for j := 0; j < ss.Len(); j++ {
			for x := 0; x < ss.At(j).Spans().Len(); x++ {
				c.spans = append(c.spans, ss.At(j).Spans().At(x))
				k++
			}
		}
	}
	c.batches = append(c.batches, k)
	c.headers = append(c.headers, r.Header.Clone())
	c.hosts = append(c.hosts, r.Host)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{}`))
	c.got <- struct{}{}
}

func (c *collector) url() *url.URL {
	u, _ := url.Parse(c.srv.URL + "/v1/traces")
	return u
}

func (c *collector) requestCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

func (c *collector) received() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.spans)
}

// waitAccepted waits for n accepted requests (the test's own timeout
// bounds it).
func (c *collector) waitAccepted(n int) {
	for i := 0; i < n; i++ {
		select {
		case <-c.got:
		case <-time.After(time.Minute):
			c.t.Fatalf("timed out waiting for accepted request %d", i+1)
		}
	}
}

// testSpans maps n tools/call records of one session.
func testSpans(n int) []otlp.Span {
	live := otlp.NewLive()
	so := checker.SessionSoFar{ID: "sess-1", Label: "files", Transport: "stdio"}
	start := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	out := make([]otlp.Span, n)
	for i := range out {
		r := checker.CallRecord{
			SessionID: "sess-1", Index: i, ID: itoa(i + 1), Method: "tools/call", Name: "read", IsTool: true,
			Status: "ok", State: "completed", Direction: "c2s", Start: start.Add(time.Duration(i) * time.Millisecond),
			End: start.Add(time.Duration(i)*time.Millisecond + 500*time.Microsecond), HasDuration: true, Duration: 500 * time.Microsecond,
		}
		out[i] = live.Span(so, &r)
	}
	return out
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// fast are options for tests: short waits, everything else default.
func fast(u *url.URL) Options {
	return Options{Endpoint: u, BatchDelay: 10 * time.Millisecond, MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}
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
