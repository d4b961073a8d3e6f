package httpcapture

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/mcpsnoop/mcpsnoop/capture"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proxyRig is a target server, the proxy in front of it and its log, all
// on loopback.
type proxyRig struct {
	t      *testing.T
	target *httptest.Server
	proxy  *Proxy
	front  *httptest.Server
	out    *memLog
	log    *Log
	warn   *syncBuffer
	// client talks to the proxy and never asks for compression itself, so
	// it sees the bytes as the target sent them.
	client *http.Client
}

func newProxyRig(t *testing.T, target http.Handler) *proxyRig {
	t.Helper()
	return newProxyRigTo(t, httptest.NewServer(target))
}

// newProxyRigTo is newProxyRig with a target server already started.
func newProxyRigTo(t *testing.T, target *httptest.Server) *proxyRig {
	t.Helper()
	r := &proxyRig{t: t, out: &memLog{}, warn: &syncBuffer{}}
	r.target = target
	u, err := url.Parse(r.target.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	r.log = newTestHTTPLog(r.out, nil, 1024)
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

// frames stops the proxy and returns its log.
func (r *proxyRig) frames() []capture.Frame {
	r.t.Helper()
	r.client.CloseIdleConnections()
	r.front.Close()
	r.proxy.Wait()
	// Shutdown flushes the proxy's warnings, which go through a queue
	// that never waits: read before, they may not be there yet.
	_ = r.proxy.Shutdown(context.Background())
	if lost := r.log.Close(); lost != 0 {
		r.t.Errorf("%d observations lost", lost)
	}
	fs := r.out.frames(r.t)
	for i, f := range fs {
		if f.Seq != uint64(i+1) {
			r.t.Errorf("frame %d has seq %d", i, f.Seq)
		}
	}
	return withoutMeta(r.t, fs, r.target.URL)
}

// withoutMeta checks that a proxy's log starts with its meta frame, naming
// the target at targetURL (scheme, host and port only), and returns the
// frames after it.
func withoutMeta(t *testing.T, fs []capture.Frame, targetURL string) []capture.Frame {
	t.Helper()
	u, err := url.Parse(targetURL)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"target":{"scheme":%q,"host":%q,"port":%s}}`, u.Scheme, u.Hostname(), u.Port())
	if len(fs) == 0 || fs[0].Direction != capture.Meta || fs[0].Seq != 1 || string(fs[0].Raw) != want || fs[0].Transport != capture.TransportHTTP {
		t.Errorf("the log does not start with the meta frame %s:\n%s", want, summaries(fs[:min(len(fs), 1)]))
		return fs
	}
	return fs[1:]
}

// do sends a request through the proxy and returns the response with its
// body read whole.
func (r *proxyRig) do(method, path, body string, header http.Header) (*http.Response, []byte) {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.front.URL+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := r.client.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp, data
}

// summary is a frame in a line: direction, status, and raw or text.
func summary(f capture.Frame) string {
	s := f.Direction
	if f.Status != 0 {
		s += fmt.Sprintf(" %d", f.Status)
	}
	switch {
	case len(f.Raw) > 0:
		s += " " + string(f.Raw)
	case f.Text != "":
		s += " text:" + f.Text
	}
	if f.Batch {
		s += " batch"
	}
	if len(f.ReplyTo) > 0 {
		s += " reply_to:" + string(f.ReplyTo)
	}
	return s
}

func summaries(fs []capture.Frame) string {
	var lines []string
	for _, f := range fs {
		lines = append(lines, summary(f))
	}
	return strings.Join(lines, "\n")
}

func wantFrames(t *testing.T, fs []capture.Frame, want ...string) {
	t.Helper()
	if got := summaries(fs); got != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

const (
	secretAuth    = "Bearer tok-sEcReT-1"
	secretCookie  = "sid=cOoKiE-2"
	secretSession = "sEsSiOn-3"
	secretEventID = "eVeNt-4"
)

// JSON bodies, batches and bare statuses; headers recorded and not.
func TestProxyJSONBatchesAndStatus(t *testing.T) {
	var seen sync.Map // what the target received: path, query, headers
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		seen.Store("path", req.URL.Path+"?"+req.URL.RawQuery)
		seen.Store("auth", req.Header.Get("Authorization"))
		seen.Store("cookie", req.Header.Get("Cookie"))
		seen.Store("session", req.Header.Get("Mcp-Session-Id"))
		switch {
		case bytes.Contains(body, []byte(`"notifications/`)):
			w.WriteHeader(http.StatusAccepted)
		case body[0] == '[':
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "[\n {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}},\n {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n]\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "srv=cOoKiE-5")
			io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"<hi> & bye"}]}}`+"\n")
		}
	}))
	h := http.Header{
		"Authorization": {secretAuth}, "Cookie": {secretCookie}, "Mcp-Session-Id": {secretSession},
		"Last-Event-Id": {secretEventID}, "Content-Type": {"application/json"},
		"Accept": {"application/json", "text/event-stream"}, "Origin": {"http://localhost:3000"},
		"Mcp-Method": {"tools/call"}, "Mcp-Name": {"greet"}, "Mcp-Protocol-Version": {"2026-07-28"},
		"mcp-param-zone": {"b", "a"}, "Mcp-Param-Alpha": {"1"},
	}
	resp, got := r.do("POST", "/anything?x=1", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet"}}`, h)
	if want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"<hi> & bye"}]}}` + "\n"; string(got) != want || resp.StatusCode != 200 {
		t.Errorf("client got %d %q", resp.StatusCode, got)
	}
	if resp.Header.Get("Set-Cookie") == "" {
		t.Error("Set-Cookie was not forwarded")
	}
	if v, _ := seen.Load("path"); v != "/mcp?x=1" {
		t.Errorf("target saw %v", v)
	}
	for k, want := range map[string]string{"auth": secretAuth, "cookie": secretCookie, "session": secretSession} {
		if v, _ := seen.Load(k); v != want {
			t.Errorf("target saw %s %v, want %s", k, v, want)
		}
	}
	_, got = r.do("POST", "/", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil)
	if !bytes.HasPrefix(got, []byte("[\n {\"jsonrpc\": \"2.0\"")) {
		t.Errorf("client got %q", got)
	}
	resp, _ = r.do("POST", "/", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	if resp.StatusCode != 202 {
		t.Errorf("status %d", resp.StatusCode)
	}
	fs := r.frames()
	wantFrames(t, fs,
		`c2s {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet"}}`,
		`s2c 200 {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"<hi> & bye"}]}}`,
		`c2s {"jsonrpc":"2.0","id":1,"method":"ping"} batch`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"ping"} batch`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}} batch`,
		`s2c 200 {"jsonrpc":"2.0","id":2,"result":{}} batch`,
		`c2s {"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`s2c 202`,
	)
	c := fs[0]
	if c.McpMethod != "tools/call" || c.McpName != "greet" || c.McpProtocolVersion != "2026-07-28" ||
		c.ContentType != "application/json" || c.Accept != "application/json, text/event-stream" || c.Origin != "http://localhost:3000" {
		t.Errorf("request headers %+v", c)
	}
	if want := []capture.ParamHeader{{Name: "Mcp-Param-Alpha", Value: "1"}, {Name: "Mcp-Param-Zone", Value: "b"}, {Name: "Mcp-Param-Zone", Value: "a"}}; fmt.Sprint(c.McpParamHeaders) != fmt.Sprint(want) {
		t.Errorf("param headers %v", c.McpParamHeaders)
	}
	if fs[1].ContentType != "application/json" || fs[1].ConnID != c.ConnID || !strings.HasPrefix(c.ConnID, "127.0.0.1:") {
		t.Errorf("response frame %+v", fs[1])
	}
	data := r.out.buf.String()
	for _, secret := range []string{"sEcReT", "cOoKiE", "sEsSiOn", "eVeNt", "Authorization", "authorization"} {
		if strings.Contains(data, secret) {
			t.Errorf("the log holds %q:\n%s", secret, data)
		}
	}
}

// An SSE response reaches the client event by event, each logged as it
// passes; a GET stream's frames name no request.
func TestProxyStreamsSSE(t *testing.T) {
	next := make(chan struct{})
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		io.WriteString(w, ": ok\n\nevent: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-next: // the client has the first event: nothing was held back
		case <-time.After(5 * time.Second):
			t.Error("the first event did not reach the client while the stream was open")
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\"result\":{}}\r\n\r\n")
	}))
	resp, err := r.client.Post(r.front.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	var first strings.Builder
	for !strings.HasSuffix(first.String(), "}}\n\n") {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		first.WriteString(line)
	}
	close(next)
	rest, _ := io.ReadAll(br)
	resp.Body.Close()
	if want := "data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\"result\":{}}\r\n\r\n"; string(rest) != want {
		t.Errorf("rest %q", rest)
	}
	fs := r.frames()
	wantFrames(t, fs,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
		`s2c 200 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}}`, // two data lines, one message
	)
	if fs[1].ContentType != "text/event-stream" {
		t.Errorf("content type %q", fs[1].ContentType)
	}
}

// A server request on an SSE stream and the client's answer POSTed on
// another connection share the conn_id of the connection that opened the
// MCP session, and the request is logged before the answer.
func TestProxyPairsServerRequestsAcrossConnections(t *testing.T) {
	answered := make(chan struct{}) // the client has the 202 for its answer
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		switch {
		case bytes.Contains(body, []byte(`"initialize"`)):
			w.Header().Set("Mcp-Session-Id", secretSession)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":0,"result":{}}`)
		case bytes.Contains(body, []byte(`"result"`)): // the client's answer
			w.WriteHeader(http.StatusAccepted)
		default: // tools/call: ask the user, then answer
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"Name?"}}`+"\n\n")
			w.(http.Flusher).Flush()
			<-answered
			io.WriteString(w, `data: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`+"\n\n")
		}
	}))
	sess := http.Header{"Mcp-Session-Id": {secretSession}}
	r.do("POST", "/", `{"jsonrpc":"2.0","id":0,"method":"initialize"}`, nil)
	other := &http.Client{Transport: &http.Transport{}, Timeout: time.Minute} // another connection
	defer other.CloseIdleConnections()
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequest("POST", r.front.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`))
		req.Header = sess.Clone()
		resp, err := other.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		br := bufio.NewReader(resp.Body)
		br.ReadString('\n') // the question
		a, _ := http.NewRequest("POST", r.front.URL, strings.NewReader(`{"jsonrpc":"2.0","id":5,"result":{"action":"accept"}}`))
		a.Header = sess.Clone()
		ar, err := r.client.Do(a)
		if err != nil {
			t.Error(err)
			return
		}
		ar.Body.Close()
		close(answered)
		io.ReadAll(br)
		resp.Body.Close()
	}()
	<-done
	fs := r.frames()
	wantFrames(t, fs,
		`c2s {"jsonrpc":"2.0","id":0,"method":"initialize"}`,
		`s2c 200 {"jsonrpc":"2.0","id":0,"result":{}}`,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`,
		`s2c 200 {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"Name?"}} reply_to:1`,
		`c2s {"jsonrpc":"2.0","id":5,"result":{"action":"accept"}}`,
		`s2c 202`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
	)
	for _, f := range fs[1:] {
		if f.ConnID != fs[0].ConnID {
			t.Errorf("conn_id %q, want the session's %q: %s", f.ConnID, fs[0].ConnID, summary(f))
		}
	}
}

// An unreachable target: the client gets 502, and the log has the request
// it could not deliver, then the 502 naming it.
func TestProxyUnreachableTarget(t *testing.T) {
	r := newProxyRig(t, http.NotFoundHandler())
	r.target.Close()
	resp, body := r.do("POST", "/", `{"jsonrpc":"2.0","id":"a1","method":"tools/list"}`, nil)
	if resp.StatusCode != http.StatusBadGateway || len(body) != 0 {
		t.Errorf("client got %d %q", resp.StatusCode, body)
	}
	wantFrames(t, r.frames(),
		`c2s {"jsonrpc":"2.0","id":"a1","method":"tools/list"}`,
		`s2c 502 reply_to:"a1"`,
	)
	if !strings.Contains(r.warn.String(), "mcpsnoop http: POST /mcp: ") {
		t.Errorf("warning %q", r.warn.String())
	}
}

// Statuses the target answers without JSON-RPC: a 401 challenge kept
// verbatim, a 403 for an Origin; Authorization and Origin reach the target.
func TestProxyRefusals(t *testing.T) {
	challenge := `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource", scope="files:read"`
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		if o := req.Header.Get("Origin"); o != "" && o != "http://localhost" {
			http.Error(w, "Forbidden: origin "+o, http.StatusForbidden)
			return
		}
		if req.Header.Get("Authorization") != secretAuth {
			w.Header().Set("WWW-Authenticate", challenge)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":3,"result":{}}`)
	}))
	resp, _ := r.do("POST", "/", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	if resp.StatusCode != 401 || resp.Header.Get("Www-Authenticate") != challenge {
		t.Errorf("client got %d %q", resp.StatusCode, resp.Header.Get("Www-Authenticate"))
	}
	resp, _ = r.do("POST", "/", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.Header{"Authorization": {secretAuth}, "Origin": {"https://evil.example"}})
	if resp.StatusCode != 403 {
		t.Errorf("status %d", resp.StatusCode)
	}
	r.do("POST", "/", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, http.Header{"Authorization": {secretAuth}})
	fs := r.frames()
	wantFrames(t, fs,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`s2c 401 reply_to:1`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`s2c 403 text:Forbidden: origin https://evil.example reply_to:2`,
		`c2s {"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`s2c 200 {"jsonrpc":"2.0","id":3,"result":{}}`,
	)
	if fs[1].AuthChallenge != challenge || fs[2].Origin != "https://evil.example" {
		t.Errorf("challenge %q origin %q", fs[1].AuthChallenge, fs[2].Origin)
	}
	if strings.Contains(r.out.buf.String(), "sEcReT") {
		t.Error("the log holds the Authorization header")
	}
}

// TestProxyRecordsTheHTTPExchange: every frame names the HTTP method and
// URL path of its exchange (never the query), so a status-only answer to a
// GET or a DELETE, which has no request frame, says what it answered.
func TestProxyRecordsTheHTTPExchange(t *testing.T) {
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		if req.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	r.do("POST", "/mcp?token=sEcReT", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
	r.do("GET", "/mcp", "", http.Header{"Accept": {"text/event-stream"}})
	r.do("DELETE", "/mcp/", "", nil)
	fs := r.frames()
	wantFrames(t, fs,
		`c2s {"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}}`,
		`s2c 405`,
		`s2c 405`,
	)
	want := [][2]string{{"POST", "/mcp"}, {"POST", "/mcp"}, {"GET", "/mcp"}, {"DELETE", "/mcp/"}}
	for i, f := range fs {
		if got := [2]string{f.HTTPMethod, f.HTTPPath}; got != want[i] {
			t.Errorf("frame %d: http %v, want %v", i, got, want[i])
		}
	}
	if strings.Contains(r.out.buf.String(), "sEcReT") {
		t.Error("the log holds the URL's query")
	}
}

// TestProxyMarksAnEmptyEventStream: an event stream that answers a
// request and ends without an event is logged as a status frame marked
// stream_empty, naming the request; a stream with an event is not.
func TestProxyMarksAnEmptyEventStream(t *testing.T) {
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if strings.Contains(string(body), `"id":2`) {
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n")
		}
	}))
	r.do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`, nil)
	r.do("POST", "/mcp", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil)
	fs := r.frames()
	wantFrames(t, fs,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
		`s2c 200 reply_to:1`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`s2c 200 {"jsonrpc":"2.0","id":2,"result":{}}`,
	)
	if !fs[1].StreamEmpty || fs[3].StreamEmpty {
		t.Errorf("stream_empty %v and %v, want true for the empty stream only", fs[1].StreamEmpty, fs[3].StreamEmpty)
	}
}

// compress encodes s in a content-coding.
func compress(t *testing.T, coding, s string) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "raw-deflate":
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	case "br":
		w = brotli.NewWriter(&buf)
	}
	io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A compressed response reaches the client as the target sent it and is
// logged decoded, also when it streams.
func TestProxyCompressedResponses(t *testing.T) {
	const reply = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + "squeeze me squeeze me squeeze me" + `"}]}}`
	for _, coding := range []string{"gzip", "deflate", "raw-deflate", "br"} {
		t.Run(coding, func(t *testing.T) {
			wire := compress(t, coding, reply)
			header := strings.TrimPrefix(coding, "raw-")
			r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				io.Copy(io.Discard, req.Body)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Encoding", header)
				w.Write(wire)
			}))
			resp, got := r.do("POST", "/", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, http.Header{"Accept-Encoding": {header}})
			if !bytes.Equal(got, wire) || resp.Header.Get("Content-Encoding") != header {
				t.Errorf("client got %q (%s), want the compressed bytes", got, resp.Header.Get("Content-Encoding"))
			}
			wantFrames(t, r.frames(), `c2s {"jsonrpc":"2.0","id":1,"method":"tools/call"}`, `s2c 200 `+reply)
		})
	}
	t.Run("gzip SSE", func(t *testing.T) {
		next := make(chan struct{})
		r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if body, _ := io.ReadAll(req.Body); strings.Contains(string(body), "notifications/answer") {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
			zw.Flush()
			w.(http.Flusher).Flush()
			<-next
			io.WriteString(zw, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
			zw.Close()
		}))
		req, _ := http.NewRequest("POST", r.front.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(zr)
		br.ReadString('\n')
		// The client acts on the first event at once: the event took its
		// place in the log before the client could read it, so it is
		// logged first, though the log decodes it on its own time.
		r.do("POST", "/", `{"jsonrpc":"2.0","method":"notifications/answer"}`, nil)
		close(next)
		io.ReadAll(br)
		resp.Body.Close()
		wantFrames(t, r.frames(),
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
			`s2c 200 {"jsonrpc":"2.0","method":"notifications/progress"}`,
			`c2s {"jsonrpc":"2.0","method":"notifications/answer"}`,
			`s2c 202`,
			`s2c 200 {"jsonrpc":"2.0","id":1,"result":{}}`,
		)
	})
	t.Run("decoding never holds up forwarding", func(t *testing.T) {
		// The log's decoder is stuck until released: the client still gets
		// the whole stream, and the log gets every event once released.
		release := make(chan struct{})
		defer func(orig func(string, io.Reader) (io.Reader, error)) { newDecoder = orig }(newDecoder)
		orig := newDecoder
		newDecoder = func(coding string, src io.Reader) (io.Reader, error) {
			<-release
			return orig(coding, src)
		}
		var stream bytes.Buffer
		zw := gzip.NewWriter(&stream)
		for i := range 1000 {
			fmt.Fprintf(zw, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":%d}}\n\n", i)
		}
		zw.Close()
		r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(stream.Bytes())
		}))
		got := make(chan []byte, 1)
		go func() {
			_, body := r.do("POST", "/", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, nil)
			got <- body
		}()
		select {
		case body := <-got:
			if !bytes.Equal(body, stream.Bytes()) {
				t.Fatalf("the client got %d bytes, the server sent %d", len(body), stream.Len())
			}
		case <-time.After(10 * time.Second):
			close(release)
			t.Fatal("the client did not get the stream while the log's decoder was held up")
		}
		close(release)
		if fs := r.frames(); len(fs) != 1001 {
			t.Errorf("%d frames, want the request and 1000 events", len(fs))
		}
	})
	t.Run("unknown coding", func(t *testing.T) {
		r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("Content-Encoding", "zstd")
			w.Write([]byte{0x28, 0xb5, 0x2f, 0xfd})
		}))
		_, got := r.do("POST", "/", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
		if !bytes.Equal(got, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			t.Errorf("client got %q", got)
		}
		wantFrames(t, r.frames(), `c2s {"jsonrpc":"2.0","id":1,"method":"ping"}`, `s2c 200 reply_to:1`)
		if !strings.Contains(r.warn.String(), `content-coding "zstd"`) {
			t.Errorf("warning %q", r.warn.String())
		}
	})
}

// A client that goes away in the middle of an event stream ends the
// exchange: nothing panics, the events it got are logged, the one cut is
// not, and the log closes complete.
func TestProxyClientLeavesMidSSE(t *testing.T) {
	stopped := make(chan struct{})
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		defer close(stopped)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":1}}\n\ndata: {\"jsonrpc\":")
		w.(http.Flusher).Flush()
		<-req.Context().Done() // streams until the proxy hangs up
	}))
	conn, err := net.Dial("tcp", r.front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
	br := bufio.NewReader(conn)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, "data: {\"jsonrpc\":") && strings.Contains(line, "\"n\":1") {
			break
		}
	}
	conn.Close()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the target's stream was not ended when the client left")
	}
	wantFrames(t, r.frames(), `s2c 200 {"jsonrpc":"2.0","method":"notifications/message","params":{"n":1}}`)
}

// CloseStreams ends the GET event streams, so a shutdown is not held up by
// them; other exchanges go on.
func TestProxyCloseStreams(t *testing.T) {
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-req.Context().Done()
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.front.URL, nil)
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.proxy.CloseStreams()
	io.ReadAll(resp.Body) // returns once the proxy ends the stream
	resp.Body.Close()
	r.proxy.Wait()
	if ctx.Err() != nil {
		t.Fatal("the stream outlived CloseStreams")
	}
}

// Without a log the proxy only forwards.
func TestProxyWithoutLog(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(w, req.Body)
	}))
	defer target.Close()
	u, _ := url.Parse(target.URL)
	front := httptest.NewServer(NewProxy(ProxyOptions{Target: u}))
	defer front.Close()
	resp, err := http.Post(front.URL, "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(data) != `{"a":1}` {
		t.Errorf("got %q", data)
	}
}

func TestParseTarget(t *testing.T) {
	for s, ok := range map[string]bool{
		"http://127.0.0.1:8080/mcp": true, "https://mcp.example.com": true,
		"ftp://x": false, "127.0.0.1:8080": false, "http://": false, "://": false,
	} {
		if _, err := ParseTarget(s); (err == nil) != ok {
			t.Errorf("ParseTarget(%q): %v", s, err)
		}
	}
	u, _ := ParseTarget("http://127.0.0.1:8080/mcp")
	if DefaultLabel(u) != "127.0.0.1:8080" {
		t.Errorf("label %q", DefaultLabel(u))
	}
}

// The Content-Type of a response decides SSE whatever its parameters.
func TestMediaType(t *testing.T) {
	for v, want := range map[string]string{
		"text/event-stream": "text/event-stream", "Text/Event-Stream; charset=utf-8": "text/event-stream",
		"application/json;charset=utf-8": "application/json", "": "", "bad;;": "bad",
	} {
		if got := capture.MediaType(v); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", v, got, want)
		}
	}
	_ = json.Valid
}

// Bodies past what the log keeps are forwarded whole and logged as their
// first MaxLogLine bytes, marked truncated.
func TestProxyOversizedBodies(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"blob":"` + strings.Repeat("a", capture.MaxLogLine) + `"}}`
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n, _ := io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"got":%d,"blob":"%s"}}`, n, strings.Repeat("b", capture.MaxLogLine))
	}))
	_, got := r.do("POST", "/", big, nil)
	if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"got":%d,`, len(big)); !strings.HasPrefix(string(got), want) || len(got) != capture.MaxLogLine+len(want)+len(`"blob":""}}`) {
		t.Errorf("client got %d bytes: %.80s", len(got), got)
	}
	fs := r.frames()
	if len(fs) != 2 {
		t.Fatalf("%d frames", len(fs))
	}
	for _, f := range fs {
		if !f.Truncated || len(f.Text) != capture.MaxLogLine || len(f.Raw) != 0 {
			t.Errorf("%s frame: truncated %v, %d bytes of text", f.Direction, f.Truncated, len(f.Text))
		}
	}
}

// Concurrent clients: every frame gets the next seq, and each answer is
// logged after its request, under its client's conn_id.
func TestProxyConcurrentOrder(t *testing.T) {
	r := newProxyRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(req.Body).Decode(&msg)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s}}\n\n", msg.ID)
		w.(http.Flusher).Flush()
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", msg.ID)
	}))
	const clients, calls = 8, 15
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			for i := range calls {
				id := c*100 + i
				resp, err := client.Post(r.front.URL, "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	fs := r.frames()
	if len(fs) != clients*calls*3 {
		t.Fatalf("%d frames, want %d", len(fs), clients*calls*3)
	}
	type seen struct {
		request, progress int
		conn              string
	}
	byID := map[string]*seen{}
	for i, f := range fs {
		var m struct {
			ID     json.RawMessage
			Params struct{ ProgressToken json.RawMessage }
		}
		json.Unmarshal(f.Raw, &m)
		switch {
		case f.Direction == capture.ClientToServer:
			byID[string(m.ID)] = &seen{request: i, conn: f.ConnID}
		case m.Params.ProgressToken != nil:
			s := byID[string(m.Params.ProgressToken)]
			if s == nil || s.conn != f.ConnID {
				t.Fatalf("progress %s before its request, or on another conn", m.Params.ProgressToken)
			}
			s.progress = i
		default:
			s := byID[string(m.ID)]
			if s == nil || s.progress == 0 || s.conn != f.ConnID {
				t.Fatalf("answer %s before its request or progress", m.ID)
			}
		}
	}
}

// The decoder gets a body in whatever pieces the network delivers, down to
// a byte at a time.
func TestInflaterByteAtATime(t *testing.T) {
	const text = `{"jsonrpc":"2.0","id":1,"result":{"text":"one byte at a time, one byte at a time"}}`
	for _, coding := range []string{"gzip", "deflate", "raw-deflate", "br"} {
		wire := compress(t, coding, text)
		var got []byte
		d := newInflater(strings.TrimPrefix(coding, "raw-"), func(p []byte) { got = append(got, p...) }, nil)
		buf := make([]byte, 1)
		for _, c := range wire {
			buf[0] = c
			d.write(buf)
			buf[0] = 0 // the proxy reuses its buffer once a chunk is forwarded
		}
		d.close()
		if string(got) != text {
			t.Errorf("%s: decoded %q", coding, got)
		}
	}
}
