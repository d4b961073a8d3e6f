package httpcapture

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener counts the writes on every connection it accepts.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, writes: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// frontCounting serves proxy on loopback and counts the writes it makes to
// its clients.
func frontCounting(t *testing.T, proxy http.Handler) (string, *countingListener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	front := httptest.NewUnstartedServer(proxy)
	front.Listener = cl
	front.Start()
	t.Cleanup(front.Close)
	return front.URL, cl
}

// Every write to a client's connection wakes the client, so a response
// that reaches the proxy whole leaves it in one write: its headers, its
// body and, when it is chunked, the terminator. The target here is a Go
// server, which sends a short response in one write whatever its framing.
func TestProxyAnswersInOneWrite(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 3000) + `"}]}}`
	short := `{"jsonrpc":"2.0","id":1,"result":{}}`
	cases := []struct {
		name, contentType, body string
		chunked                 bool
	}{
		// Over the server's 2 KB buffer, so sent chunked: the reverse proxy
		// flushes the headers of such a body ahead of it.
		{"chunked json", "application/json", long, true},
		{"json with a length", "application/json", short, false},
		// SSE answers to a POST holding just their result, as the Go SDK's
		// server sends them: the reverse proxy flushes the headers of any
		// event stream ahead of its body.
		{"event stream", "text/event-stream", "event: message\ndata: " + short + "\n\n", false},
		{"chunked event stream", "text/event-stream", "event: message\ndata: " + long + "\n\n", true},
	}
	// Headers are held until the body comes, however long that takes on a
	// busy machine: what is tested is that the body takes them along, not
	// how fast it comes (TestProxySendsHeldHeaders tests the hold).
	holdHeaders = func(_ time.Duration, f func()) *time.Timer { return time.AfterFunc(time.Hour, f) }
	defer func() { holdHeaders = time.AfterFunc }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", c.contentType)
				io.WriteString(w, c.body)
			}))
			defer target.Close()
			u, _ := url.Parse(target.URL + "/mcp")
			log := newTestHTTPLog(&memLog{}, nil, 1024)
			defer log.Close()
			front, counted := frontCounting(t, NewProxy(ProxyOptions{Target: u, Log: log, Warn: &syncBuffer{}}))
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: time.Minute}
			defer client.CloseIdleConnections()
			// Twenty in a row: a header flush racing the body shows in some.
			for i := range 20 {
				before := counted.writes.Load()
				resp, err := client.Post(front+"/mcp", "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(got) != c.body {
					t.Fatalf("call %d: body %.60q…, %v", i, got, err)
				}
				if chunked := resp.ContentLength < 0; chunked != c.chunked {
					t.Fatalf("call %d: chunked %v, want %v (the case no longer tests what it says)", i, chunked, c.chunked)
				}
				if n := counted.writes.Load() - before; n != 1 {
					t.Fatalf("call %d: the response took %d writes to the client, want 1", i, n)
				}
			}
		})
	}
}

// Headers the target flushes with nothing after them (an event stream with
// nothing to say yet) are held for at most about a millisecond
// (headerHold), then reach the client: the client gets the response while
// the target waits for it to.
func TestProxySendsHeldHeaders(t *testing.T) {
	var mu sync.Mutex
	var holds []time.Duration
	holdHeaders = func(d time.Duration, f func()) *time.Timer {
		mu.Lock()
		holds = append(holds, d)
		mu.Unlock()
		return time.AfterFunc(d, f)
	}
	defer func() { holdHeaders = time.AfterFunc }()
	seen := make(chan struct{})
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-seen:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n")
	}))
	r := newProxyRigTo(t, target)
	got := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, r.front.URL+"/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := r.client.Do(req)
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- resp
	}()
	select {
	case resp := <-got:
		if resp == nil {
			return
		}
		defer resp.Body.Close()
		close(seen)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		b := make([]byte, 64)
		if n, err := resp.Body.Read(b); n == 0 || err != nil && err != io.EOF {
			t.Fatalf("the event after the headers: %q, %v", b[:n], err)
		}
	case <-time.After(time.Minute): // only a hang gets here: the target waits for the client
		close(seen)
		t.Fatal("the headers of an event stream with no event yet never reached the client")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(holds) == 0 {
		t.Fatal("the headers were not held")
	}
	for _, d := range holds {
		if d <= 0 || d > 2*time.Millisecond {
			t.Errorf("headers held for %v, want about a millisecond", d)
		}
	}
}

// rawTarget answers every request on its connection with answer, sent in
// one write, so that the proxy reads a response whole.
func rawTarget(t *testing.T, answer string) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					if _, err := io.WriteString(c, answer); err != nil {
						return
					}
				}
			}()
		}
	}()
	// Not started: Close closes the listener, which ends the loop above.
	return &httptest.Server{URL: "http://" + ln.Addr().String(), Listener: ln, Config: &http.Server{}}
}

// Trailers reach the client whether the target announced them or not, and
// whether a body comes before them or not. The target sends its whole
// response in one write, so that the body's last read brings the trailers
// too: the reverse proxy then flushes after the body, to have it sent
// chunked (the only way trailers can follow), and that flush must happen,
// not be held or taken for the last write's.
func TestProxyForwardsTrailers(t *testing.T) {
	for _, contentType := range []string{"application/json", "text/event-stream"} {
		for _, body := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, ""} {
			for _, announced := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/body=%v/announced=%v", contentType, body != "", announced), func(t *testing.T) {
					head := "HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nTransfer-Encoding: chunked\r\n"
					if announced {
						head += "Trailer: X-Checksum\r\n"
					}
					chunk := ""
					if body != "" {
						chunk = fmt.Sprintf("%x\r\n%s\r\n", len(body), body)
					}
					r := newProxyRigTo(t, rawTarget(t, head+"\r\n"+chunk+"0\r\nX-Checksum: abc\r\n\r\n"))
					for i := range 5 {
						resp, got := r.do(http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
						if string(got) != body {
							t.Fatalf("call %d: body %q", i, got)
						}
						if tr := resp.Trailer.Get("X-Checksum"); tr != "abc" {
							t.Fatalf("call %d: trailer X-Checksum %q, want abc (trailers %v, Content-Length %d)", i, tr, resp.Trailer, resp.ContentLength)
						}
					}
				})
			}
		}
	}
}

// failingBody fails its first read, as a target that dies mid-response.
type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }
func (failingBody) Close() error             { return nil }

// Headers held for a body that then fails go out at once: the reverse
// proxy aborts the exchange on the failure, and the server does not send
// what it still buffers, so without this the client would get nothing of
// an answer the target did give.
func TestFlushWriterSendsHeldHeadersWhenTheBodyFails(t *testing.T) {
	rec := httptest.NewRecorder()
	fw := newFlushWriter(rec)
	defer fw.finish()
	fw.Header().Set("Content-Type", "text/event-stream")
	fw.WriteHeader(http.StatusOK)
	if err := fw.FlushError(); err != nil {
		t.Fatal(err)
	}
	if rec.Flushed {
		t.Fatal("headers flushed at once: nothing is held, the case tests nothing")
	}
	body := &lastRead{ReadCloser: failingBody{}, resp: &http.Response{}, out: fw}
	if _, err := body.Read(make([]byte, 16)); err != io.ErrUnexpectedEOF {
		t.Fatalf("read: %v", err)
	}
	if !rec.Flushed {
		t.Error("the held headers were not sent when the body failed")
	}
}
