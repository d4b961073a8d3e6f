package replay

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// retries are the inputResponses and requestState of each MRTR retry the
// replay sent, in order, read back from the replay's own log: what the
// server received.
func retries(t *testing.T, log string) (answers []string, states []string) {
	t.Helper()
	for _, f := range framesOf(t, log) {
		if f.Direction != "c2s" {
			continue
		}
		var m struct {
			Params struct {
				InputResponses json.RawMessage `json:"inputResponses"`
				RequestState   string          `json:"requestState"`
			} `json:"params"`
		}
		if json.Unmarshal(f.Raw, &m) == nil && m.Params.InputResponses != nil {
			answers = append(answers, string(m.Params.InputResponses))
			states = append(states, m.Params.RequestState)
		}
	}
	return answers, states
}

// A 2026-07-28 session whose tool asked the user twice through MRTR
// replays with the recorded answers, round by round, echoing the state
// the live server issued, and verifies the same.
func TestReplayMRTRRecordedBySDK(t *testing.T) {
	t.Log("records an MRTR session with the SDK through the shim, then replays it")
	_, v1, _ := programs(t)
	rec := load(t, record(t, v1, "", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res := call(ctx, t, cs, "book", map[string]any{"text": "JFK"})
		if got := res.Content[0].(*mcp.TextContent).Text; got != "booked JFK seat=accept:window" {
			t.Fatalf("recorded book: %q", got)
		}
	}))
	var book *Request
	for _, r := range rec.Steps {
		if r.Name == "book" {
			book = r
		}
	}
	if book == nil || len(book.Rounds) != 2 || !rec.Modern() {
		t.Fatalf("recording: modern %v, book %+v", rec.Modern(), book)
	}
	res, v := replay(t, rec, nil, Options{})
	if c := verdicts(v)["book"]; c.Outcome != OutcomeSame || c.Regression || len(res.Declined) > 0 {
		t.Fatalf("book: %+v, declined %v", c, res.Declined)
	}
	answers, states := retries(t, res.Log)
	want := []string{`{"confirm":{"action":"accept"}}`, `{"seat":{"action":"accept","content":{"seat":"window"}}}`}
	if strings.Join(answers, "|") != strings.Join(want, "|") || strings.Join(states, ",") != "st-1,st-2" {
		t.Errorf("the server received %v with states %v", answers, states)
	}
	if out := res.Outcomes[len(res.Outcomes)-1]; out.Rounds != 2 {
		t.Errorf("rounds = %d", out.Rounds)
	}
}

// fixtures/mrtr.jsonl, a hand-made 2026-07-28 capture with no handshake,
// no meta frame and no tools/list, replays against a server that asks the
// same questions: --all (nothing says book_flight is safe), a command
// given, per-request _meta added, each question answered from the
// recording.
func TestReplayMRTRFixture(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, "../fixtures/mrtr.jsonl")
	if !rec.Modern() || rec.Revision != Modern {
		t.Fatalf("revision %q", rec.Revision)
	}
	shim, _, _ := programs(t)
	if _, err := Run(withTimeout(t), rec, Target{Shim: shim, Log: t.TempDir() + "/r.jsonl"}, Options{}); err == nil || !strings.Contains(err.Error(), "give the command to run after --") {
		t.Fatalf("without a command: %v", err)
	}
	res, _ := replay(t, rec, []string{v1}, Options{})
	for _, o := range res.Outcomes {
		if o.Sent() || !strings.Contains(o.Skipped, "--all") {
			t.Errorf("without --all: %+v", o)
		}
	}
	res, _ = replay(t, rec, []string{v1}, Options{All: true})
	c, err := NewComparer([]string{"$.result.resultType"}, false, false) // the fixture predates resultType
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(rec, res, VerifyOptions{Comparer: c, Durations: untimed.Durations})
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(v)
	if got["book_flight"].Outcome != OutcomeSame || got["lookup_price"].Outcome != OutcomeSame || v.Regressed() {
		t.Fatalf("verdicts %+v", v.Calls)
	}
	if bf := got["book_flight"]; bf.BeforeMS == nil || *bf.BeforeMS != 38200 || bf.AfterMS == nil {
		t.Errorf("durations: %+v", bf) // the recorded chain took 38.2 s, user time included
	}
	answers, states := retries(t, res.Log)
	if strings.Join(answers, "|") != `{"confirm":{"action":"accept"}}|{"seat":{"action":"accept"}}` || strings.Join(states, ",") != "st-1,st-2" {
		t.Errorf("the server received %v with states %v", answers, states)
	}
	for _, f := range framesOf(t, res.Log) {
		if f.Direction == "c2s" && !strings.Contains(string(f.Raw), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
			t.Errorf("a request without the per-request _meta: %s", f.Raw)
		}
	}
}

// An MRTR question with no recorded answer: an elicitation is declined
// (and reported), so the server's answer differs.
func TestReplayMRTRDeclines(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, record(t, v1, "", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		call(ctx, t, cs, "book", map[string]any{"text": "JFK"})
	}))
	for _, r := range rec.Steps {
		if r.Name == "book" {
			r.Rounds = r.Rounds[:1] // the seat answer was never recorded
		}
	}
	res, v := replay(t, rec, nil, Options{})
	c := verdicts(v)["book"]
	if c.Outcome != OutcomeChanged || len(c.Changes) != 1 || c.Changes[0].After != `"booked JFK seat=decline"` {
		t.Errorf("book: %+v", c)
	}
	if len(res.Declined) != 1 || !strings.Contains(res.Declined[0], `elicitation/create "seat"`) {
		t.Errorf("declined: %v", res.Declined)
	}
}
