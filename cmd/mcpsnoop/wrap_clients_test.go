package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each client's config is found where the client keeps it, every server
// that can be wrapped is (--all), a remote one is skipped with the
// mcpsnoop http command that records it, and unwrap --all gives back the
// very bytes.
func TestWrapClients(t *testing.T) {
	useFakeBinary(t)
	const mcpJSON = "{\n  \"mcpServers\": {\n    \"notes\": {\"command\": \"./bin/notes\"},\n" +
		"    \"docs\": {\"type\": \"http\", \"url\": \"https://docs.example.com/mcp\"}\n  }\n}\n"
	const vscodeJSON = "{\n  // workspace servers\n  \"servers\": {\n    \"notes\": {\n      \"command\": \"./bin/notes\", // ours\n    },\n" +
		"    \"docs\": {\"type\": \"http\", \"url\": \"https://docs.example.com/mcp\"},\n  },\n}\n"
	for _, tc := range []struct {
		name   string
		flags  []string
		file   string // relative to the project (or to home with --global)
		global bool
		data   string
		apply  string
	}{
		{"claude-code", []string{"--client", "claude-code"}, ".mcp.json", false, mcpJSON, "start a new Claude Code session to apply it"},
		{"cursor", []string{"--client", "cursor"}, ".cursor/mcp.json", false, mcpJSON, "restart the server in Cursor's MCP settings to apply it"},
		{"cursor global", []string{"--client", "cursor", "--global"}, ".cursor/mcp.json", true, mcpJSON, "restart the server in Cursor's MCP settings to apply it"},
		{"vscode", []string{"--client", "vscode"}, ".vscode/mcp.json", false, vscodeJSON, "restart the server in VS Code (MCP: List Servers) to apply it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project, home := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("USERPROFILE", home)
			t.Chdir(project)
			base := project
			if tc.global {
				base = home
			}
			cfg := filepath.Join(base, tc.file)
			writeFile(t, cfg, []byte(tc.data))

			args := append(append([]string{"wrap"}, tc.flags...), "--all", "--log-dir", "artifacts/mcp")
			code, stdout, stderr := wrapRun(t, args...)
			logDir := filepath.Join(project, "artifacts", "mcp")
			want := `skipped "docs": it is a remote server; to record it, run "mcpsnoop http --target https://docs.example.com/mcp --label docs --log-dir ` + logDir +
				`" and point "docs" at the address it listens on (127.0.0.1:7000 unless --listen says otherwise)` + "\n" +
				`wrapped "notes" in ` + cfg + "\nsaved the file as it was to " + cfg + ".mcpsnoop.bak\n" + tc.apply + "\n"
			if code != 0 || stdout != want || stderr != "" {
				t.Fatalf("wrap: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
			}
			got := readString(t, cfg)
			wantArgs := `"--label", "notes", "--log-dir", "` + logDir + `", "--", "./bin/notes"`
			if !strings.Contains(tc.data, "// ours") {
				wantArgs = strings.ReplaceAll(wantArgs, ", ", ",")
			}
			if !strings.Contains(got, wantArgs) || !strings.Contains(got, `"`+fakeBinary+`"`) {
				t.Errorf("wrapped config lacks args %s:\n%s", wantArgs, got)
			}
			if strings.Contains(tc.data, "// ours") && (!strings.Contains(got, "// ours") || !strings.Contains(got, "// workspace servers")) {
				t.Errorf("comments lost:\n%s", got)
			}

			code, stdout, _ = wrapRun(t, append(append([]string{"unwrap"}, tc.flags...), "--all")...)
			if code != 0 || !strings.Contains(stdout, "restored the file exactly as it was before the first wrap") {
				t.Errorf("unwrap: exit %d, stdout:\n%s", code, stdout)
			}
			if readString(t, cfg) != tc.data {
				t.Errorf("not restored:\n%s", readString(t, cfg))
			}
			if _, err := os.Stat(cfg + ".mcpsnoop.bak"); err == nil {
				t.Error("backup left behind")
			}
			code, stdout, _ = wrapRun(t, append(append([]string{"unwrap"}, tc.flags...), "--all")...)
			if code != 0 || stdout != "no server runs mcpsnoop in "+cfg+"; nothing to do\n" {
				t.Errorf("second unwrap: exit %d, stdout %q", code, stdout)
			}
		})
	}
}

// A project client's config that is not there is named with where the
// client keeps it.
func TestWrapMissingProjectConfig(t *testing.T) {
	useFakeBinary(t)
	project := t.TempDir()
	t.Chdir(project)
	code, stdout, stderr := wrapRun(t, "wrap", "--client", "claude-code", "notes")
	want := "mcpsnoop wrap: " + filepath.Join(project, ".mcp.json") + ": no such file or directory (Claude Code's config is .mcp.json in the current directory; run mcpsnoop there, or name the file with --config)\n"
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q\nwant %q", code, stdout, stderr, want)
	}
}

// --label replaces the key as the label; a key that cannot be a label is
// left to the shim, with a note; wrapping again with new flags says how to
// change them.
func TestWrapLabels(t *testing.T) {
	useFakeBinary(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, []byte(`{"mcpServers":{"a/b":{"command":"x"},"fs":{"command":"y"}}}`))
	code, stdout, _ := wrapRun(t, "wrap", "--config", cfg, "--label", "files-ci", "fs")
	if code != 0 || !strings.Contains(readString(t, cfg), `"fs":{"args":["--label","files-ci","--","y"]`) {
		t.Errorf("exit %d, %s\n%s", code, stdout, readString(t, cfg))
	}
	code, stdout, _ = wrapRun(t, "wrap", "--config", cfg, "a/b")
	if code != 0 || !strings.HasPrefix(stdout, `note: the key "a/b" cannot be a label (label "a/b" contains a slash), so the shim names "a/b"'s logs after its command; give --label to choose`) ||
		!strings.Contains(readString(t, cfg), `"a/b":{"args":["--","x"]`) {
		t.Errorf("exit %d, %s\n%s", code, stdout, readString(t, cfg))
	}
	code, stdout, _ = wrapRun(t, "wrap", "--config", cfg, "--log-dir", "/x", "fs")
	if code != 0 || stdout != `"fs" is already wrapped in `+cfg+"; nothing to do\n(its flags stay as they are: unwrap it and wrap it again to change --label or --log-dir)\n" {
		t.Errorf("exit %d, %q", code, stdout)
	}
}
