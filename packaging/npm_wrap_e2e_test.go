//go:build e2e

package packaging_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNPMWrapWritesTheShim: mcpsnoop installed from the npm tarballs wraps
// a server with the platform package's mcpsnoop-shim (the binary beside the
// one the launcher runs, of the same release); the client then starts the
// entry as written, server-everything answers through it, and the log it
// wrote passes check.
func TestNPMWrapWritesTheShim(t *testing.T) {
	server := everything(t)
	in := installed(t)
	home, logs := t.TempDir(), filepath.Join(t.TempDir(), "logs")
	cfg := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	entry, _ := json.Marshal(map[string]any{"command": node, "args": []string{server, "stdio"}})
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"everything":`+string(entry)+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := in.launcher(home, "wrap", "--config", cfg, "--log-dir", logs, "everything").CombinedOutput(); err != nil || strings.Contains(string(out), "warning") {
		t.Fatalf("wrap: %v\n%s", exitDetail(err), out)
	}
	e := serverEntry(t, cfg, "everything")
	exe := "mcpsnoop-shim"
	if npmPlatform()[:5] == "win32" {
		exe += ".exe"
	}
	real, _ := filepath.EvalSymlinks(in.Project)
	if want := filepath.Join(real, "node_modules", "mcpsnoop-"+npmPlatform(), "bin", exe); e.Command != want {
		t.Fatalf("the entry runs %s, want %s", e.Command, want)
	}
	if want := []string{"--label", "everything", "--log-dir", logs, "--", node, server, "stdio"}; !slices.Equal(e.Args, want) {
		t.Errorf("the entry's args %q, want %q", e.Args, want)
	}

	cmd := exec.Command(e.Command, e.Args...)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	recordEverything(t, cmd)
	found, _ := filepath.Glob(filepath.Join(logs, "everything-*.jsonl"))
	if len(found) != 1 {
		t.Fatalf("logs in %s: %v", logs, found)
	}
	out, err := in.npx(home, "check", "--fail-on", "invalid,incomplete", found[0]).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "check passed") || !strings.Contains(string(out), "missing_frames=0") {
		t.Errorf("check of the shim's log: %v\n%s", exitDetail(err), out)
	}
}

// entry is a server's command and args in a client config.
type entry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// serverEntry reads the entry of server name under mcpServers in cfg.
func serverEntry(t *testing.T, cfg, name string) entry {
	t.Helper()
	var doc struct {
		MCPServers map[string]entry `json:"mcpServers"`
	}
	data, err := os.ReadFile(cfg)
	if err == nil {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	return doc.MCPServers[name]
}
