package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// npmTree lays out what npm installs under root/node_modules: the launcher
// package mcpsnoop and the platform package holding the binary, at the
// versions given; it returns the binary's path.
func npmTree(t *testing.T, root, launcherVersion, platformVersion string) string {
	t.Helper()
	nm := filepath.Join(root, "node_modules")
	writeFile(t, filepath.Join(nm, "mcpsnoop", "package.json"), []byte(`{"name":"mcpsnoop","version":"`+launcherVersion+`"}`))
	writeFile(t, filepath.Join(nm, "mcpsnoop-linux-x64", "package.json"), []byte(`{"name":"mcpsnoop-linux-x64","version":"`+platformVersion+`"}`))
	bin := filepath.Join(nm, "mcpsnoop-linux-x64", "bin", "mcpsnoop")
	writeFile(t, bin, []byte("#!/bin/sh\n"))
	return bin
}

func TestNPXCommand(t *testing.T) {
	tmp := t.TempDir()
	for _, tt := range []struct {
		name string
		bin  string
		want []string
	}{
		{"npx's cache", npmTree(t, filepath.Join(tmp, "npm-cache", "_npx", "4f1a2b3c4d5e6f70"), "1.2.3", "1.2.3"), []string{"npx", "-y", "mcpsnoop@1.2.3"}},
		{"a global install", npmTree(t, filepath.Join(tmp, "usr", "lib"), "1.2.3", "1.2.3"), nil},
		{"a project", npmTree(t, filepath.Join(tmp, "project"), "1.2.3", "1.2.3"), nil},
		{"versions that differ", npmTree(t, filepath.Join(tmp, "c2", "_npx", "abc"), "1.2.3", "1.2.4"), nil},
		{"a release archive", "/usr/local/bin/mcpsnoop", nil},
	} {
		got, ok := npxCommand(tt.bin)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("%s: npxCommand(%s) = %q, %v; want %q", tt.name, tt.bin, got, ok, tt.want)
		}
	}
}

// wrap run by a copy of mcpsnoop in npx's cache writes npx -y
// mcpsnoop@VERSION, which outlives the cache, and says so; wrap and
// unwrap then treat the entry as mcpsnoop's.
func TestWrapFromNPXCache(t *testing.T) {
	bin := npmTree(t, filepath.Join(t.TempDir(), ".npm", "_npx", "4f1a2b3c4d5e6f70"), "1.2.3", "1.2.3")
	saved := executablePath
	executablePath = func() (string, error) { return bin, nil }
	t.Cleanup(func() { executablePath = saved })
	cfg := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	orig := `{"mcpServers":{"notes":{"command":"node","args":["notes.js"]}}}`
	writeFile(t, cfg, []byte(orig))

	code, stdout, stderr := wrapRun(t, "wrap", "--config", cfg, "--log-dir", "/ci/logs", "notes")
	if code != 0 || !strings.Contains(stdout, `note: this mcpsnoop runs from npx's cache, which npm may clear, so the entries run "npx -y mcpsnoop@1.2.3" instead of `+bin) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	command, args := wrappedEntry(t, cfg, "notes")
	want := []string{"-y", "mcpsnoop@1.2.3", "--label", "notes", "--log-dir", "/ci/logs", "--", "node", "notes.js"}
	if command != "npx" || !slices.Equal(args, want) {
		t.Errorf("entry: %s %q, want npx %q", command, args, want)
	}
	if code, stdout, _ := wrapRun(t, "wrap", "--config", cfg, "notes"); code != 0 || !strings.Contains(stdout, "already wrapped") {
		t.Errorf("second wrap: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := wrapRun(t, "unwrap", "--config", cfg, "notes"); code != 0 || readString(t, cfg) != orig {
		t.Errorf("unwrap: exit %d %s\n%s", code, stderr, readString(t, cfg))
	}
	if _, err := os.Stat(cfg + ".mcpsnoop.bak"); err == nil {
		t.Errorf("the backup stayed after the last unwrap")
	}
}

// wrappedEntry is the command and args of a server in a client config.
func wrappedEntry(t *testing.T, cfg, name string) (string, []string) {
	t.Helper()
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readString(t, cfg)), &doc); err != nil {
		t.Fatal(err)
	}
	e := doc.MCPServers[name]
	return e.Command, e.Args
}
