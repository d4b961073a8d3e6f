package clientconfig

import "testing"

// The check after an edit compares the whole command line the entry now
// has with the one it must have: an edit that got the command right but
// lost, changed, added or moved an arg is refused, and nothing is written.
func TestVerifyComparesArgs(t *testing.T) {
	before := `{"mcpServers":{"fs":{"command":"npx","args":["-y","server-fs","/tmp"]},"git":{"command":"uvx"}}}`
	d, err := parse([]byte(before), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--", "npx", "-y", "server-fs", "/tmp"}
	for _, tt := range []struct {
		name, out string
		ok        bool
	}{
		{"exact", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoop","args":["--","npx","-y","server-fs","/tmp"]},"git":{"command":"uvx"}}}`, true},
		{"an arg lost", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoop","args":["--","npx","-y","server-fs"]},"git":{"command":"uvx"}}}`, false},
		{"an arg changed", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoop","args":["--","npx","-y","server-fs","/tm"]},"git":{"command":"uvx"}}}`, false},
		{"an arg added", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoop","args":["--","npx","-y","server-fs","/tmp","/tmp"]},"git":{"command":"uvx"}}}`, false},
		{"args moved", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoop","args":["--","npx","server-fs","-y","/tmp"]},"git":{"command":"uvx"}}}`, false},
		{"no args", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoop"},"git":{"command":"uvx"}}}`, false},
		{"the command wrong", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoo","args":["--","npx","-y","server-fs","/tmp"]},"git":{"command":"uvx"}}}`, false},
		{"does not parse", `{"mcpServers":{"fs":{"command":"/bin/mcpsnoop","args":["--","npx","-y","server-fs","/tmp"]}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := d.verify([]byte(tt.out), "fs", "/bin/mcpsnoop", want)
			if (err == nil) != tt.ok {
				t.Errorf("verify = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
