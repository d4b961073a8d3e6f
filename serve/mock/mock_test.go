package mock

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

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
