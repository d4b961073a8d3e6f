package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Where a server's message tied to no request goes (serve's line.go,
// loneTarget): to the one request in flight on an event stream when there
// is exactly one; else, on a session, to its GET stream when one is open,
// else to the newest request on an event stream; on the shared 2026-07-28
// line, nowhere (dropped and counted) unless exactly one. A server request
// with nowhere to go is answered for the client: -32603 on a session,
// -32601 always on the 2026-07-28 line (which forbids them on its
// streams). The scripted server (testdata/server -script) holds the calls
// until all are in flight, sends the lone message, answers them, and then
// sends a mark that, with nothing in flight, goes to the GET stream: what
// the GET stream carried before the mark is everything routed to it.
func TestLoneMessageRouting(t *testing.T) {
	const nowhere = "nowhere"
	for _, tc := range []struct {
		name   string
		modern bool
		get    bool     // a GET stream is open
		calls  []string // each call's answer, "sse" or "json", in the order they reach the server
		want   string   // where the lone message goes: "call N", "get" or nowhere
	}{
		{"session: one on an event stream, GET open", false, true, []string{"sse"}, "call 0"},
		{"session: one on an event stream, no GET", false, false, []string{"sse"}, "call 0"},
		{"session: one on an event stream beside one as JSON, GET open", false, true, []string{"json", "sse"}, "call 1"},
		{"session: two on event streams, GET open", false, true, []string{"sse", "sse"}, "get"},
		{"session: two on event streams, no GET", false, false, []string{"sse", "sse"}, "call 1"},
		{"session: one as JSON, GET open", false, true, []string{"json"}, "get"},
		{"session: one as JSON, no GET", false, false, []string{"json"}, nowhere},
		{"2026-07-28: one on an event stream", true, false, []string{"sse"}, "call 0"},
		{"2026-07-28: two on event streams", true, false, []string{"sse", "sse"}, nowhere},
		{"2026-07-28: one as JSON", true, false, []string{"json"}, nowhere},
	} {
		for _, kind := range []string{"notification", "request"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				want, code := tc.want, 0
				switch {
				case kind == "request" && tc.modern:
					want, code = nowhere, -32601
				case kind == "request" && want == nowhere:
					code = -32603
				}
				got, dropped, r := runLone(t, tc.modern, tc.get, tc.calls, kind)
				where := nowhere
				if len(got) > 0 {
					where = strings.Join(got, " and ")
				}
				if where != want {
					t.Errorf("the lone %s arrived on %s, want %s", kind, where, want)
				}
				wantDropped := int64(0)
				if kind == "notification" && want == nowhere {
					wantDropped = 1
				}
				if dropped != wantDropped {
					t.Errorf("Dropped() = %d, want %d", dropped, wantDropped)
				}
				if code != 0 && where == want { // else the request waits on a client
					r.notes.waitFor(t, "script: lone-item answered")
					why := "no event stream was open to carry it"
					if tc.modern {
						why = "2026-07-28 forbids"
					}
					// The server's own line says what it got back.
					notes := r.notes.String()
					_, answered, _ := strings.Cut(notes, "script: lone-item answered ")
					answered, _, _ = strings.Cut(answered, "\n")
					if !strings.HasPrefix(answered, fmt.Sprint(code)+" ") || !strings.Contains(answered, why) {
						t.Errorf("the server's request was answered %q, want %d saying %q", answered, code, why)
					}
				}
			})
		}
	}
}

// runLone runs one case: it opens the GET stream when asked, sends the
// calls one after another (each once the server has the one before), reads
// every stream, and returns the streams the lone item arrived on and
// Handler.Dropped once every call is answered.
func runLone(t *testing.T, modern, get bool, calls []string, kind string) ([]string, int64, *rig) {
	t.Helper()
	r := newRig(t, "-script")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hdr := map[string]string{}
	if !modern {
		hdr = openSession(t, ctx, r.url)
	}
	var getEvents <-chan string
	if get {
		getEvents = openGet(t, ctx, r.url, hdr)
	}
	type answer struct {
		i      int
		events []string
	}
	answers := make(chan answer, len(calls))
	for i, accept := range calls {
		label := fmt.Sprintf("c%d", i)
		body, h := holdCall(modern, 10+i, label, len(calls), kind, get)
		for k, v := range hdr {
			h[k] = v
		}
		if accept == "json" {
			h["Accept"] = "application/json"
		}
		go func() {
			events, err := postRead(ctx, r.url, body, h)
			if err != nil {
				events = []string{err.Error()}
			}
			answers <- answer{i, events}
		}()
		r.notes.waitFor(t, "script: holding "+label) // in flight: the server has it
	}
	var got []string
	for range calls {
		a := <-answers
		if n := len(a.events); n == 0 || !strings.Contains(a.events[n-1], fmt.Sprintf(`"text":"c%d"`, a.i)) {
			t.Errorf("call %d was answered %q", a.i, a.events)
		}
		for range holds(a.events) {
			got = append(got, fmt.Sprintf("call %d", a.i))
		}
	}
	if get {
		for range holds(untilMark(t, getEvents)) {
			got = append(got, "get")
		}
	}
	return got, r.h.Dropped(), r
}

// openSession initializes a 2025-11-25 session and returns the headers of
// its requests.
func openSession(t *testing.T, ctx context.Context, url string) map[string]string {
	t.Helper()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	resp := post(t, ctx, url, init, map[string]string{"Accept": "application/json"})
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": legacy}
	resp = post(t, ctx, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	return hdr
}

// openGet opens the session's GET stream; it is open (the handler routes
// to it) once the response's header has come, which is when this returns.
func openGet(t *testing.T, ctx context.Context, url string, hdr map[string]string) <-chan string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	events := make(chan string)
	go func() {
		defer resp.Body.Close()
		defer close(events)
		eachMessage(resp, func(e string) bool {
			select {
			case events <- e:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	return events
}

// postRead sends one message as post does, from a goroutine of its own,
// and reads its answer to the end.
func postRead(ctx context.Context, url, body string, headers map[string]string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readMessages(resp), nil
}

// holdCall is a tools/call of the script's tool "hold".
func holdCall(modern bool, id int, label string, n int, kind string, mark bool) (string, map[string]string) {
	params := map[string]any{"name": "hold", "arguments": map[string]any{"text": label, "n": n, "emit": kind, "mark": mark}}
	hdr := map[string]string{}
	if modern {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo": map[string]any{"name": "raw", "version": "1"}}
		hdr = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "hold"}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	return string(body), hdr
}

// readMessages reads a response to its end: each event's data of an event
// stream (the handler writes one data line per message), or the JSON body.
func readMessages(resp *http.Response) []string {
	var out []string
	eachMessage(resp, func(m string) bool { out = append(out, m); return true })
	return out
}

// eachMessage hands each message of a response to fn as it comes, until
// the response ends or fn returns false.
func eachMessage(resp *http.Response, fn func(string) bool) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		fn(string(b))
		return
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && !fn(data) {
			return
		}
	}
}

// untilMark reads the GET stream's messages up to the script's mark. The
// bound only turns a hang into a failure; nothing is timed.
func untilMark(t *testing.T, events <-chan string) []string {
	t.Helper()
	guard := time.NewTimer(2 * time.Minute)
	defer guard.Stop()
	var out []string
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("the GET stream ended before the mark: %q", out)
			}
			if strings.Contains(e, `"data":"mark"`) {
				return out
			}
			out = append(out, e)
		case <-guard.C:
			t.Fatalf("no mark on the GET stream; it carried %q", out)
		}
	}
}

// holds counts the script's lone message among msgs.
func holds(msgs []string) int {
	n := 0
	for _, m := range msgs {
		if strings.Contains(m, `"lone-item"`) {
			n++
		}
	}
	return n
}
