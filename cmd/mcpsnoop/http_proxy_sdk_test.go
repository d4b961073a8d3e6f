package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/httpcapture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The real go-sdk client and server over streamable HTTP, with mcpsnoop's
// proxy between them on loopback. Both ends record the bytes of every
// exchange (the client's RoundTripper and a wrapper around the server's
// handler), which must be the same; an exchange is named by a header the
// client's side adds.

const exchangeHeader = "X-Test-Exchange"

// wireBytes are one exchange's bodies as one end saw them.
type wireBytes struct {
	method        string
	request, resp bytes.Buffer
}

// wireLog holds the exchanges one end saw.
type wireLog struct {
	mu sync.Mutex
	m  map[string]*wireBytes
}

func (w *wireLog) get(id, method string) *wireBytes {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]*wireBytes{}
	}
	if w.m[id] == nil {
		w.m[id] = &wireBytes{method: method}
	}
	return w.m[id]
}

// lockedWriter appends to a buffer under the wire log's lock.
type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// clientWire is the client's RoundTripper: it names each exchange and
// keeps the bytes sent and received.
type clientWire struct {
	next http.RoundTripper
	log  wireLog
	n    atomic.Int64
}

func (c *clientWire) RoundTrip(req *http.Request) (*http.Response, error) {
	id := strconv.FormatInt(c.n.Add(1), 10)
	req = req.Clone(req.Context())
	req.Header.Set(exchangeHeader, id)
	w := c.log.get(id, req.Method)
	if req.Body != nil {
		req.Body = readCloser{io.TeeReader(req.Body, lockedWriter{&c.log.mu, &w.request}), req.Body}
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = readCloser{io.TeeReader(resp.Body, lockedWriter{&c.log.mu, &w.resp}), resp.Body}
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// serverWire wraps the server's handler and keeps the bytes it read and
// wrote per exchange.
type serverWire struct {
	next http.Handler
	log  wireLog
}

func (s *serverWire) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	x := s.log.get(req.Header.Get(exchangeHeader), req.Method)
	if req.Body != nil {
		req.Body = readCloser{io.TeeReader(req.Body, lockedWriter{&s.log.mu, &x.request}), req.Body}
	}
	s.next.ServeHTTP(&tapWriter{ResponseWriter: w, out: lockedWriter{&s.log.mu, &x.resp}}, req)
}

type tapWriter struct {
	http.ResponseWriter
	out io.Writer
}

func (t *tapWriter) Write(p []byte) (int, error) {
	n, err := t.ResponseWriter.Write(p)
	t.out.Write(p[:n])
	return n, err
}

func (t *tapWriter) Flush() { t.ResponseWriter.(http.Flusher).Flush() }

func (t *tapWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// sameBytes says where the two ends disagree. A POST's bodies must match
// exactly; a GET stream the client hung up on may have been written a
// little further than the client read.
func sameBytes(t *testing.T, client, server *wireLog) {
	t.Helper()
	if len(client.m) == 0 || len(client.m) != len(server.m) {
		t.Fatalf("the client saw %d exchanges, the server %d", len(client.m), len(server.m))
	}
	for id, c := range client.m {
		s := server.m[id]
		if s == nil {
			t.Errorf("exchange %s (%s) never reached the server", id, c.method)
			continue
		}
		if !bytes.Equal(c.request.Bytes(), s.request.Bytes()) {
			t.Errorf("exchange %s (%s): request bodies differ:\nclient %q\nserver %q", id, c.method, c.request.Bytes(), s.request.Bytes())
		}
		cr, sr := c.resp.Bytes(), s.resp.Bytes()
		if c.method == http.MethodGet {
			sr = sr[:min(len(sr), len(cr))]
		}
		if !bytes.Equal(cr, sr) {
			t.Errorf("exchange %s (%s): response bodies differ:\nclient %q\nserver %q", id, c.method, cr, sr)
		}
	}
}

// sdkRig is the server behind the proxy and the proxy with its log file.
type sdkRig struct {
	target  *httptest.Server
	front   *httptest.Server
	proxy   *httpcapture.Proxy
	log     *httpcapture.Log
	logPath string
	server  serverWire
	client  clientWire
	remotes sync.Map // exchange -> the client connection's address at the proxy
}

func newSDKRig(t *testing.T, handler http.Handler) *sdkRig {
	t.Helper()
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	r := &sdkRig{}
	r.server.next = handler
	r.target = httptest.NewServer(&r.server)
	target, err := httpcapture.ParseTarget(r.target.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	f, path, err := capture.OpenLogFile(filepath.Join(t.TempDir(), "http.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r.logPath = path
	label := httpcapture.DefaultLabel(target)
	r.log = httpcapture.NewLog(f, httpcapture.LogOptions{SessionID: capture.NewSessionID(label), Label: label, Path: path})
	r.proxy = httpcapture.NewProxy(httpcapture.ProxyOptions{Target: target, Log: r.log})
	r.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.remotes.Store(req.Header.Get(exchangeHeader), req.RemoteAddr)
		r.proxy.ServeHTTP(w, req)
	}))
	r.client.next = http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(func() {
		r.front.Close()
		r.target.Close()
		r.log.Close()
	})
	return r
}

// transport is the go-sdk client's way to the proxy.
func (r *sdkRig) transport(standaloneSSE bool) *mcp.StreamableClientTransport {
	return &mcp.StreamableClientTransport{
		Endpoint: r.front.URL + "/", HTTPClient: &http.Client{Transport: &r.client},
		DisableStandaloneSSE: !standaloneSSE, MaxRetries: -1,
	}
}

// finish stops everything, then returns the log's frames.
func (r *sdkRig) finish(t *testing.T) []capture.Frame {
	t.Helper()
	r.front.Close()
	r.proxy.Wait()
	r.target.Close()
	if lost := r.log.Close(); lost != 0 {
		t.Errorf("%d observations lost", lost)
	}
	data, err := os.ReadFile(r.logPath)
	if err != nil {
		t.Fatal(err)
	}
	rd := capture.NewReader(bytes.NewReader(data), r.logPath)
	var frames []capture.Frame
	for {
		f, _, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f.Clone())
	}
	for i, f := range frames {
		if f.Seq != uint64(i+1) || (i > 0 && f.TS.Before(frames[i-1].TS)) {
			t.Errorf("frame %d is out of order: seq %d", i, f.Seq)
		}
	}
	_, frames = httpMeta(t, frames)
	return frames
}

// checkReport runs mcpsnoop check with the default gate and returns its
// JSON report.
type checkDoc struct {
	Verdict  string `json:"verdict"`
	Sessions []struct {
		Transport    string         `json:"transport"`
		Counters     map[string]int `json:"counters"`
		Elicitations []struct {
			RootID                                   string `json:"root_id"`
			RequestID                                string `json:"request_id"`
			Method, Name, Key, Mode, Message, Action string
			Pending                                  bool
			ElapsedMs                                *float64 `json:"elapsed_ms"`
		} `json:"elicitations"`
		Interactions []struct {
			RootID     string `json:"root_id"`
			RoundTrips int    `json:"round_trips"`
			Outcome    string `json:"outcome"`
		} `json:"interactions"`
	} `json:"sessions"`
	Findings []struct {
		Signal, Message string
	} `json:"findings"`
}

func checkReport(t *testing.T, logPath string) checkDoc {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", "--json", report, logPath}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		data, _ := os.ReadFile(logPath)
		t.Fatalf("check failed (exit %d):\n%s%s\nlog:\n%s", code, stdout.String(), stderr.String(), data)
	}
	var doc checkDoc
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sessions) != 1 || doc.Verdict != "passed" || doc.Sessions[0].Transport != "http" {
		t.Fatalf("report: %s", data)
	}
	for _, f := range doc.Findings {
		if strings.Contains(f.Message, "no matching request") {
			t.Errorf("finding: %s", f.Message)
		}
	}
	return doc
}

type tripArgs struct {
	City string `json:"city"`
}

// 2025-11-25 with a session: the server asks the user through a request
// on the tool call's SSE stream, and the client answers with a POST of its
// own, on another connection. The log pairs question and answer.
func TestHTTPProxySDKSessionWithServerRequest(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "travel", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "book", Description: "Book a trip"},
		func(ctx context.Context, req *mcp.CallToolRequest, args tripArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Which seat in " + args.City + "?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"seat": map[string]any{"type": "string"}}},
			})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked, " + res.Action}}}, nil, nil
		})
	r := newSDKRig(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"seat": "12A"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, r.transport(true), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book", Arguments: map[string]any{"city": "Lisbon"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "booked, accept" {
		t.Fatalf("call: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	frames := r.finish(t)
	sameBytes(t, &r.client.log, &r.server.log)

	// The question travels s2c on the tool call's stream, the answer c2s in
	// a POST of its own; both carry the conn_id of the session.
	var ask, answer, call *capture.Frame
	for i := range frames {
		f := &frames[i]
		if f.Transport != capture.TransportHTTP || f.ConnID == "" {
			t.Errorf("frame %d: transport %q conn_id %q", f.Seq, f.Transport, f.ConnID)
		}
		if f.ConnID != frames[0].ConnID {
			t.Errorf("frame %d has conn_id %s, the session's is %s", f.Seq, f.ConnID, frames[0].ConnID)
		}
		switch {
		case strings.Contains(string(f.Raw), `"method":"tools/call"`):
			call = f
		case strings.Contains(string(f.Raw), `"method":"elicitation/create"`):
			ask = f
		case ask != nil && f.Direction == capture.ClientToServer && strings.Contains(string(f.Raw), `"action":"accept"`):
			answer = f
		}
		for _, secret := range []string{"Mcp-Session-Id", "mcp-session-id"} {
			if strings.Contains(string(f.Raw)+f.Text, secret) {
				t.Errorf("frame %d holds %s", f.Seq, secret)
			}
		}
	}
	if ask == nil || answer == nil || call == nil || ask.Seq > answer.Seq || ask.ContentType != "text/event-stream" {
		t.Fatalf("question %+v, answer %+v", ask, answer)
	}
	// The question names the call whose stream it came on: reply_to is
	// that call's id.
	var callMsg, askMsg struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(call.Raw, &callMsg)
	json.Unmarshal(ask.Raw, &askMsg)
	if string(ask.ReplyTo) != string(callMsg.ID) {
		t.Errorf("the question's reply_to is %s, want the tools/call's id %s", ask.ReplyTo, callMsg.ID)
	}
	// The exchanges came over more than one connection (the answer cannot
	// share one with the call it answers, still open); conn_id is the
	// session's all the same.
	addrs := map[any]bool{}
	r.remotes.Range(func(_, v any) bool { addrs[v] = true; return true })
	if len(addrs) < 2 {
		t.Errorf("the client used %d connection(s); the test needs several", len(addrs))
	}
	doc := checkReport(t, r.logPath)
	s := doc.Sessions[0]
	if len(s.Elicitations) != 1 {
		t.Fatalf("elicitations %+v", s.Elicitations)
	}
	// The ledger names the call the question interrupted (the tool and
	// its id), and keeps the question's own id.
	e := s.Elicitations[0]
	if e.Method != "tools/call" || e.Name != "book" || e.RootID != string(callMsg.ID) || e.RequestID != string(askMsg.ID) ||
		e.Message != "Which seat in Lisbon?" || e.Action != "accept" || e.Pending || e.ElapsedMs == nil {
		t.Errorf("elicitation %+v", e)
	}
	var text, errs bytes.Buffer
	run([]string{"check", "--verbose", r.logPath}, strings.NewReader(""), &text, &errs)
	if want := "elicitation tools/call book [form] elicitation/create (id " + string(askMsg.ID) + "): accept after "; !strings.Contains(text.String(), want) {
		t.Errorf("check --verbose lacks %q:\n%s%s", want, text.String(), errs.String())
	}
	if s.Counters["pending"] != 0 || s.Counters["warnings"] != 0 {
		t.Errorf("counters %v", s.Counters)
	}
}

// 2026-07-28, stateless: every request carries its routing headers (an
// x-mcp-header argument as Mcp-Param-Region), and the tool asks the user
// through an input_required result the client retries with its answer.
func TestHTTPProxySDKStatelessMRTR(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "travel", Version: "2.0.0"}, nil)
	server.AddTool(&mcp.Tool{
		Name: "book", Description: "Book a trip",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"city":   map[string]any{"type": "string"},
			"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
		}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.RequestState == "" {
			return &mcp.CallToolResult{RequestState: "seat-1", InputRequests: mcp.InputRequestMap{"seat": &mcp.ElicitParams{
				Mode: "form", Message: "Window or aisle?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"seat": map[string]any{"type": "string"}}},
			}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked"}}}, nil
	})
	r := newSDKRig(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "2.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"seat": "window"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, r.transport(true), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book", Arguments: map[string]any{"city": "Oslo", "region": "eu-north"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	cs.Close()
	frames := r.finish(t)
	sameBytes(t, &r.client.log, &r.server.log)

	var calls []capture.Frame
	for _, f := range frames {
		if f.Direction == capture.ClientToServer {
			if f.McpProtocolVersion != "2026-07-28" || f.McpMethod == "" || !strings.Contains(f.Accept, "text/event-stream") || f.ContentType != "application/json" {
				t.Errorf("request without its headers: %+v", f)
			}
			if f.McpMethod == "tools/call" {
				calls = append(calls, f)
			}
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d tools/call requests, want the call and its retry", len(calls))
	}
	for _, c := range calls {
		if c.McpName != "book" || len(c.McpParamHeaders) != 1 || c.McpParamHeaders[0] != (capture.ParamHeader{Name: "Mcp-Param-Region", Value: "eu-north"}) {
			t.Errorf("routing headers %q %+v", c.McpName, c.McpParamHeaders)
		}
	}
	doc := checkReport(t, r.logPath)
	s := doc.Sessions[0]
	if len(s.Elicitations) != 1 || s.Elicitations[0].Key != "seat" || s.Elicitations[0].Action != "accept" || s.Elicitations[0].Pending {
		t.Errorf("elicitations %+v", s.Elicitations)
	}
	if len(s.Interactions) != 1 || s.Interactions[0].RoundTrips != 2 || s.Interactions[0].Outcome != "completed" {
		t.Errorf("interactions %+v", s.Interactions)
	}
	if s.Counters["mismatches"] != 0 || s.Counters["pending"] != 0 || s.Counters["warnings"] != 0 {
		t.Errorf("counters %v", s.Counters)
	}
}

// httpMeta checks that an HTTP proxy's log starts with its meta frame,
// naming a target and nothing else, and returns the target and the frames
// after it.
func httpMeta(t *testing.T, frames []capture.Frame) (capture.HTTPTarget, []capture.Frame) {
	t.Helper()
	var m struct {
		Target *capture.HTTPTarget `json:"target"`
	}
	if len(frames) == 0 || frames[0].Direction != capture.Meta || frames[0].Seq != 1 ||
		json.Unmarshal(frames[0].Raw, &m) != nil || m.Target == nil || strings.Count(string(frames[0].Raw), ":") != 4 {
		t.Fatalf("the log does not start with a meta frame naming the target: %+v", frames[:min(1, len(frames))])
	}
	return *m.Target, frames[1:]
}
