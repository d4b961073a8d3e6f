package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const legacy = "2025-11-25"

// Two 2025-11-25 sessions at once: a server process and a log each, every
// answer to its own client, a progress notification and an elicitation on
// the request's stream, DELETE on Close; the logs check clean and form one
// run.
func TestTwoConcurrentSessions(t *testing.T) {
	r := newRig(t)
	var progress []string
	var mu sync.Mutex
	opts := &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
		},
	}
	sessions := []*mcp.ClientSession{connect(t, r.url, legacy, opts), connect(t, r.url, legacy, opts)}
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				want := strings.Repeat("x", i+1) + string(rune('a'+j))
				if got := callText(t, s, "echo", map[string]any{"text": want}); got != want {
					t.Errorf("session %d: echo %q answered %q", i, want, got)
				}
			}
			p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"text": "p"}}
			p.SetProgressToken("tok")
			if _, err := s.CallTool(context.Background(), p); err != nil {
				t.Errorf("progress: %v", err)
			}
			if got := callText(t, s, "ask", map[string]any{"text": ""}); got != "accept Ada" {
				t.Errorf("session %d: ask answered %q", i, got)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	if !slices.Equal(progress, []string{"half", "half"}) {
		t.Errorf("progress notifications: %q, want one per session", progress)
	}
	mu.Unlock()
	if n := r.h.Sessions(); n != 2 {
		t.Errorf("%d sessions open, want 2", n)
	}
	for _, s := range sessions {
		s.Close() // DELETE
	}
	r.notes.waitFor(t, "the client ended the session (DELETE)")
	r.stop()

	logs := r.serverLogs(t)
	if len(logs) != 2 {
		t.Fatalf("%d server logs, want one per session", len(logs))
	}
	var runs []string
	for i, frames := range logs {
		if frames[0].Direction != capture.Meta || frames[1].Transport != capture.TransportStdio {
			t.Errorf("log %d does not start as the shim's: %+v", i, frames[:2])
		}
		s2c := strings.Join(raws(frames, capture.ServerToClient), "\n")
		if !strings.Contains(s2c, `"method":"elicitation/create"`) || !strings.Contains(s2c, `"method":"notifications/progress"`) {
			t.Errorf("log %d lacks the elicitation or the progress:\n%s", i, s2c)
		}
		rep := check(t, frames)
		if rep.Verdict != checker.Passed {
			t.Errorf("log %d: verdict %s, findings %+v", i, rep.Verdict, rep.Findings)
		}
		runs = append(runs, rep.Sessions[0].RunIDs...)
	}
	if len(runs) != 2 || runs[0] != runs[1] || runs[0] == "" {
		t.Errorf("run ids %q: want both sessions in one run", runs)
	}
}

// 2026-07-28 clients share one server process; their ids (and progress
// tokens) are the same on each client, and must not meet at the server.
func TestModernClientsShareOneProcess(t *testing.T) {
	r := newRig(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[int][]string{}
	for i := range 3 {
		var progress []string
		s := connect(t, r.url, "", &mcp.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			// The client's own token comes back, not the one the server saw.
			progress = append(progress, fmt.Sprint(req.Params.Message, " ", req.Params.ProgressToken))
			got[i] = progress
			mu.Unlock()
		}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.Close()
			for j := range 4 {
				want := strings.Repeat("m", i+1) + string(rune('a'+j))
				if ans := callText(t, s, "echo", map[string]any{"text": want}); ans != want {
					t.Errorf("client %d: echo %q answered %q", i, want, ans)
				}
			}
			p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"text": "p"}}
			p.SetProgressToken(1)
			if _, err := s.CallTool(context.Background(), p); err != nil {
				t.Errorf("client %d: progress: %v", i, err)
			}
		}()
	}
	wg.Wait()
	for i := range 3 {
		if !slices.Equal(got[i], []string{"half 1"}) {
			t.Errorf("client %d got progress %q, want its own one", i, got[i])
		}
	}
	r.stop()
	logs := r.serverLogs(t)
	if len(logs) != 1 {
		t.Fatalf("%d server logs, want the one shared process", len(logs))
	}
	seen := map[string]bool{}
	for _, raw := range raws(logs[0], capture.ClientToServer) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(raw), &m)
		if m.ID == nil {
			continue
		}
		if seen[string(m.ID)] {
			t.Errorf("id %s reached the server twice: ids were not remapped", m.ID)
		}
		seen[string(m.ID)] = true
	}
	if len(seen) < 3*6 {
		t.Errorf("the server saw %d requests, want at least 18", len(seen))
	}
	if rep := check(t, logs[0]); rep.Verdict != checker.Passed {
		t.Errorf("verdict %s: %+v", rep.Verdict, rep.Findings)
	}
}

// modernCall is a 2026-07-28 tools/call as a client sends it, with the
// headers the revision asks for.
func modernCall(id int, tool, text string) (string, map[string]string) {
	body := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"` + text +
		`"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`
	return body, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A 2026-07-28 client that closes its stream cancels the request: the
// server is sent notifications/cancelled (logged as the bridge's own).
func TestModernDisconnectCancels(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	body, hdr := modernCall(7, "wait", "w1")
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	r.notes.waitFor(t, "wait: started w1")
	cancel()
	<-done
	r.notes.waitFor(t, "wait: cancelled w1")
	r.stop()
	logs := r.serverLogs(t)
	if len(logs) != 1 {
		t.Fatalf("%d server logs, want 1", len(logs))
	}
	var cancelFrame *capture.Frame
	for i, f := range logs[0] {
		if f.Direction == capture.ClientToServer && strings.Contains(string(f.Raw), `"notifications/cancelled"`) {
			cancelFrame = &logs[0][i]
		}
	}
	if cancelFrame == nil || !cancelFrame.ByProxy || !strings.Contains(string(cancelFrame.Raw), `"requestId":1`) {
		t.Fatalf("no cancellation of the server's id 1, by the bridge: %+v", cancelFrame)
	}
}

// A 2025-11-25 client that disconnects does not cancel (the revision says
// a disconnect is none): the request goes on, and its answer, when it
// comes, has nowhere to go and is dropped and counted.
func TestLegacyDisconnectDoesNotCancel(t *testing.T) {
	r := newRig(t)
	s := connect(t, r.url, legacy, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "before"}})
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"text": "w2"}})
		done <- err
	}()
	r.notes.waitFor(t, "wait: started w2")
	cancel()
	<-done
	r.stop()
	for _, raw := range raws(r.serverLogs(t)[0], capture.ClientToServer) {
		if strings.Contains(raw, "notifications/cancelled") && strings.Contains(raw, "mcpsnoop bridge") {
			t.Errorf("the bridge cancelled a 2025-11-25 request on a disconnect: %s", raw)
		}
	}
}

// A server that dies under the bridge: the call gets an error naming the
// exit, the session is gone (404), and the log shows the call pending,
// the server's fault.
func TestServerDies(t *testing.T) {
	r := newRig(t)
	s := connect(t, r.url, legacy, nil)
	_, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{"text": ""}})
	if err == nil || !strings.Contains(err.Error(), "exited before answering (exit status 3)") {
		t.Fatalf("crash: %v, want the bridge's error naming the exit", err)
	}
	r.notes.waitFor(t, "the server exited (exit status 3)")
	if _, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err == nil {
		t.Error("a call on the dead session was answered")
	}
	// A new session gets a new process.
	s2 := connect(t, r.url, legacy, nil)
	if got := callText(t, s2, "echo", map[string]any{"text": "again"}); got != "again" {
		t.Errorf("echo on a new session: %q", got)
	}
	s2.Close()
	r.stop()
	logs := r.serverLogs(t)
	if len(logs) != 2 {
		t.Fatalf("%d server logs, want 2", len(logs))
	}
	var dead []capture.Frame
	for _, l := range logs {
		for _, f := range l {
			if f.Direction == capture.Stderr && f.Text == "crash: exiting" {
				dead = l
			}
		}
	}
	if dead == nil {
		t.Fatal("no log holds the dying server's stderr")
	}
	rep := check(t, dead)
	pending := false
	for _, f := range rep.Findings {
		if f.Signal == checker.SignalPending && f.Party == checker.PartyServer && strings.Contains(f.Message, "crash") {
			pending = true
		}
		if f.Party == checker.PartyClient || f.Party == checker.PartyTransport {
			t.Errorf("finding blames %s: %s", f.Party, f.Message)
		}
	}
	if !pending {
		t.Errorf("the crashed call is not pending on the server: %+v", rep.Findings)
	}
}

// DELETE ends the session and its process; the session id is then
// unknown (404).
func TestDelete(t *testing.T) {
	r := newRig(t)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	resp := post(t, context.Background(), r.url, init, map[string]string{"Accept": "application/json"})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(string(body), `"serverInfo"`) {
		t.Fatalf("initialize: %d, session %q, %s", resp.StatusCode, sid, body)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": legacy}
	resp = post(t, context.Background(), r.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodDelete, r.url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %d", dresp.StatusCode)
	}
	r.notes.waitFor(t, "the server exited")
	resp = post(t, context.Background(), r.url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, hdr)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request on the deleted session: %d, want 404", resp.StatusCode)
	}
	r.stop()
	logs := r.serverLogs(t)
	if len(logs) != 1 {
		t.Fatalf("%d server logs", len(logs))
	}
	last := logs[0][len(logs[0])-1]
	found := false
	for _, f := range logs[0] {
		if f.Direction == capture.Stderr && strings.Contains(f.Text, "DELETE") {
			found = true
		}
	}
	if !found {
		t.Errorf("the log does not say the session was deleted; it ends %+v", last)
	}
}

// A server request under 2026-07-28 (forbidden on its HTTP streams) is
// answered -32601 by the bridge, which logs the answer as its own and a
// note saying why.
func TestModernServerRequestAnswered(t *testing.T) {
	r := newRig(t, "-raw")
	body, hdr := modernCall(3, "anything", "x")
	resp := post(t, context.Background(), r.url, body, hdr)
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(out), "answered -32601") || !strings.Contains(string(out), `"id":3`) {
		t.Fatalf("the tool's answer: %s", out)
	}
	r.stop()
	frames := r.serverLogs(t)[0]
	var own, note bool
	for _, f := range frames {
		if f.Direction == capture.ClientToServer && f.ByProxy && strings.Contains(string(f.Raw), `-32601`) {
			own = true
		}
		if f.Direction == capture.Stderr && strings.Contains(f.Text, "2026-07-28 forbids") {
			note = true
		}
	}
	if !own || !note {
		t.Errorf("the answer (by_proxy %v) or the note (%v) is missing from the log", own, note)
	}
}

// A refused Origin never reaches a server; the refusal goes to the
// bridge's own log, which check reads as a transport note.
func TestRefusedOriginIsTheTransports(t *testing.T) {
	r := newRig(t)
	body, hdr := modernCall(5, "echo", "x")
	hdr["Origin"] = "http://evil.example"
	resp := post(t, context.Background(), r.url, body, hdr)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	r.stop()
	if n := len(r.serverLogs(t)); n != 0 {
		t.Errorf("%d servers were started for a refused request", n)
	}
	var own []capture.Frame
	for name, frames := range r.logs(t) {
		if strings.HasPrefix(name, "bridgetest-bridge-") {
			own = frames
		}
	}
	if len(own) != 3 || !own[2].ByProxy || own[2].Status != 403 || string(own[2].ReplyTo) != "5" {
		t.Fatalf("the bridge's log: %+v", own)
	}
	rep := check(t, own)
	if rep.Verdict != checker.Passed || len(rep.Findings) != 1 || rep.Findings[0].Party != checker.PartyTransport {
		t.Errorf("verdict %s, findings %+v: want one transport note", rep.Verdict, rep.Findings)
	}
}

// 2026-07-28's header checks, which a stdio server cannot make: a
// mismatch is refused before it reaches a server.
func TestModernHeaderMismatchRefused(t *testing.T) {
	r := newRig(t)
	body, hdr := modernCall(9, "echo", "x")
	hdr["Mcp-Method"] = "tools/list"
	resp := post(t, context.Background(), r.url, body, hdr)
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(out), "-32020") || !strings.Contains(string(out), `"id":9`) {
		t.Errorf("%d %s: want 400 with -32020 for id 9", resp.StatusCode, out)
	}
	r.stop()
	if n := len(r.serverLogs(t)); n != 0 {
		t.Errorf("%d servers were started", n)
	}
}
