//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// installBeside copies the binaries into one folder, as a release archive
// or an npm platform package lays them out, and returns the folder.
func installBeside(t *testing.T, bins map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range bins {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wrap run by an installed mcpsnoop with mcpsnoop-shim beside it writes
// the shim's own binary into the entry; the client then starts it, a real
// SDK client and server talk through it, its log passes check, and unwrap
// restores the file. A shim of another version is not used: the entry
// runs mcpsnoop, and wrap says why.
func TestWrapWritesTheShimBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	server := testbin.Build(t, "./testdata/sdkserver")
	full := mcpsnoopBinary(t)
	dir := installBeside(t, map[string]string{"mcpsnoop": full, "mcpsnoop-shim": testbin.Build(t, "../mcpsnoop-shim")})
	home, logs := t.TempDir(), filepath.Join(t.TempDir(), "logs")
	cfg := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	orig := `{"mcpServers":{"notes":{"command":"` + jsonString(server) + `","args":["-mode","sdk"]}}}`
	writeFile(t, cfg, []byte(orig))
	mcpsnoop := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, "mcpsnoop"), args...)
		cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcpsnoop %q: %v\n%s%s", args, err, out, stderr.String())
		}
		return string(out), stderr.String()
	}

	if _, stderr := mcpsnoop("wrap", "--config", cfg, "--log-dir", logs, "notes"); stderr != "" {
		t.Errorf("wrap warned: %s", stderr)
	}
	command, args := wrappedEntry(t, cfg, "notes")
	if want := filepath.Join(dir, "mcpsnoop-shim"); command != want {
		t.Fatalf("the entry runs %s, want %s", command, want)
	}
	if want := []string{"--label", "notes", "--log-dir", logs, "--", server, "-mode", "sdk"}; !slices.Equal(args, want) {
		t.Errorf("the entry's args are %q, want %q", args, want)
	}

	// The client starts the entry as written.
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	ctx := withTimeout(t)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo"}})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "héllo" {
		t.Fatalf("echo through the shim: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	found, _ := filepath.Glob(filepath.Join(logs, "notes-*.jsonl"))
	if len(found) != 1 {
		t.Fatalf("logs in %s: %v, want one notes-*.jsonl", logs, found)
	}
	if out, _ := mcpsnoop("check", found[0]); !strings.Contains(out, "passed") {
		t.Errorf("check of the shim's log:\n%s", out)
	}
	if code, stdout, stderr := wrapRun(t, "wrap", "--config", cfg, "notes"); code != 0 || !strings.Contains(stdout, "already wrapped") {
		t.Errorf("wrap of an entry running mcpsnoop-shim: exit %d\n%s%s", code, stdout, stderr)
	}
	mcpsnoop("unwrap", "--config", cfg, "notes")
	if got := readString(t, cfg); got != orig {
		t.Errorf("unwrap left:\n%s\nwant:\n%s", got, orig)
	}

	// A shim of another release beside mcpsnoop (whose version is Go's
	// pseudo-version of the commit in a clean clone, 0.0.0-dev otherwise).
	stale := installBeside(t, map[string]string{"mcpsnoop": full, "mcpsnoop-shim": testbin.Build(t, "../mcpsnoop-shim", "-ldflags=-X main.version=9.9.9")})
	dir = stale
	out, _ := mcpsnoop("--version")
	ours := strings.TrimPrefix(strings.TrimSpace(out), "mcpsnoop ")
	_, stderr := mcpsnoop("wrap", "--config", cfg, "notes")
	if command, _ := wrappedEntry(t, cfg, "notes"); command != filepath.Join(stale, "mcpsnoop") {
		t.Errorf("with a shim of another version the entry runs %s, want mcpsnoop", command)
	}
	if want := `says "mcpsnoop-shim 9.9.9", not "mcpsnoop-shim ` + ours + `"; the entries run ` + filepath.Join(stale, "mcpsnoop") + " instead"; !strings.Contains(stderr, want) {
		t.Errorf("wrap's warning:\n%s\nwant it to contain %s", stderr, want)
	}
}
