//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Real go-sdk traffic, through the real shim, at each of the five
// revisions: check --fail-on wire validates every frame against the
// schema of the revision the session negotiated and finds nothing wrong.
// The sessions list tools, call a tool (a small and a large result), ask
// the user (a server-to-client elicitation request before 2026-07-28, a
// multi round-trip exchange from it on) and call a tool the server lacks
// (an error).
//
// The one kind of frame the official schema rejects is recorded in
// sdkSchemaFailures.
func TestWireSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bins := buildShimBinaries(t)
	for _, rev := range wire.Revisions {
		t.Run(rev, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("MCPSNOOP_HOME", home)
			cmd := exec.Command(bins.shim, "--label", "sdk", "--", bins.server)
			cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
			client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
				},
			})
			ctx := withTimeout(t)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			ask := "ask"
			if rev >= "2026-07-28" {
				ask = "book"
			}
			for _, c := range []struct {
				name string
				args map[string]any
			}{
				{"echo", map[string]any{"text": "héllo"}},
				{"big", map[string]any{"size": 100_000}},
				{ask, map[string]any{"text": "JFK"}},
			} {
				if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args}); err != nil || res.IsError {
					t.Fatalf("%s: %v %+v", c.name, err, res)
				}
			}
			// A tool the server does not have: an error response.
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "missing"}); err == nil && !res.IsError {
				t.Fatalf("missing tool: %+v", res)
			}
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}

			report := filepath.Join(t.TempDir(), "check.json")
			code, stdout, stderr := checkRun(t, "", "--fail-on", "wire", "--json", report, sessionLog(t, home))
			want := sdkSchemaFailures[rev]
			if wantCode := min(len(want), 1); code != wantCode || stderr != "" {
				t.Fatalf("check --fail-on wire: exit %d, want %d\n%s%s", code, wantCode, stdout, stderr)
			}
			var doc struct {
				Sessions []struct {
					Counters struct {
						WireFindings *int `json:"wire_findings"`
					} `json:"counters"`
					Wire struct {
						Revisions []string `json:"revisions"`
						Validated int      `json:"validated_frames"`
						Skipped   int      `json:"unvalidated_frames"`
					} `json:"wire"`
				} `json:"sessions"`
				Findings []struct {
					Signal  string `json:"signal"`
					Message string `json:"message"`
				} `json:"findings"`
			}
			data, _ := os.ReadFile(report)
			if err := json.Unmarshal(data, &doc); err != nil || len(doc.Sessions) != 1 {
				t.Fatalf("report: %v\n%s", err, data)
			}
			s := doc.Sessions[0]
			if s.Counters.WireFindings == nil || *s.Counters.WireFindings != len(want) {
				t.Errorf("wire_findings = %v, want %d\n%s", s.Counters.WireFindings, len(want), stdout)
			}
			var got []string
			for _, f := range doc.Findings {
				if f.Signal == "wire" {
					got = append(got, f.Message[strings.Index(f.Message, "wire: "):])
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("wire findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if len(s.Wire.Revisions) != 1 || s.Wire.Revisions[0] != rev || s.Wire.Skipped != 0 || s.Wire.Validated < 10 {
				t.Errorf("wire = %+v, want every frame validated against %s", s.Wire, rev)
			}
		})
	}
}

// sdkSchemaFailures are the go-sdk (v1.8.0) frames the official schema of
// their revision rejects, by revision. Under 2026-07-28 the server's
// InputRequiredResult carries an elicitation whose params lack
// requestedSchema: ElicitRequestFormParams requires it, and the SDK sends
// what the handler returned (testdata/sdkserver's book tool asks
// "Confirm?" and "Window or aisle?" with a message only) without checking.
// Before 2026-07-28 the same tools pass: the ask tool's server-to-client
// request carries a requestedSchema.
var sdkSchemaFailures = map[string][]string{
	"2026-07-28": {
		`wire: tools/call result: /inputRequests/confirm/params: missing property "requestedSchema" (2026-07-28 InputRequiredResult)`,
		`wire: tools/call result: /inputRequests/seat/params: missing property "requestedSchema" (2026-07-28 InputRequiredResult)`,
	},
}
