package otlpsink

import (
	"bufio"
	"bytes"
	"github.com/mcpsnoop/mcpsnoop/internal/otlptest"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSenderBatches: spans leave in batches of at most BatchSize, all of
// them, with the headers given, decoded by the collector's own types.
func TestSenderBatches(t *testing.T) {
	c := otlptest.New(t, nil)
	o := fast(c.URL())
	o.Header = http.Header{"Authorization": {"Bearer s3cret"}, "X-Scope-Orgid": {"tenant-a"}}
	s := NewSender(o)
	spans := testSpans(1100)
	for _, sp := range spans {
		if !s.Enqueue(sp) {
			t.Fatal("a span did not fit an empty queue")
		}
	}
	st := s.Close()
	if st.Spans != 1100 || st.Sent != 1100 || st.Dropped() != 0 {
		t.Errorf("stats %+v, want 1100 sent", st)
	}
	if len(c.Spans()) != 1100 {
		t.Errorf("collector got %d spans", len(c.Spans()))
	}
	for i, n := range c.Batches() {
		if n > DefaultBatchSize || n == 0 {
			t.Errorf("batch %d holds %d spans", i, n)
		}
	}
	if len(c.Batches()) < 3 {
		t.Errorf("%d requests for 1100 spans: %v", len(c.Batches()), c.Batches())
	}
	for _, h := range c.Headers() {
		if h.Get("Authorization") != "Bearer s3cret" || h.Get("X-Scope-OrgID") != "tenant-a" {
			t.Errorf("headers %v", h)
		}
	}
	seen := map[string]bool{}
	for _, s := range c.Spans() {
		sp := s.Span
		if sp.Name() != "tools/call read" {
			t.Errorf("span name %q", sp.Name())
		}
		seen[sp.SpanID().String()] = true
	}
	if len(seen) != 1100 {
		t.Errorf("%d distinct span ids", len(seen))
	}
}

// TestSenderBatchDelay: a batch that does not fill leaves after
// BatchDelay, while the sender runs (not only at Close).
func TestSenderBatchDelay(t *testing.T) {
	c := otlptest.New(t, nil)
	o := fast(c.URL())
	o.BatchDelay = 20 * time.Millisecond
	s := NewSender(o)
	defer s.Close()
	start := time.Now()
	for _, sp := range testSpans(3) {
		s.Enqueue(sp)
	}
	c.WaitTaken(1)
	if len(c.Spans()) != 3 {
		t.Errorf("first request held %d spans, want 3", len(c.Spans()))
	}
	if waited := c.Arrived()[0].Sub(start); waited < o.BatchDelay {
		t.Errorf("sent after %s, before the batch delay %s", waited, o.BatchDelay)
	}
}

// TestSenderRetries: 429, 502, 503 and 504 are retried until accepted
// (a 503's Retry-After is waited for); any other failure drops the batch,
// counted as refused, and is not retried.
func TestSenderRetries(t *testing.T) {
	for _, tc := range []struct {
		status     int
		retryAfter string
		retried    bool
	}{
		{http.StatusTooManyRequests, "", true},
		{http.StatusBadGateway, "", true},
		{http.StatusServiceUnavailable, "1", true},
		{http.StatusGatewayTimeout, "", true},
		{http.StatusBadRequest, "", false},
		{http.StatusUnauthorized, "", false},
		{http.StatusInternalServerError, "", false},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			c := otlptest.New(t, func(n int, w http.ResponseWriter) bool {
				if n < 2 {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.WriteHeader(tc.status)
					return false
				}
				return true
			})
			var warn bytes.Buffer
			o := fast(c.URL())
			// One batch of the ten, however slowly they are enqueued.
			o.BatchSize, o.BatchDelay = 10, time.Minute
			o.Warn = &warn
			o.Header = http.Header{"Authorization": {"Bearer s3cret"}}
			s := NewSender(o)
			for _, sp := range testSpans(10) {
				s.Enqueue(sp)
			}
			if tc.retried {
				c.WaitTaken(1)
			}
			st := s.Close()
			if tc.retried {
				if st.Sent != 10 || st.Dropped() != 0 || c.Requests() != 3 {
					t.Errorf("stats %+v after %d requests, want 10 sent on the third", st, c.Requests())
				}
				if tc.retryAfter != "" {
					if gap := c.Arrived()[1].Sub(c.Arrived()[0]); gap < time.Second {
						t.Errorf("retried %s after a Retry-After: 1", gap)
					}
				}
			} else if st.Sent != 0 || st.Refused != 10 || c.Requests() != 1 {
				t.Errorf("stats %+v after %d requests, want 10 refused on the first", st, c.Requests())
			}
			if !strings.Contains(st.Problem, http.StatusText(tc.status)) {
				t.Errorf("problem %q does not name the status", st.Problem)
			}
			if w := warn.String(); strings.Count(w, "\n") != 1 || strings.Contains(w, "s3cret") || !strings.Contains(w, "/v1/traces") {
				t.Errorf("warning: %q", w)
			}
		})
	}
}

// TestSenderPartialSuccess: spans a collector rejects in a partial
// success are counted as refused, the rest as sent.
func TestSenderPartialSuccess(t *testing.T) {
	c := otlptest.New(t, func(n int, w http.ResponseWriter) bool {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"partialSuccess":{"rejectedSpans":"2","errorMessage":"too old"}}`))
		return false
	})
	s := NewSender(fast(c.URL()))
	for _, sp := range testSpans(5) {
		s.Enqueue(sp)
	}
	if st := s.Close(); st.Sent != 3 || st.Refused != 2 {
		t.Errorf("stats %+v, want 3 sent 2 refused", st)
	}
}

// TestSenderQueueFull: with the collector holding a request, the queue
// fills and what does not fit is dropped and counted; at Close the flush
// gives up after FlushTimeout and counts the rest: every span is counted
// exactly once.
func TestSenderQueueFull(t *testing.T) {
	release := make(chan struct{})
	holding := make(chan struct{}, 16)
	c := otlptest.New(t, func(n int, w http.ResponseWriter) bool {
		holding <- struct{}{}
		<-release
		return true
	})
	defer close(release)
	o := fast(c.URL())
	o.QueueSize, o.BatchSize, o.FlushTimeout = 4, 1, 100*time.Millisecond
	s := NewSender(o)
	spans := testSpans(11)
	s.Enqueue(spans[0])
	<-holding // the worker holds span 0 in a request the collector keeps
	fit := 0
	for _, sp := range spans[1:] {
		if s.Enqueue(sp) {
			fit++
		}
	}
	st := s.Close()
	if fit != 4 || st.DroppedFull != 6 || st.DroppedAtExit != 5 || st.Sent != 0 || st.Spans != 11 {
		t.Errorf("fit %d, stats %+v; want 4 fit, 6 dropped full, 5 at exit", fit, st)
	}
	if st.Spans != st.Sent+st.Dropped() {
		t.Errorf("spans %d != sent %d + dropped %d", st.Spans, st.Sent, st.Dropped())
	}
	if s.Enqueue(spans[0]) {
		t.Error("a closed sender took a span")
	}
}

// TestSenderDownAtStart: nothing listens at first; the sender retries in
// the background and delivers everything once the collector is up.
func TestSenderDownAtStart(t *testing.T) {
	addr := otlptest.FreeAddr(t)
	var warn syncBuffer
	o := fast("http://" + addr + "/v1/traces")
	o.Warn = &warn
	s := NewSender(o)
	for _, sp := range testSpans(20) {
		s.Enqueue(sp)
	}
	// The batch leaves after BatchDelay and finds nobody; close the sender
	// once the collector is up, so that its flush finds it.
	waitFor(t, "the first attempt to fail", func() bool { return strings.Contains(warn.String(), "retrying in the background") })
	c := otlptest.NewOn(t, addr, nil)
	st := s.Close()
	if st.Sent != 20 || len(c.Spans()) != 20 {
		t.Errorf("stats %+v, collector got %d", st, len(c.Spans()))
	}
}

// TestSenderDownAtStartRetried: the collector is down when the first
// batch leaves; it is retried until the collector comes up.
func TestSenderDownAtStartRetried(t *testing.T) {
	addr := otlptest.FreeAddr(t)
	var warn syncBuffer
	o := fast("http://" + addr + "/v1/traces")
	o.BatchSize = 5
	o.Warn = &warn
	s := NewSender(o)
	for _, sp := range testSpans(5) {
		s.Enqueue(sp)
	}
	waitFor(t, "the first attempt to fail", func() bool { return strings.Contains(warn.String(), "retrying in the background") })
	c := otlptest.NewOn(t, addr, nil)
	c.WaitTaken(1)
	st := s.Close()
	if st.Sent != 5 || st.Dropped() != 0 || !strings.Contains(st.Problem, "refused") {
		t.Errorf("stats %+v", st)
	}
}

// TestSenderDownMidStream: the collector accepts a batch, then goes away;
// the next batches are retried and, with it still gone at exit, counted
// as dropped: sent + dropped = spans.
func TestSenderDownMidStream(t *testing.T) {
	addr := otlptest.FreeAddr(t)
	c := otlptest.NewOn(t, addr, nil)
	o := fast("http://" + addr + "/v1/traces")
	o.BatchSize, o.FlushTimeout = 10, 200*time.Millisecond
	s := NewSender(o)
	spans := testSpans(35)
	for _, sp := range spans[:10] {
		s.Enqueue(sp)
	}
	waitFor(t, "the first batch's answer", func() bool { return s.sent.Load() >= 10 })
	c.Close() // down, connections and all
	for _, sp := range spans[10:] {
		s.Enqueue(sp)
	}
	st := s.Close()
	if st.Sent != 10 || st.DroppedAtExit != 25 || st.Spans != 35 {
		t.Errorf("stats %+v, want 10 sent and 25 dropped at exit", st)
	}
}

// TestSenderSlowCollector: a collector slower than the spans come is
// waited for (within RequestTimeout); nothing is lost.
func TestSenderSlowCollector(t *testing.T) {
	c := otlptest.New(t, func(n int, w http.ResponseWriter) bool {
		time.Sleep(150 * time.Millisecond)
		return true
	})
	o := fast(c.URL())
	o.BatchSize = 10
	s := NewSender(o)
	for _, sp := range testSpans(40) {
		s.Enqueue(sp)
	}
	c.WaitTaken(2)
	st := s.Close()
	if st.Sent+st.DroppedAtExit != 40 || st.Sent < 20 || len(c.Spans()) != int(st.Sent) {
		t.Errorf("stats %+v, collector got %d", st, len(c.Spans()))
	}
}

// TestSenderBlackHole: a collector that accepts the connection and never
// answers costs the sender its request timeout, and Close its flush time,
// never more: the spans are counted as dropped at exit.
func TestSenderBlackHole(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() { // read forever, answer never
				defer conns.Done()
				_, _ = bufio.NewReader(conn).WriteTo(discard{})
				conn.Close()
			}()
		}
	}()
	defer func() { ln.Close(); conns.Wait() }()
	o := fast("http://" + ln.Addr().String() + "/v1/traces")
	o.FlushTimeout, o.RequestTimeout = 100*time.Millisecond, 50*time.Millisecond
	o.BatchSize = 4
	s := NewSender(o)
	for _, sp := range testSpans(10) {
		s.Enqueue(sp)
	}
	st := s.Close()
	if st.Sent != 0 || st.DroppedAtExit != 10 || !strings.Contains(st.Problem, "no answer in time") {
		t.Errorf("stats %+v", st)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSenderRefusesRedirects: a collector answering 307 or 308 is not
// followed (the headers, a token among them, would go to wherever it
// points): the batch is refused, and the failure names where the
// redirect pointed, without its query.
func TestSenderRefusesRedirects(t *testing.T) {
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			elsewhere := otlptest.New(t, nil)
			c := otlptest.New(t, func(n int, w http.ResponseWriter) bool {
				w.Header().Set("Location", elsewhere.Base()+"/v1/traces?token=s3cret")
				w.WriteHeader(code)
				return false
			})
			var warn bytes.Buffer
			o := fast(c.URL())
			o.Header = http.Header{"X-Api-Key": {"k3y"}}
			o.Warn = &warn
			s := NewSender(o)
			for _, sp := range testSpans(3) {
				s.Enqueue(sp)
			}
			st := s.Close()
			if n := elsewhere.Requests(); n != 0 {
				t.Errorf("the redirect was followed: %d request(s) reached its target", n)
			}
			want := strconv.Itoa(code) + " " + http.StatusText(code) + " to " + elsewhere.Base() + "/v1/traces (redirects are not followed"
			if st.Refused != 3 || st.Sent != 0 || !strings.Contains(st.Problem, want) || strings.Contains(st.Problem+warn.String(), "s3cret") {
				t.Errorf("stats %+v; warning %q; want 3 refused, the problem naming %q", st, warn.String(), want)
			}
		})
	}
}

// TestSenderEscapesTheCollectorsWords: a collector's reason phrase is
// shown with its control characters escaped, in the warning and in the
// line at exit.
func TestSenderEscapesTheCollectorsWords(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				io.WriteString(conn, "HTTP/1.1 400 \x1b]0;pwned\x07\x1b[2JAll good\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
	var warn, report bytes.Buffer
	o := fast("http://" + ln.Addr().String() + "/v1/traces")
	o.Warn = &warn
	s := NewSender(o)
	for _, sp := range testSpans(2) {
		s.Enqueue(sp)
	}
	st := s.Close()
	st.Report(&report, "mcpsnoop")
	for name, out := range map[string]string{"warning": warn.String(), "report": report.String()} {
		if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `400 \x1b]0;pwned\a\x1b[2JAll good`) {
			t.Errorf("%s: %q; want the reason with its controls escaped", name, out)
		}
	}
}
