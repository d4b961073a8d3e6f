package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/replay"
)

// The viewer's page for a replayed call says what came of it: the new
// answer and how long it took, or no answer and why (a timeout, a server
// that exited), never an answer time for a call that got none.
func TestReplayResultNotes(t *testing.T) {
	rec := &replay.Recording{Source: "rec.jsonl"}
	r := &replay.Request{Method: "tools/call", Name: "add", Line: 8,
		Answer: &replay.Answer{Line: 9, Message: json.RawMessage(`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"3"}]}}`)}}
	for _, tt := range []struct {
		name    string
		out     *replay.Outcome
		stopped string
		want    []string
		not     string
	}{
		{"answered", &replay.Outcome{Request: r, Elapsed: 2 * time.Millisecond, Answer: json.RawMessage(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"4"}]}}`)}, "",
			[]string{"answered in 2ms", "differs from the recording in 1 place(s):", `  $.result.content[0].text: "3" -> "4"`}, "no answer"},
		{"timed out", &replay.Outcome{Request: r, TimedOut: true, Elapsed: time.Second}, "",
			[]string{"no answer within the call timeout; the call was cancelled"}, "answered in"},
		{"server gone", &replay.Outcome{Request: r, Elapsed: time.Millisecond, Failure: "the server closed its stdout (it exited or crashed)"}, "the server closed its stdout (it exited or crashed)",
			[]string{"no answer: the server closed its stdout (it exited or crashed)", "the replay stopped: the server closed its stdout"}, "answered in"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &replay.Result{Log: "/state/replays/x.jsonl", Outcomes: []*replay.Outcome{tt.out}, Stopped: tt.stopped}
			got := replayResult(rec, r, res, false)
			notes := strings.Join(got.Notes, "\n")
			for _, w := range tt.want {
				if !strings.Contains(notes, w) {
					t.Errorf("notes lack %q:\n%s", w, notes)
				}
			}
			if strings.Contains(notes, tt.not) || got.RecordedAt != "rec.jsonl, line 9" || got.Log != "/state/replays/x.jsonl" {
				t.Errorf("notes:\n%s\nrecorded at %q, log %q", notes, got.RecordedAt, got.Log)
			}
		})
	}
}
