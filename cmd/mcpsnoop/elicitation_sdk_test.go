package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// distinctive is what the user types; it must reach no report.
const distinctive = "zq-submitted-value-5150"

type signupArgs struct {
	Plan string `json:"plan"`
}

// A real go-sdk session with a form and a url elicitation: the ledger shows
// both questions and what the user did, and the value the user submitted
// appears in no output of check.
func TestElicitationLedgerWithRealSDK(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	server := mcp.NewServer(&mcp.Implementation{Name: "accounts", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "signup", Description: "Create an account"},
		func(ctx context.Context, req *mcp.CallToolRequest, args signupArgs) (*mcp.CallToolResult, any, error) {
			switch req.Params.RequestState {
			case "":
				return &mcp.CallToolResult{RequestState: "st-1", InputRequests: mcp.InputRequestMap{"profile": &mcp.ElicitParams{
					Mode: "form", Message: "Choose a username",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"username": map[string]any{"type": "string"}}},
				}}}, nil, nil
			case "st-1":
				return &mcp.CallToolResult{RequestState: "st-2", InputRequests: mcp.InputRequestMap{"auth": &mcp.ElicitParams{
					Mode: "url", Message: "Link your account", URL: "https://auth.example.com/link?flow=1",
				}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "welcome"}}}, nil, nil
		})
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode == "url" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": distinctive}}, nil
		},
	})
	dir := t.TempDir()
	log := filepath.Join(dir, "elicit.jsonl")
	captureSession(t, log, "accounts-1-eeeeeeeeeeee", "accounts", server, client, func(ctx context.Context, cs *mcp.ClientSession) {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{"plan": "free"}}); err != nil {
			t.Fatal(err)
		}
	})
	if data, _ := os.ReadFile(log); !strings.Contains(string(data), distinctive) {
		t.Fatalf("the capture should hold the submitted value (it is the raw traffic):\n%s", data)
	}

	report := filepath.Join(dir, "report.json")
	var outputs []string
	for _, args := range [][]string{
		{"check", "--verbose", "--json", report, log},
		{"check", "--format", "sarif", log},
		{"check", "--format", "junit", log},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		outputs = append(outputs, stdout.String())
	}
	data, _ := os.ReadFile(report)
	outputs = append(outputs, string(data))
	for i, out := range outputs {
		if strings.Contains(out, distinctive) {
			t.Errorf("output %d carries the submitted value:\n%s", i, out)
		}
	}
	text := outputs[0]
	for _, want := range []string{
		"elicitation tools/call signup [form] profile: accept after",
		"  username string",
		"elicitation tools/call signup [url] auth: decline after",
		"  url https://auth.example.com/link?flow=1 (host auth.example.com)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("verbose report lacks %q:\n%s", want, text)
		}
	}
	var doc struct {
		Sessions []struct {
			Elicitations []struct {
				Key, Mode, Action string
				Pending           bool
			} `json:"elicitations"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if e := doc.Sessions[0].Elicitations; len(e) != 2 || e[0].Key != "profile" || e[0].Action != "accept" || e[1].Mode != "url" || e[1].Action != "decline" {
		t.Errorf("ledger = %+v", e)
	}
}

// The seed's capture answers a form with "zed-unique-7731": no report of it
// may carry that value.
func TestNoSubmittedValueInElicitGoldens(t *testing.T) {
	goldens, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "golden", "elicit*"))
	if len(goldens) == 0 {
		t.Fatal("no elicit goldens")
	}
	for _, g := range goldens {
		if strings.Contains(filepath.Base(g), ".export.") {
			continue // exports show the raw frames, answer included: TestExportElicitValueOnlyInRawFrames
		}
		if data, _ := os.ReadFile(g); strings.Contains(string(data), "zed-unique-7731") {
			t.Errorf("%s carries the submitted value", g)
		}
	}
}
