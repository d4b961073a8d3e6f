//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/cmd/internal/capturecli"
	"github.com/mcpsnoop/mcpsnoop/viewer"
)

// TestReplayKeyInTmux drives the viewer's r and R in a terminal: open a
// recorded stdio session, r on a call asks before the first send, runs a
// fresh copy of the recorded server through the shim and shows the new
// answer beside the recorded one; R edits the params in $EDITOR first
// (no second question); both replays land in the session's replay log,
// the recorded answers stay where they are (the page names their line).
func TestReplayKeyInTmux(t *testing.T) {
	t.Parallel()
	t.Log("the viewer's replay key in a tmux terminal, against the test server")
	bin := mcpsnoopBinary(t)
	home := t.TempDir()
	rec := recordSession(t, t.TempDir())
	editor := filepath.Join(t.TempDir(), "edit.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/\"a\": 2/\"a\": 10/' \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	tt := startTmux(t, "MCPSNOOP_HOME="+shellQuote(home)+" EDITOR="+shellQuote(editor)+" "+shellQuote(bin)+" open "+shellQuote(rec))
	tt.waitFor("filter: none", "tools/call")

	tt.keys("/")
	tt.typeText("tool:add dir:c2s")
	tt.keys("Enter")
	tt.waitFor("filter: tool:add dir:c2s · 1 of")
	tt.keys("r")
	tt.waitFor("replay tools/call add (line ", "? y/n")
	tt.keys("y")
	s := tt.waitFor("RECORDED", "│ REPLAYED", "same as recorded", "recorded answer: ", "recording.jsonl, line ", "replay log: ")
	if strings.Count(s, `"text": "2+3=5"`) != 2 {
		t.Fatalf("the answers are not side by side:\n%s", s)
	}
	if strings.Contains(s, "? y/n") { // answered: the question leaves the footer
		t.Fatalf("the question stayed on the screen after y:\n%s", s)
	}

	tt.keys("Escape")
	tt.waitFor("filter: tool:add dir:c2s · 1 of")
	tt.keys("R")
	s = tt.waitFor("replay · tools/call add (line ", ", edited", "│ REPLAYED", `"text": "10+3=13"`)
	if strings.Contains(s, "? y/n") || !strings.Contains(s, `"text": "2+3=5"`) {
		t.Fatalf("edited replay:\n%s", s)
	}
	tt.keys("q")
	tt.waitFor("viewer exited 0")

	logs, _ := filepath.Glob(filepath.Join(home, "replays", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("replay logs %v", logs)
	}
	data, _ := os.ReadFile(logs[0])
	if n := strings.Count(string(data), `"direction":"meta"`); n != 2 || !strings.Contains(string(data), `"a":10`) || !strings.Contains(string(data), `10+3=13`) {
		t.Errorf("replay log holds %d sessions:\n%s", n, data)
	}
	recorded, _ := os.ReadFile(rec)
	var sid struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(recorded[:bytes.IndexByte(recorded, '\n')], &sid)
	if sid.SessionID == "" || strings.Contains(string(data), sid.SessionID+`","server_label"`) {
		t.Errorf("the replay log holds frames of the recorded session %q", sid.SessionID)
	}
}

// The viewer's replays refuse what they cannot do before asking anything:
// an HTTP session without --replay-target, a call not marked safe without
// --all.
func TestViewerReplayerRefuses(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	httpLog := filepath.Join(dir, "http.jsonl")
	if err := os.WriteFile(httpLog, []byte(`{"session_id":"h","server_label":"h","seq":1,"ts":"2026-01-01T00:00:00Z","direction":"c2s","transport":"http","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fn := viewerReplayer(replayFlags{timeout: 1}, nil, nil, capturecli.RedactFlags{})
	if _, err := fn(viewer.ReplayRequest{SessionID: "h", Path: httpLog, Seq: 1, Line: 1}); err == nil || !strings.Contains(err.Error(), "--replay-target URL") {
		t.Errorf("HTTP session: %v", err)
	}
	fixture, _ := filepath.Abs("../../fixtures/store-example.jsonl")
	if _, err := fn(viewer.ReplayRequest{SessionID: "store-example", Path: fixture, Seq: 20, Line: 20}); err == nil || !strings.Contains(err.Error(), "--all replays it") {
		t.Errorf("unannotated tool: %v", err)
	}
	if _, err := fn(viewer.ReplayRequest{SessionID: "store-example", Path: fixture, Seq: 3, Line: 3}); err == nil || !strings.Contains(err.Error(), "not a request") {
		t.Errorf("an answer with no request: %v", err)
	}
}
