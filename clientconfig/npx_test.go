package clientconfig

import (
	"strings"
	"testing"
)

// An entry may run mcpsnoop through npx (wrap writes npx -y
// mcpsnoop@VERSION for a copy npx installed in its cache, and the README's
// own `npx mcpsnoop -- CMD` is the same thing by hand): it is wrapped, wrap
// leaves it, unwrap takes out exactly npx and what wrap put before "--",
// in place as well as re-encoded.
func TestWrapThroughNPX(t *testing.T) {
	npx := WrapOptions{Binary: "npx", ShimArgs: []string{"-y", "mcpsnoop@1.2.3", "--label", "fs"}}
	for _, tt := range []struct {
		name, config string
	}{
		{"re-encoded", `{"mcpServers":{"fs":{"command":"node","args":["server.js","--root","/tmp"]}}}`},
		{"in place, with a comment", "{\"mcpServers\":{\"fs\":{\"command\":\"node\", // the server\n\"args\":[\"server.js\",\"--root\",\"/tmp\"]}}}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, entry, err := Wrap([]byte(tt.config), "fs", npx)
			if err != nil || !changed {
				t.Fatalf("Wrap: %v %v", changed, err)
			}
			if !strings.Contains(string(entry), `"npx"`) || !strings.Contains(string(entry), `"-y", "mcpsnoop@1.2.3", "--label", "fs", "--", "node", "server.js"`) &&
				!strings.Contains(string(entry), `"-y","mcpsnoop@1.2.3","--label","fs","--","node","server.js"`) {
				t.Errorf("entry %s", entry)
			}
			servers, _, _ := Servers(out, nil)
			if len(servers) != 1 || !servers[0].Wrapped {
				t.Errorf("Servers: %+v", servers)
			}
			again, changed, _, err := Wrap(out, "fs", opts)
			if err != nil || changed || string(again) != string(out) {
				t.Errorf("a second wrap changed it: %v %v\n%s", changed, err, again)
			}
			back, changed, _, err := Unwrap(out, "fs", nil)
			if err != nil || !changed {
				t.Fatalf("Unwrap: %v %v", changed, err)
			}
			if !SameConfig(back, []byte(tt.config)) {
				t.Errorf("unwrapped:\n%s\nwant:\n%s", back, tt.config)
			}
		})
	}
}

func TestShimArgsAt(t *testing.T) {
	for _, tt := range []struct {
		command string
		args    []string
		at      int
		wrapped bool
	}{
		{"/usr/local/bin/mcpsnoop", []string{"--", "node"}, 0, true},
		{"npx", []string{"-y", "mcpsnoop@1.2.3", "--label", "x", "--", "node"}, 2, true},
		{"npx", []string{"mcpsnoop", "--", "node"}, 1, true},
		{`C:\Program Files\nodejs\npx.cmd`, []string{"--yes", "mcpsnoop@latest", "--", "node"}, 2, true},
		{"npx", []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, 0, false},
		{"npx", []string{"-y", "mcpsnoop-linux-x64"}, 0, false},
		{"npx", []string{"--", "mcpsnoop"}, 0, false},
		{"node", []string{"mcpsnoop"}, 0, false},
	} {
		at, wrapped := shimArgsAt(tt.command, tt.args)
		if wrapped != tt.wrapped || (wrapped && at != tt.at) {
			t.Errorf("shimArgsAt(%q, %q) = %d, %v; want %d, %v", tt.command, tt.args, at, wrapped, tt.at, tt.wrapped)
		}
	}
	// A hand-written npx entry is already wrapped: wrap leaves it.
	cfg := `{"mcpServers":{"fs":{"command":"npx","args":["-y","mcpsnoop","--","node","x.js"]}}}`
	if _, changed, _, err := Wrap([]byte(cfg), "fs", opts); err != nil || changed {
		t.Errorf("wrap of npx mcpsnoop: changed %v, %v", changed, err)
	}
	out, changed, _, err := Unwrap([]byte(cfg), "fs", nil)
	if err != nil || !changed || !SameConfig(out, []byte(`{"mcpServers":{"fs":{"command":"node","args":["x.js"]}}}`)) {
		t.Errorf("unwrap of npx mcpsnoop: %v %v\n%s", changed, err, out)
	}
}
