package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinary is where the tests pretend mcpsnoop is installed: the test
// binary's own name (mcpsnoop.test) would not be recognised as wrapped.
const fakeBinary = "/opt/mcpsnoop/bin/mcpsnoop"

func useFakeBinary(t *testing.T) {
	t.Helper()
	saved := executablePath
	executablePath = func() (string, error) { return fakeBinary, nil }
	t.Cleanup(func() { executablePath = saved })
}

// oddConfig is laid out the way hand-edited files are: tabs, spaces before
// colons, a trailing-space line, non-ASCII text, servers on one line and
// over several, and keys mcpsnoop knows nothing about.
const oddConfig = "{\n\t\"globalShortcut\" :  \"Ctrl+Space\",\n" +
	"\t\"mcpServers\":{\n" +
	"\t\t\"filesystem\" : {\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\":[\"-y\", \"@modelcontextprotocol/server-filesystem\",  \"/Users/zoë/Документы\"],\n\t\t\t\"env\": {\"A&B\": \"<x>\"}\n\t\t},   \n" +
	"\t\t\"github\": {\"command\":\"docker\",\"args\":[\"run\",\"-i\",\"--rm\",\"ghcr.io/github/github-mcp-server\"]},\n" +
	"\t\t\"remote\": {\"url\": \"https://example.com/mcp\"}\n" +
	"\t},\n\t\"theme\":\"dark\"\n}"

// The filesystem entry's value as written in oddConfig.
const oddEntry = "{\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\":[\"-y\", \"@modelcontextprotocol/server-filesystem\",  \"/Users/zoë/Документы\"],\n\t\t\t\"env\": {\"A&B\": \"<x>\"}\n\t\t}"

const oddWrapped = "{\n\t\t\t\"args\": [\n\t\t\t\t\"--label\",\n\t\t\t\t\"filesystem\",\n\t\t\t\t\"--\",\n\t\t\t\t\"npx\",\n\t\t\t\t\"-y\",\n\t\t\t\t\"@modelcontextprotocol/server-filesystem\",\n\t\t\t\t\"/Users/zoë/Документы\"\n\t\t\t],\n" +
	"\t\t\t\"command\": \"/opt/mcpsnoop/bin/mcpsnoop\",\n\t\t\t\"env\": {\n\t\t\t\t\"A&B\": \"<x>\"\n\t\t\t}\n\t\t}"

func wrapRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wrap, wrap again, unwrap, unwrap again, on a hand-formatted config.
func TestWrapUnwrap(t *testing.T) {
	useFakeBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	bak := cfg + ".mcpsnoop.bak"
	writeFile(t, cfg, []byte(oddConfig))
	wrapped := strings.Replace(oddConfig, oddEntry, oddWrapped, 1)

	steps := []struct {
		args   []string
		stdout string
		config string
		backup bool
	}{
		{[]string{"wrap", "--dry-run"}, "would wrap \"filesystem\" in $CFG; its entry would become:\n  {\n    \"args\": [\n      \"--label\",\n      \"filesystem\",\n      \"--\",\n      \"npx\",\n      \"-y\",\n" +
			"      \"@modelcontextprotocol/server-filesystem\",\n      \"/Users/zoë/Документы\"\n    ],\n    \"command\": \"/opt/mcpsnoop/bin/mcpsnoop\",\n" +
			"    \"env\": {\n      \"A&B\": \"<x>\"\n    }\n  }\nand the file as it is now would be saved to $CFG.mcpsnoop.bak\n", oddConfig, false},
		{[]string{"wrap"}, "wrapped \"filesystem\" in $CFG\nsaved the file as it was to $CFG.mcpsnoop.bak\nrestart the client, or the server in it, to apply it\n", wrapped, true},
		{[]string{"wrap"}, "\"filesystem\" is already wrapped in $CFG; nothing to do\n", wrapped, true},
		{[]string{"unwrap"}, "unwrapped \"filesystem\" in $CFG\nrestored the file exactly as it was before the first wrap\n" +
			"removed $CFG.mcpsnoop.bak: no server runs mcpsnoop any more\nrestart the client, or the server in it, to apply it\n", oddConfig, false},
		{[]string{"unwrap"}, "\"filesystem\" is not wrapped in $CFG; nothing to do\n", oddConfig, false},
	}
	for i, s := range steps {
		args := append(s.args, "--config", cfg, "filesystem")
		code, stdout, stderr := wrapRun(t, args...)
		want := strings.ReplaceAll(s.stdout, "$CFG", cfg)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("step %d %v: exit %d\nstdout:\n%s\nstderr %q\nwant stdout:\n%s", i, s.args, code, stdout, stderr, want)
		}
		if got := readString(t, cfg); got != s.config {
			t.Errorf("step %d %v: config:\n%s\nwant:\n%s", i, s.args, got, s.config)
		}
		_, err := os.Stat(bak)
		if (err == nil) != s.backup {
			t.Errorf("step %d %v: backup exists %v, want %v", i, s.args, err == nil, s.backup)
		}
		if s.backup && readString(t, bak) != oddConfig {
			t.Errorf("step %d %v: the backup is not the original", i, s.args)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) > 2 {
			t.Errorf("step %d %v: stray files: %v", i, s.args, entries)
		}
	}
}

// A dry run shows the entry as it would be written, but a bidirectional
// override or a control character in it (a config can come with a cloned
// repository) is escaped on the terminal.
func TestWrapDryRunEscapes(t *testing.T) {
	useFakeBinary(t)
	cfg := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	writeFile(t, cfg, []byte(`{"mcpServers":{"x":{"command":"node","args":["a\u202eb.js"]}}}`))
	code, stdout, stderr := wrapRun(t, "wrap", "--dry-run", "--config", cfg, "x")
	if code != 0 || strings.ContainsRune(stdout, '\u202e') || !strings.Contains(stdout, `a\u202eb.js`) {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
}

func TestWrapBadInput(t *testing.T) {
	useFakeBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	writeFile(t, cfg, []byte(oddConfig))
	broken := filepath.Join(dir, "broken.json")
	writeFile(t, broken, []byte(`{"mcpServers": {"a": {"command": "x"},,}}`))
	shapeless := filepath.Join(dir, "shapeless.json")
	writeFile(t, shapeless, []byte(`{"mcpServers": [{"name": "a", "command": "x"}]}`))
	other := filepath.Join(dir, "package.json")
	writeFile(t, other, []byte(`{"name": "x", "scripts": {}}`))
	vscode := filepath.Join(dir, "vscode.json")
	writeFile(t, vscode, []byte("{\"servers\": {\"a\": {\"command\": \"x\"}}} // VS Code\n"))
	missing := filepath.Join(dir, "missing.json")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown server", []string{"wrap", "--config", cfg, "slack"}, 2,
			`mcpsnoop wrap: ` + cfg + `: no server "slack" under "mcpServers" (servers: filesystem, github, remote)`},
		{"remote server", []string{"wrap", "--config", cfg, "--log-dir", "/ci/logs", "remote"}, 2,
			`mcpsnoop wrap: ` + cfg + `: server "remote" is a remote server (url https://example.com/mcp); only servers started from a command can be wrapped; ` +
				`to record it, run "mcpsnoop http --target https://example.com/mcp --label remote --log-dir /ci/logs" and point "remote" at the address it listens on`},
		{"remote among others", []string{"wrap", "--config", cfg, "github", "remote"}, 2, `mcpsnoop wrap: ` + cfg + `: server "remote" is a remote server`},
		{"unknown among others", []string{"unwrap", "--config", cfg, "github", "slack"}, 2, `mcpsnoop unwrap: ` + cfg + `: no server "slack" under "mcpServers" (servers: filesystem, github, remote)`},
		{"label for several", []string{"wrap", "--config", cfg, "--label", "x", "github", "filesystem"}, 2, "mcpsnoop wrap: --label names one server's sessions; wrap that server on its own"},
		{"label with --all", []string{"wrap", "--config", cfg, "--label", "x", "--all"}, 2, "mcpsnoop wrap: --label names one server's sessions"},
		{"bad label", []string{"wrap", "--config", cfg, "--label", "a/b", "github"}, 2, `mcpsnoop wrap: --label: label "a/b" contains a slash`},
		{"empty label", []string{"wrap", "--config", cfg, "--label", "", "github"}, 2, "mcpsnoop wrap: --label must not be empty"},
		{"empty log dir", []string{"wrap", "--config", cfg, "--log-dir", "", "github"}, 2, "mcpsnoop wrap: --log-dir must name a folder"},
		{"all and names", []string{"wrap", "--config", cfg, "--all", "github"}, 2, "mcpsnoop wrap: --all takes no server names; give either"},
		{"global and config", []string{"wrap", "--config", cfg, "--global", "github"}, 2, "mcpsnoop wrap: --global and --config both say which file to edit; give one"},
		{"global for vscode", []string{"wrap", "--client", "vscode", "--global", "github"}, 2, "mcpsnoop wrap: --global: VS Code has no user-wide config that mcpsnoop knows; name the file with --config"},
		{"unknown shape", []string{"wrap", "--config", shapeless, "a"}, 1, "mcpsnoop wrap: " + shapeless + ": mcpServers is not a JSON object"},
		{"not a client config", []string{"unwrap", "--config", other, "a"}, 1, "mcpsnoop unwrap: " + other + `: not an MCP client config: it has no "mcpServers" or "servers" object`},
		{"not a client config, --all", []string{"wrap", "--config", other, "--all"}, 1, "mcpsnoop wrap: " + other + `: not an MCP client config: it has no "mcpServers" or "servers" object`},
		{"claude desktop config without servers", []string{"wrap", "--client", "claude-desktop", "--config", other, "a"}, 2, "mcpsnoop wrap: " + other + `: no server "a": the config lists no servers under "mcpServers"`},
		{"vscode file as claude-code", []string{"wrap", "--client", "claude-code", "--config", vscode, "a"}, 2, "mcpsnoop wrap: " + vscode + `: no server "a": the config lists no servers under "mcpServers"`},
		{"unwrap unknown server", []string{"unwrap", "--config", cfg, "slack"}, 2, `mcpsnoop unwrap: ` + cfg + `: no server "slack"`},
		{"empty --config", []string{"wrap", "--config", "", "github"}, 2, "mcpsnoop wrap: --config must name a file"},
		{"unknown client", []string{"unwrap", "--client", "zed", "--config", cfg, "github"}, 2,
			`mcpsnoop unwrap: unknown --client "zed": use claude-desktop, claude-code, cursor, vscode`},
		{"no server named", []string{"wrap", "--config", cfg}, 2, "mcpsnoop wrap: name a server, or give --all"},
		{"missing config", []string{"wrap", "--config", missing, "github"}, 1, "mcpsnoop wrap: " + missing + ": no such file or directory"},
		{"unwrap missing config", []string{"unwrap", "--config", missing, "github"}, 1, "mcpsnoop unwrap: " + missing + ": no such file or directory"},
		{"malformed config", []string{"wrap", "--config", broken, "a"}, 1, "mcpsnoop wrap: " + broken + ": not valid JSON: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			code, stdout, stderr := wrapRun(t, tt.args...)
			if code != tt.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, no stdout, one line starting %q", code, stdout, stderr, tt.code, tt.want)
			}
			if d := diffSnapshots(before, snapshot(t, dir)); len(d) > 0 {
				t.Errorf("files changed: %v", d)
			}
		})
	}
}

// Without --config, the file is Claude Desktop's in the user config folder.
func TestWrapDefaultConfigPath(t *testing.T) {
	useFakeBinary(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("AppData", filepath.Join(home, "config"))
	dir, err := os.UserConfigDir()
	if err != nil {
		t.Skip(err)
	}
	cfg := filepath.Join(dir, "Claude", "claude_desktop_config.json")
	code, _, stderr := wrapRun(t, "wrap", "github")
	if code != 1 || !strings.Contains(stderr, cfg+": no such file or directory (is Claude Desktop installed? name its config with --config)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	writeFile(t, cfg, []byte(oddConfig))
	if code, stdout, stderr := wrapRun(t, "wrap", "github"); code != 0 || !strings.HasPrefix(stdout, `wrapped "github" in `+cfg) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"version"}, "mcpsnoop " + appVersion() + "\ngo"},
		{[]string{"completion", "bash"}, "# bash completion V2 for mcpsnoop"},
		{[]string{"completion", "zsh"}, "#compdef mcpsnoop"},
		{[]string{"completion", "fish"}, "# fish completion for mcpsnoop"},
		{[]string{"completion", "powershell"}, "# powershell completion for mcpsnoop"},
	}
	for _, tt := range tests {
		code, stdout, stderr := wrapRun(t, tt.args...)
		if code != 0 || !strings.HasPrefix(stdout, tt.want) || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout starts %q", tt.args, code, stderr, stdout[:min(len(stdout), 60)])
		}
	}
	code, stdout, stderr := wrapRun(t, "completion", "tcsh")
	if code != 2 || stdout != "" || stderr != "mcpsnoop completion: unknown shell \"tcsh\": use bash, zsh, fish or powershell\n" {
		t.Errorf("tcsh: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The scripts call back into mcpsnoop; subcommands and server names
	// complete.
	code, stdout, _ = wrapRun(t, "__complete", "pr")
	if code != 0 || !strings.HasPrefix(stdout, "prune\t") {
		t.Errorf("__complete pr: exit %d, %q", code, stdout)
	}
	cfg := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, cfg, []byte(oddConfig))
	code, stdout, _ = wrapRun(t, "__complete", "wrap", "--config", cfg, "")
	if code != 0 || !strings.HasPrefix(stdout, "filesystem\ngithub\nremote\n:4\n") {
		t.Errorf("__complete wrap: exit %d, %q", code, stdout)
	}
}
