package mock

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// An MRTR chain: the first request gets the recorded input_required result
// (its requestState as recorded); each retry matches the recorded retry of
// the same request whatever requestState it echoes, _meta ignored; a retry
// whose inputResponses were never recorded is a miss.
func TestMRTRChain(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"other","version":"9"}}`
	for _, tc := range []struct {
		name, log string
		steps     []struct{ send, want string }
	}{
		{"weather 2026-07-28", fixture("revisions/weather-2026-07-28.jsonl"), []struct{ send, want string }{
			{`{"jsonrpc":"2.0","id":"a","method":"server/discover","params":{` + meta + `}}`, `"serverInfo":{"name":"weather","version":"3.0.0"}`},
			{`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"forecast","arguments":{"q":"Oslo"},` + meta + `}}`, `"requestState":"st-9"`},
			{`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"forecast","arguments":{"q":"Oslo"},"requestState":"not-the-recorded-one","inputResponses":{"units":{"action":"accept","content":{"units":"C"}}},` + meta + `}}`, `Oslo: 14°C, light rain`},
			{`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"forecast","arguments":{"q":"Oslo"},"requestState":"st-9","inputResponses":{"units":{"action":"decline"}}}}`, `-32602`},
		}},
		{"two rounds", fixture("mrtr.jsonl"), []struct{ send, want string }{
			{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book_flight","arguments":{"to":"JFK"}}}`, `"requestState":"st-1"`},
			{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book_flight","arguments":{"to":"JFK"},"requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}}}}`, `"requestState":"st-2"`},
			{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book_flight","arguments":{"to":"JFK"},"requestState":"xyz","inputResponses":{"seat":{"action":"accept"}}}}`, `"text":"booked"`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := load(t, tc.log)
			e := New(rec, Options{})
			r := startStdio(t, e, nil)
			c := newRawClient(t, r)
			for _, s := range tc.steps {
				a := c.call(s.send)
				b, _ := json.Marshal(a)
				if !strings.Contains(string(b), s.want) {
					t.Errorf("%s\ngot %s\nwant %s", s.send, b, s.want)
				}
				if id := gjson.Get(s.send, "id").Raw; string(a["id"]) != id {
					t.Errorf("answer id %s, want the client's %s", a["id"], id)
				}
			}
			r.clientOut.Close()
			r.wait(t)
		})
	}
}

// A retry that echoes the requestState the mock sent goes on with the
// round that state came from, even when another recorded round of the same
// request has the same inputResponses.
func TestMRTRRetryFollowsIssuedState(t *testing.T) {
	log := strings.Join([]string{
		`{"session_id":"s","seq":1,"ts":"2026-08-01T00:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"n":1}}}}`,
		`{"session_id":"s","seq":2,"ts":"2026-08-01T00:00:01Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"A","inputRequests":{"ok":{"method":"elicitation/create","params":{"message":"?"}}}}}}`,
		`{"session_id":"s","seq":3,"ts":"2026-08-01T00:00:02Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"n":1},"requestState":"A","inputResponses":{"ok":{"action":"accept"}}}}}`,
		`{"session_id":"s","seq":4,"ts":"2026-08-01T00:00:03Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"B","inputRequests":{"ok":{"method":"elicitation/create","params":{"message":"sure?"}}}}}}`,
		`{"session_id":"s","seq":5,"ts":"2026-08-01T00:00:04Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"n":1},"requestState":"B","inputResponses":{"ok":{"action":"accept"}}}}}`,
		`{"session_id":"s","seq":6,"ts":"2026-08-01T00:00:05Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}}`,
	}, "\n") + "\n"
	path := t.TempDir() + "/chain.jsonl"
	if err := writeFile(path, log); err != nil {
		t.Fatal(err)
	}
	rec := load(t, path)
	m := newMatcher(rec, MethodParams)
	first, miss := m.match("tools/call", json.RawMessage(`{"name":"t","arguments":{"n":1}}`))
	if miss != nil || first.issued != "A" {
		t.Fatalf("first: %+v %+v", first, miss)
	}
	retry := json.RawMessage(`{"name":"t","arguments":{"n":1},"requestState":"A","inputResponses":{"ok":{"action":"accept"}}}`)
	x, _ := m.match("tools/call", retry)
	if x == nil || x.issued != "B" {
		t.Fatalf("the first retry matched %v, want the one answered B", x)
	}
	// The client starts over: its retry echoing A is the first round
	// again, not the recorded retry not answered yet.
	if _, miss := m.match("tools/call", json.RawMessage(`{"name":"t","arguments":{"n":1}}`)); miss != nil {
		t.Fatal(miss.Message)
	}
	x, _ = m.match("tools/call", retry)
	if x == nil || x.issued != "B" {
		t.Fatalf("the retry after starting over matched %v, want the one answered B", x)
	}
	x, _ = m.match("tools/call", json.RawMessage(strings.Replace(string(retry), `"A"`, `"B"`, 1)))
	if x == nil || !strings.Contains(string(x.Answer), "done") {
		t.Fatalf("the last retry matched %v, want the final answer", x)
	}
}
