//go:build e2e

package wintest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The state folder on Windows is %LOCALAPPDATA%\mcpsnoop; one that an
// older version made at %USERPROFILE%\.local\state\mcpsnoop keeps being
// used, and the shim says so once.
func TestWineStateDir(t *testing.T) {
	w := setup(t)
	user := `C:\users\` + filepath.Base(w.user)
	sessionLog := func() (string, string) {
		t.Helper()
		_, errOut, code := w.run(t, "", nil, w.exe("mcpsnoop.exe"), "--", w.exe("winserver.exe"), "args")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, errOut)
		}
		_, rest, ok := strings.Cut(errOut, "mcpsnoop: logging ")
		_, path, ok2 := strings.Cut(rest, " to ")
		path, _, ok3 := strings.Cut(path, " (session ")
		if !ok || !ok2 || !ok3 {
			t.Fatalf("no logging line:\n%s", errOut)
		}
		return path, errOut
	}

	path, errOut := sessionLog()
	if want := user + `\AppData\Local\mcpsnoop\sessions\`; !strings.HasPrefix(path, want) {
		t.Errorf("the log went to %s, want it in %s", path, want)
	}
	if strings.Contains(errOut, "old place") {
		t.Errorf("an old place is mentioned:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(w.user, "AppData", "Local", "mcpsnoop", "sessions", filepath.Base(strings.ReplaceAll(path, `\`, "/")))); err != nil {
		t.Errorf("the log is not there: %v", err)
	}

	old := filepath.Join(w.user, ".local", "state", "mcpsnoop")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(w.user, ".local")) })
	path, errOut = sessionLog()
	if want := user + `\.local\state\mcpsnoop\sessions\`; !strings.HasPrefix(path, want) {
		t.Errorf("with the old folder there, the log went to %s, want it in %s", path, want)
	}
	note := "mcpsnoop: the state directory is still at its old place, " + user + `\.local\state\mcpsnoop, and is used there; to have it where Windows keeps programs' data, move it to ` + user + `\AppData\Local\mcpsnoop`
	if strings.Count(errOut, "old place") != 1 || !strings.Contains(errOut, note) {
		t.Errorf("stderr does not say once %q:\n%s", note, errOut)
	}
}

// wrap and unwrap on a Claude Desktop config whose paths hold spaces, with
// LF and with CRLF line ends: the wrapped entry starts the server through
// mcpsnoop-shim.exe (a client session runs through it), and unwrap gives
// back the file byte for byte.
func TestWineWrapUnwrap(t *testing.T) {
	w := setup(t)
	server := w.exe("winserver.exe")
	quoted, _ := json.Marshal(server)
	for _, eol := range []string{"\n", "\r\n"} {
		dir := filepath.Join(w.root, "Claude Config", strings.ReplaceAll(strings.ReplaceAll(eol, "\r", "cr"), "\n", "lf"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		config := filepath.Join(dir, "claude_desktop_config.json")
		original := strings.Join([]string{
			`{`,
			`  "mcpServers": {`,
			`    "files": {`,
			`      "command": ` + string(quoted) + `,`,
			`      "args": ["serve", "C:\\Users\\me\\My Documents"]`,
			`    },`,
			`    "other": { "command": "npx", "args": ["-y", "@scope/other server"] }`,
			`  }`,
			`}`,
			``,
		}, eol)
		if err := os.WriteFile(config, []byte(original), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := w.run(t, "", nil, w.exe("mcpsnoop.exe"), "wrap", "--config", win(config), "files")
		if code != 0 {
			t.Fatalf("wrap: exit %d\n%s%s", code, out, errOut)
		}
		wrapped, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal(wrapped, &cfg); err != nil {
			t.Fatalf("the wrapped config does not parse: %v\n%s", err, wrapped)
		}
		entry := cfg.MCPServers["files"]
		tail := []string{"--", server, "serve", `C:\Users\me\My Documents`}
		// mcpsnoop-shim.exe of the same version sits beside mcpsnoop.exe,
		// as in a release: wrap asked it its version and writes it.
		if entry.Command != w.exe("mcpsnoop-shim.exe") || len(entry.Args) < len(tail) ||
			strings.Join(entry.Args[len(entry.Args)-len(tail):], "\x00") != strings.Join(tail, "\x00") {
			t.Fatalf("wrapped entry: %q %q", entry.Command, entry.Args)
		}
		if other := cfg.MCPServers["other"]; other.Command != "npx" {
			t.Errorf("the other server changed: %+v", other)
		}
		if eol == "\r\n" && strings.Count(string(wrapped), "\r\n") != strings.Count(string(wrapped), "\n") {
			t.Errorf("the wrapped file mixes line ends:\n%q", wrapped)
		}
		runWrapped(t, w, entry.Command, entry.Args)
		out, errOut, code = w.run(t, "", nil, w.exe("mcpsnoop.exe"), "unwrap", "--config", win(config), "files")
		if code != 0 {
			t.Fatalf("unwrap: exit %d\n%s%s", code, out, errOut)
		}
		if back, _ := os.ReadFile(config); string(back) != original {
			t.Errorf("unwrap left\n%q\nwant\n%q", back, original)
		}
	}
}

// runWrapped runs a session through a wrapped entry, as the client would
// start it.
func runWrapped(t *testing.T, w *wine, command string, args []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "wintest", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: w.command(command, args...)}, nil)
	if err != nil {
		t.Fatalf("the wrapped entry does not start: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "wrapped"}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "wrapped" {
		t.Errorf("echo through the wrapped entry: %+v, %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
