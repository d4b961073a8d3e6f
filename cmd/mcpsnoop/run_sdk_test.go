//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One client process (this test) talks to three servers, each through its
// own shim: the three sessions form one run keyed by the client process,
// and check --run latest covers all three.
func testShimRunOfThree(t *testing.T, bins shimBins) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	sessions := filepath.Join(home, "sessions")
	os.MkdirAll(sessions, 0o755)
	// An older capture without a client process stays out of the run.
	old, _ := os.ReadFile(filepath.Join("..", "..", "fixtures", "mrtr.jsonl"))
	os.WriteFile(filepath.Join(sessions, "older.jsonl"), old, 0o644)

	ctx := withTimeout(t)
	for _, label := range []string{"files", "github", "search"} {
		cmd := exec.Command(bins.shim, "--label", label, "--", bins.server)
		cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
		client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": label}}); err != nil {
			t.Fatal(err)
		}
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", "--runs"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("--runs: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	// The run of three, newest; then the sessions of no run, each a run
	// of its own (the subtests before this one recorded them).
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "RUN ") || !strings.Contains(lines[1], "  process  client ") || !strings.Contains(lines[1], "  3  ") {
		t.Fatalf("runs:\n%s", stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"check", "--run", "latest"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("--run latest: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, label := range []string{"files-", "github-", "search-"} {
		if !strings.Contains(stdout.String(), "session "+label) {
			t.Errorf("--run latest left out %s:\n%s", label, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "session demo") {
		t.Errorf("--run latest took in an unrelated capture:\n%s", stdout.String())
	}
}
