package mock

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/serve"
	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpRig is a mock behind serve.Handler on a loopback test server, each
// peer logged in memory.
type httpRig struct {
	url  string
	h    *serve.Handler
	b    *Backend
	mu   sync.Mutex
	logs []*memLog
}

func startHTTP(t *testing.T, e *Engine) *httpRig {
	t.Helper()
	r := &httpRig{}
	r.b = NewBackend(e, func(bool) *capture.LogWriter {
		m, w := newMemLog("everything")
		r.mu.Lock()
		r.logs = append(r.logs, m)
		r.mu.Unlock()
		return w
	})
	r.h = serve.NewHandler(serve.Options{Name: "mcpsnoop mock", Backend: r.b})
	srv := httptest.NewServer(r.h)
	r.url = srv.URL + serve.DefaultPath
	t.Cleanup(srv.Close)
	return r
}

// stop ends every peer and waits for their logs.
func (r *httpRig) stop() []string {
	r.h.Close()
	r.b.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.logs {
		out = append(out, m.String())
	}
	return out
}

// Two Go SDK clients at once over Streamable HTTP: each gets a session of
// its own (an Mcp-Session-Id per initialize), answered from the start of
// the recording (sequential: each session has its own place in it), the
// recorded results byte for byte; each session's log checks clean.
func TestGoClientsOverHTTP(t *testing.T) {
	rec := load(t, everything)
	e := New(rec, Options{Mode: Sequential})
	r := startHTTP(t, e)
	var wg sync.WaitGroup
	sessions := make([]string, 2)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw := &mocktest.Raw{Transport: &mcp.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1}}
			s, err := mcp.NewClient(&mcp.Implementation{Name: "mock-test", Version: "1"}, mocktest.Options()).Connect(context.Background(), raw, nil)
			if err != nil {
				t.Error(err)
				return
			}
			sessions[i] = s.ID()
			if err := mocktest.Run(context.Background(), s); err != nil {
				t.Error(err)
			}
			s.Close()
			sameAsRecorded(t, rec, raw, true)
		}()
	}
	wg.Wait()
	if sessions[0] == "" || sessions[0] == sessions[1] {
		t.Errorf("session ids %q: want two different ones", sessions)
	}
	if u := e.Unmatched(); len(u) > 0 {
		t.Errorf("unmatched: %q", u)
	}
	logs := r.stop()
	withCalls := 0
	for _, l := range logs {
		if !strings.Contains(l, `"method":"tools/call"`) {
			continue // the shared peer of the SDK's server/discover probe
		}
		withCalls++
		if rep := checkLog(t, l); rep.Verdict != checker.Passed {
			for _, f := range rep.Findings {
				t.Logf("finding: %s %s", f.Signal, f.Message)
			}
			t.Errorf("check of a session's log: %s", rep.Verdict)
		}
	}
	if withCalls != 2 {
		t.Errorf("%d session logs with calls, want 2 (of %d logs)", withCalls, len(logs))
	}
}

// A client that goes away while the mock waits for its answer to a server
// request: over HTTP its stream closes, the mock gives up on the answer
// after the answer timeout and the session serves its next request; over
// stdio, the client's input ending ends the wait at once, whatever the
// timeout.
func TestClientDisconnects(t *testing.T) {
	rec := load(t, everything)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"trigger-sampling-request","arguments":{"prompt":"Say hi","maxTokens":16}}}`
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`

	t.Run("http", func(t *testing.T) {
		gaveUp := &waitFor{text: "did not answer sampling/createMessage", seen: make(chan struct{})}
		notes := capture.NewNotices(gaveUp)
		defer notes.Close(capture.NoticeFlush)
		e := New(rec, Options{AnswerTimeout: 50 * time.Millisecond, Notices: notes})
		r := startHTTP(t, e)
		resp := post(t, r.url, "", init)
		sid := resp.Header.Get("Mcp-Session-Id")
		resp.Body.Close()
		if sid == "" {
			t.Fatal("no Mcp-Session-Id on initialize")
		}
		resp = post(t, r.url, sid, call)
		br := bufio.NewReader(resp.Body)
		line, err := br.ReadString('\n')
		for err == nil && !strings.HasPrefix(line, "data:") {
			line, err = br.ReadString('\n')
		}
		if !strings.Contains(line, "sampling/createMessage") {
			t.Fatalf("first event %q, %v: want the recorded sampling request", line, err)
		}
		resp.Body.Close() // gone, without answering
		resp = post(t, r.url, sid, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"name":"echo"`) {
			t.Errorf("tools/list after the disconnect: %s", body)
		}
		select {
		case <-gaveUp.seen:
		case <-time.After(time.Minute): // a hang, not a timing
			t.Fatal("the mock never gave up on the sampling request")
		}
		logs := r.stop()
		if n := e.Unanswered(); n != 1 {
			t.Errorf("%d server requests unanswered, want the sampling request", n)
		}
		if len(logs) != 1 || !strings.Contains(logs[0], "did not answer sampling/createMessage") {
			t.Errorf("the session's log does not note the unanswered request:\n%s", logs)
		}
	})

	t.Run("stdio", func(t *testing.T) {
		e := New(rec, Options{AnswerTimeout: time.Hour})
		r := startStdio(t, e, nil)
		c := newRawClient(t, r)
		c.call(init)
		c.send(call)
		if m := c.next(); !strings.Contains(string(m["method"]), "sampling/createMessage") {
			t.Fatalf("want the sampling request, got %v", m)
		}
		r.clientOut.Close()
		go io.Copy(io.Discard, r.clientIn) // what the mock still writes
		if err := r.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

func post(t *testing.T, url, sid, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// waitFor is a writer that closes seen once text was written to it.
type waitFor struct {
	text string
	seen chan struct{}
	mu   sync.Mutex
	buf  strings.Builder
	once sync.Once
}

func (w *waitFor) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.text) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// Requests that declare 2026-07-28 over HTTP: no session, each request
// answered on its own (the shared conversation), the MRTR chain of the
// recording played with the client's own ids.
func TestModernOverHTTP(t *testing.T) {
	e := New(load(t, fixture("revisions/weather-2026-07-28.jsonl")), Options{})
	r := startHTTP(t, e)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"http","version":"1"}}`
	for _, s := range []struct{ method, name, body, want string }{
		{"server/discover", "", `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{` + meta + `}}`, `"supportedVersions":["2026-07-28"]`},
		{"tools/call", "forecast", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"forecast","arguments":{"q":"Oslo"},` + meta + `}}`, `"id":10,"result":{"resultType":"input_required"`},
		{"tools/call", "forecast", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"forecast","arguments":{"q":"Oslo"},"requestState":"st-9","inputResponses":{"units":{"action":"accept","content":{"units":"C"}}},` + meta + `}}`, `"id":11,"result":{"resultType":"complete","content":[{"type":"text","text":"Oslo: 14°C, light rain"}]}`},
	} {
		req, _ := http.NewRequest(http.MethodPost, r.url, strings.NewReader(s.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", s.method)
		if s.name != "" {
			req.Header.Set("Mcp-Name", s.name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(body), s.want) {
			t.Errorf("%s: %d %q\n%s\nwant %s", s.method, resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body, s.want)
		}
	}
	if r.h.Sessions() != 0 {
		t.Errorf("%d sessions, want none", r.h.Sessions())
	}
	if u := e.Unmatched(); len(u) > 0 {
		t.Errorf("unmatched: %q", u)
	}
	r.stop()
}
