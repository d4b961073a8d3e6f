package httpcapture

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// newProxyRigWith is newProxyRig with the log's options adjusted.
func newProxyRigWith(t *testing.T, target http.Handler, adjust func(*LogOptions)) *proxyRig {
	t.Helper()
	r := &proxyRig{t: t, out: &memLog{}, warn: &syncBuffer{}}
	r.target = httptest.NewServer(target)
	u, err := url.Parse(r.target.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	o := LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "test.jsonl", Warn: r.warn}
	adjust(&o)
	r.log = newLog(r.out, o, 1024)
	r.proxy = NewProxy(ProxyOptions{Target: u, Log: r.log, Warn: r.warn})
	r.front = httptest.NewServer(r.proxy)
	r.client = &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: time.Minute}
	t.Cleanup(func() {
		r.front.Close()
		r.target.Close()
		r.log.Close()
	})
	return r
}

// A client that sends half a request body and stalls does not hold up the
// log of other exchanges beyond the stall bound; once it goes on, its
// request and then its response are logged, after the frames that passed
// it, and nothing is lost.
func TestProxyStalledBodyDoesNotHoldTheLog(t *testing.T) {
	slowArrived := make(chan struct{})
	r := newProxyRigWith(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("X-Slow") != "" {
			close(slowArrived)
		}
		body, _ := io.ReadAll(req.Body)
		id := "1"
		if strings.Contains(string(body), `"id":2`) {
			id = "2"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	}), func(o *LogOptions) { o.stall = 200 * time.Millisecond })

	pr, pw := io.Pipe()
	slow, _ := http.NewRequest("POST", r.front.URL, pr)
	slow.Header.Set("X-Slow", "1")
	slowDone := make(chan []byte, 1)
	go func() {
		resp, err := r.client.Do(slow)
		if err != nil {
			t.Error(err)
			slowDone <- nil
			return
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		slowDone <- data
	}()
	io.WriteString(pw, `{"jsonrpc":"2.0","id":1,`)
	<-slowArrived // the slow request's place in the log is taken

	if _, got := r.do("POST", "/", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil); string(got) != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("fast exchange got %q", got)
	}
	deadline := time.Now().Add(time.Minute) // a hang, not a slow machine
	for len(r.out.frames(t)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the fast exchange is still not logged behind the stalled one: %d frames", len(r.out.frames(t)))
		}
		time.Sleep(10 * time.Millisecond)
	}

	io.WriteString(pw, `"method":"tools/call"}`)
	pw.Close()
	if got := <-slowDone; string(got) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("slow exchange got %q", got)
	}
	wantFrames(t, r.frames(),
		`c2s {"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`s2c 200 {"jsonrpc":"2.0","id":2,"result":{}}`,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}}`,
	)
}

// Within the stall bound, a stalled head still holds the line: a frame
// that finishes late keeps its place in wire order.
func TestHTTPLogShortStallKeepsWireOrder(t *testing.T) {
	out := &memLog{}
	l := newLog(out, LogOptions{SessionID: "s", Label: "l", Path: "p.jsonl", stall: time.Hour}, 16)
	a, b := &exchange{conn: "a"}, &exchange{conn: "b"}
	req := l.begin(observation{kind: obsRequest, x: a}, false)
	l.add(observation{kind: obsRequest, x: b, body: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)})
	time.Sleep(50 * time.Millisecond)
	l.finish(req, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), false)
	l.Close()
	fs := out.frames(t)
	if len(fs) != 2 || fs[0].ConnID != "a" || fs[1].ConnID != "b" {
		t.Errorf("log: %s", summaries(fs))
	}
}

// Past the stall bound, the line moves on, but an exchange's own frames
// stay in order: a response that is ready waits for its request.
func TestHTTPLogStalledExchangeKeepsItsOrder(t *testing.T) {
	out := &memLog{}
	l := newLog(out, LogOptions{SessionID: "s", Label: "l", Path: "p.jsonl", stall: 20 * time.Millisecond}, 16)
	a, b := &exchange{conn: "a"}, &exchange{conn: "b"}
	req := l.begin(observation{kind: obsRequest, x: a}, false)
	l.add(observation{kind: obsResponse, x: a, resp: &responseInfo{status: 200}, body: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)})
	l.add(observation{kind: obsRequest, x: b, body: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)})
	deadline := time.Now().Add(time.Minute) // a hang, not a slow machine
	for len(out.frames(t)) < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if fs := out.frames(t); len(fs) != 1 || fs[0].ConnID != "b" {
		t.Fatalf("log while a stalls: %s", summaries(fs))
	}
	l.finish(req, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), false)
	if lost := l.Close(); lost != 0 {
		t.Errorf("lost %d", lost)
	}
	wantFrames(t, out.frames(t),
		`c2s {"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`c2s {"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}}`,
	)
	for i, f := range out.frames(t) {
		if f.Seq != uint64(i+1) {
			t.Errorf("frame %d has seq %d", i, f.Seq)
		}
	}
}

// upgradeTarget answers a request asking for an upgrade with 101 and then
// echoes whatever the connection carries, until it is closed.
func upgradeTarget(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Upgrade") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		io.ReadAll(req.Body)
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: mcp-test\r\n\r\n")
		brw.Flush()
		io.Copy(conn, brw)
	})
}

// dialUpgrade opens an upgraded connection through the proxy with a POST
// and checks that it carries bytes both ways.
func dialUpgrade(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: mcp-test\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d", resp.StatusCode)
	}
	io.WriteString(conn, "ping")
	buf := make([]byte, 4)
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo %q %v", buf, err)
	}
	return conn
}

// An upgraded connection (101 to a POST) never ends on its own: like an
// event stream, CloseStreams ends it, so the proxy goes idle at once.
func TestProxyCloseStreamsEndsUpgradedConnections(t *testing.T) {
	r := newProxyRig(t, upgradeTarget(t))
	conn := dialUpgrade(t, r.front.Listener.Addr().String())
	r.proxy.CloseStreams()
	idle := make(chan struct{})
	go func() { r.proxy.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-time.After(3 * time.Second):
		t.Fatal("the proxy is still busy with an upgraded connection after CloseStreams")
	}
	conn.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Errorf("the client's upgraded connection was not closed: %v", err)
	}
	fs := r.frames()
	if len(fs) != 2 || fs[0].Direction != capture.ClientToServer || fs[1].Status != http.StatusSwitchingProtocols {
		t.Errorf("log: %s", summaries(fs))
	}
}

// Shutdown is bounded whatever the exchanges in flight do: past its
// context it ends every exchange (here a target that never answers).
func TestProxyShutdownIsBounded(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	inFlight := make(chan struct{}, 1)
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		inFlight <- struct{}{}
		select {
		case <-release:
		case <-req.Context().Done():
		}
	}))
	go func() {
		resp, err := r.client.Post(r.front.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-inFlight // the exchange reached the target, through the proxy
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	shut := make(chan struct{})
	go func() { r.proxy.Shutdown(ctx); close(shut) }()
	select {
	case <-shut:
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown hung past its context: the exchange in flight held it")
	}
	idle := make(chan struct{})
	go func() { r.proxy.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-time.After(time.Minute): // a hang, not a slow machine
		t.Fatal("an exchange outlived Shutdown")
	}
}

// The log copies of bodies in flight share one memory budget: past it a
// body is logged as the fragment kept so far, marked truncated, while the
// client still gets every byte; once the budget frees up, bodies are
// logged whole again.
func TestProxyLogMemoryBudget(t *testing.T) {
	const size = 100 << 10
	blob := func(id int) string {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"blob":"`, id)
		return head + strings.Repeat("x", size-len(head)-3) + `"}}`
	}
	release := make(chan struct{})
	r := newProxyRigWith(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		b := blob(1)
		switch req.Header.Get("X-Id") {
		case "1": // holds its body open, nearly whole
			io.WriteString(w, b[:len(b)-3])
			w.(http.Flusher).Flush()
			<-release
			io.WriteString(w, b[len(b)-3:])
		case "2":
			io.WriteString(w, blob(2))
		case "3":
			io.WriteString(w, blob(3))
		}
	}), func(o *LogOptions) { o.MaxBodyMemory = 150 << 10 })

	post := func(id string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", r.front.URL, strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call"}`))
		req.Header.Set("X-Id", id)
		return r.client.Do(req)
	}
	resp1, err := post("1")
	if err != nil {
		t.Fatal(err)
	}
	got1 := make([]byte, size-3)
	if _, err := io.ReadFull(resp1.Body, got1); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"2", "3"} {
		if id == "3" {
			close(release)
			rest, _ := io.ReadAll(resp1.Body)
			resp1.Body.Close()
			if got := string(got1) + string(rest); got != blob(1) {
				t.Errorf("client 1 got %d bytes", len(got))
			}
		}
		resp, err := post(id)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := blob(int(id[0] - '0')); string(got) != want {
			t.Errorf("client %s got %d bytes, want %d", id, len(got), len(want))
		}
	}
	var s2c []capture.Frame
	for _, f := range r.frames() {
		if f.Direction == capture.ServerToClient {
			s2c = append(s2c, f)
		}
	}
	if len(s2c) != 3 {
		t.Fatalf("%d responses logged: %s", len(s2c), summaries(s2c))
	}
	for _, f := range s2c {
		switch {
		case strings.Contains(string(f.Raw), `"id":1`), strings.Contains(string(f.Raw), `"id":3`):
			if f.Truncated || len(f.Raw) != size {
				t.Errorf("a body within the budget: truncated %v, %d bytes", f.Truncated, len(f.Raw))
			}
		default:
			if !f.Truncated || len(f.Raw) != 0 || len(f.Text) >= size || !strings.HasPrefix(blob(2), f.Text) {
				t.Errorf("the body past the budget: truncated %v, raw %d bytes, text %.40q (%d bytes)", f.Truncated, len(f.Raw), f.Text, len(f.Text))
			}
		}
	}
	if !strings.Contains(r.warn.String(), "memory") {
		t.Errorf("no warning about the memory budget: %q", r.warn.String())
	}
}

// The client's path reaches the proxy's stderr escaped: it can neither
// color the terminal nor start a line of its own (a forged CI command).
func TestProxyWarningEscapesThePath(t *testing.T) {
	target := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(target.URL) // no path: the client's is kept
	target.Close()
	var warn syncBuffer
	front := httptest.NewServer(NewProxy(ProxyOptions{Target: u, Warn: &warn}))
	defer front.Close()
	resp, err := http.Post(front.URL+"/%1b[31mred%0a::error::forged", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := warn.String()
	if strings.ContainsAny(got, "\x1b") || strings.Count(got, "\n") != 1 || !strings.Contains(got, `POST /\x1b[31mred\n::error::forged: `) {
		t.Errorf("warning %q", got)
	}
}
