package mock

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/serve/mock/mocktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Go SDK's client, playing the session that was recorded, against a
// stdio mock of the recording: every answer it reads carries the recorded
// result byte for byte (the server's sampling and elicitation
// requests reach it and are answered on the way, the progress
// notifications with its own token), nothing goes unmatched, and the
// mock's own log of the session checks clean.
func TestGoClientOverStdio(t *testing.T) {
	rec := load(t, everything)
	e := New(rec, Options{})
	mem, log := newMemLog("everything")
	r := startStdio(t, e, log)
	var progress []float64
	opts := mocktest.Options()
	opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		if req.Params.ProgressToken == "tok-1" {
			progress = append(progress, req.Params.Progress)
		}
	}
	raw := &mocktest.Raw{Transport: &mcp.IOTransport{Reader: r.clientIn, Writer: r.clientOut}}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "mock-test", Version: "1"}, opts).Connect(context.Background(), raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mocktest.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := r.wait(t); err != nil {
		t.Fatalf("serve: %v", err)
	}
	log.Close()
	sameAsRecorded(t, rec, raw, false)
	if u := e.Unmatched(); len(u) > 0 {
		t.Errorf("unmatched: %q", u)
	}
	if n := e.Unanswered(); n != 0 {
		t.Errorf("%d server requests unanswered; the client answers them all", n)
	}
	if len(progress) != 3 {
		t.Errorf("progress notifications %v, want the 3 recorded", progress)
	}
	text := mem.String()
	for _, want := range []string{`"method":"sampling/createMessage"`, `"method":"elicitation/create"`, `"model":"mcpsnoop-test"`, `"action":"decline"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the mock's log lacks %s", want)
		}
	}
	rep := checkLog(t, text)
	if rep.Verdict != checker.Passed {
		for _, f := range rep.Findings {
			t.Logf("finding: %s %s", f.Signal, f.Message)
		}
		t.Errorf("check of the mock's log: %s", rep.Verdict)
	}
}

// The recorded progress notifications go before the answer with the live
// request's own token, and not at all when it asked for no progress.
func TestProgressCarriesTheClientsToken(t *testing.T) {
	e := New(load(t, everything), Options{})
	r := startStdio(t, e, nil)
	c := newRawClient(t, r)
	c.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	for _, tc := range []struct {
		meta  string
		token string // "" for none
	}{
		{`,"_meta":{"progressToken":77}`, "77"},
		{``, ""},
	} {
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":0.3,"steps":3}` + tc.meta + `}}`)
		var tokens []string
		for {
			m := c.next()
			if string(m["id"]) == "2" {
				break
			}
			var p struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			}
			_ = json.Unmarshal(m["params"], &p)
			tokens = append(tokens, string(p.ProgressToken))
		}
		want := []string{tc.token, tc.token, tc.token}
		if tc.token == "" {
			want = nil
		}
		if !slices.Equal(tokens, want) {
			t.Errorf("token %q: progress before the answer carried %q", tc.token, tokens)
		}
	}
	r.clientOut.Close()
	r.wait(t)
}

// The server's own messages keep their place around the answer: what came
// before it is sent before it, what came after it after it, a server
// request among them sent with the mock's id and its answer awaited.
func TestServerMessagesKeepTheirPlace(t *testing.T) {
	frames := []string{
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sync"}}`,
		`"direction":"s2c","raw":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"before"}}`,
		`"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`"direction":"s2c","raw":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`"direction":"s2c","raw":{"jsonrpc":"2.0","id":0,"method":"roots/list"}`,
		`"direction":"c2s","raw":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`,
	}
	var log strings.Builder
	for i, f := range frames {
		log.WriteString(`{"session_id":"s","seq":` + strconv.Itoa(i+1) + `,"ts":"2026-08-01T00:00:00Z","transport":"stdio",` + f + "}\n")
	}
	path := t.TempDir() + "/places.jsonl"
	if err := writeFile(path, log.String()); err != nil {
		t.Fatal(err)
	}
	rec := load(t, path)
	if x := rec.Exchanges[0]; len(x.Before) != 1 || len(x.After) != 2 || !x.After[1].Request {
		t.Fatalf("before %d, after %d: want 1 and 2 (the last a request)", len(x.Before), len(x.After))
	}
	e := New(rec, Options{AnswerTimeout: time.Hour})
	r := startStdio(t, e, nil)
	c := newRawClient(t, r)
	c.send(`{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"sync"}}`)
	var got []string
	for len(got) < 4 {
		m := c.next()
		switch {
		case m["method"] != nil:
			got = append(got, strings.Trim(string(m["method"]), `"`))
		default:
			got = append(got, "answer "+string(m["id"]))
		}
		if string(m["method"]) == `"roots/list"` {
			if string(m["id"]) != `"mcpsnoop-mock-1"` {
				t.Errorf("the server request's id %s, want the mock's", m["id"])
			}
			c.send(`{"jsonrpc":"2.0","id":"mcpsnoop-mock-1","result":{"roots":[]}}`)
		}
	}
	if want := []string{"notifications/message", `answer "q"`, "notifications/tools/list_changed", "roots/list"}; !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	r.clientOut.Close()
	r.wait(t)
	if n := e.Unanswered(); n != 0 {
		t.Errorf("%d server requests unanswered, want none: the client answered roots/list", n)
	}
}
