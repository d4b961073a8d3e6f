package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The seed's fixture: one book_flight chain of 3 round trips (1.2s server,
// 37s user) and one plain lookup_price call.
func TestInteractionAssertionsOnFixture(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	fixture := filepath.Join("..", "..", "fixtures", "mrtr.jsonl")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--max-round-trips", "2"}, 1, `assertion failed: 1 tool call took more than 2 round trips (worst: tool "book_flight" took 3)`},
		{[]string{"--max-round-trips", "3"}, 0, "check passed"},
		{[]string{"--max-server-duration", "1s"}, 1, `assertion failed: 1 tool call exceeded the 1s server-time budget (worst: tool "book_flight" spent 1.2s in the server)`},
		{[]string{"--max-server-duration", "2s"}, 0, "check passed"},
		{[]string{"--max-duration", "5s"}, 1, `assertion failed: 1 tool call exceeded the 5s budget (worst: tool "book_flight" took 38.2s)`},
		{nil, 0, "check passed"},
		{[]string{"--verbose"}, 0, "interaction tools/call book_flight (id 1): 3 round trips, 38.2s wall clock = 1.2s server + 37s client, completed\n" +
			"  hop 1 (id 1): server 400ms, asked elicitation/create\n" +
			"  hop 2 (id 2): client 12s, server 300ms, asked elicitation/create\n" +
			"  hop 3 (id 3): client 25s, server 500ms\n"},
		{[]string{"--max-round-trips", "-1"}, 2, ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(append(append([]string{"check"}, tt.args...), fixture), strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("%v: exit %d (want %d)\n%s%s\nwant: %s", tt.args, code, tt.code, stdout.String(), stderr.String(), tt.want)
		}
	}
	// The assertion also reaches SARIF and JUnit.
	for format, want := range map[string]string{"sarif": `"ruleId": "mcpsnoop/assertion"`, "junit": `type="mcpsnoop.check.assertion"`} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"check", "--format", format, "--max-round-trips", "2", fixture}, strings.NewReader(""), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "book_flight") {
			t.Errorf("%s: exit %d\n%s", format, code, stdout.String())
		}
	}
}

type bookArgs struct {
	To string `json:"to"`
}

// A real 2026-07-28 multi-round-trip session: the go-sdk server asks the
// user twice, the go-sdk client answers each question after a delay. The
// check report splits the wall clock into the server's share and the user's.
func TestInteractionWithRealSDK(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	const think = 150 * time.Millisecond
	server := mcp.NewServer(&mcp.Implementation{Name: "booking", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "book_flight", Description: "Book a flight"},
		func(ctx context.Context, req *mcp.CallToolRequest, args bookArgs) (*mcp.CallToolResult, any, error) {
			// The state the server issued says how far the booking got.
			switch req.Params.RequestState {
			case "":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Confirm $840?"}}, RequestState: "st-1"}, nil, nil
			case "st-1":
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"seat": &mcp.ElicitParams{Message: "Window or aisle?"}}, RequestState: "st-2"}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked " + args.To}}}, nil, nil
		})
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			time.Sleep(think) // the user reads and answers
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	dir := t.TempDir()
	log := filepath.Join(dir, "mrtr.jsonl")
	captureSession(t, log, "booking-1-dddddddddddd", "booking", server, client, func(ctx context.Context, cs *mcp.ClientSession) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book_flight", Arguments: map[string]any{"to": "JFK"}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
	})

	report := filepath.Join(dir, "check.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", "--json", report, log}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		data, _ := os.ReadFile(log)
		t.Fatalf("exit %d:\n%s%s\nlog:\n%s", code, stdout.String(), stderr.String(), data)
	}
	var doc struct {
		Sessions []struct {
			Interactions []struct {
				Name               string  `json:"name"`
				RoundTrips         int     `json:"round_trips"`
				Outcome            string  `json:"outcome"`
				DurationMs         float64 `json:"duration_ms"`
				ServerTimeMs       float64 `json:"server_time_ms"`
				ClientTurnaroundMs float64 `json:"client_turnaround_ms"`
				Hops               []struct {
					Asked []string `json:"asked"`
				} `json:"hops"`
			} `json:"interactions"`
		} `json:"sessions"`
	}
	data, _ := os.ReadFile(report)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	its := doc.Sessions[0].Interactions
	if len(its) != 1 {
		t.Fatalf("interactions = %+v", its)
	}
	it := its[0]
	if it.Name != "book_flight" || it.RoundTrips != 3 || it.Outcome != "completed" || len(it.Hops) != 3 {
		t.Fatalf("interaction = %+v", it)
	}
	if it.Hops[0].Asked[0] != "elicitation/create" || len(it.Hops[2].Asked) != 0 {
		t.Errorf("asked = %+v", it.Hops)
	}
	// The user's two answers took at least 2*think; the server's share is
	// the rest, and the two add up to the wall clock.
	if it.ClientTurnaroundMs < 2*float64(think/time.Millisecond) {
		t.Errorf("client turnaround %vms, want at least %v", it.ClientTurnaroundMs, 2*think)
	}
	if diff := it.ServerTimeMs + it.ClientTurnaroundMs - it.DurationMs; diff > 1e-6 || diff < -1e-6 {
		t.Errorf("server %v + client %v != duration %v", it.ServerTimeMs, it.ClientTurnaroundMs, it.DurationMs)
	}
	stdout.Reset()
	if code := run([]string{"check", "--max-round-trips", "2", log}, strings.NewReader(""), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), `tool "book_flight" took 3`) {
		t.Errorf("--max-round-trips 2: exit %d\n%s", code, stdout.String())
	}
}
